/**
 * @module format/scontrol-show-config
 * `scontrol show config` (golden 022) and `scontrol ping` (golden 020): the
 * "Configuration data as of" line, `Key = Value` lines with keys padded to
 * 23 columns in the order the controller sends them, then a blank line and
 * the controller status line(s).
 */
import { formatIsoTime } from "../format-time.ts";

/** `Slurmctld(primary) at vm is UP` (one line per controller). */
export function pingLine(host: string, primary: boolean, up: boolean): string {
  return `Slurmctld(${primary ? "primary" : "backup"}) at ${host} is ${up ? "UP" : "DOWN"}\n`;
}

/** `Key                     = Value` as Slurm's printf("%-23s = %s"). */
export const configLine = (key: string, value: string): string => `${key.padEnd(23)} = ${value}\n`;

/**
 * The whole listing. `entries` keep the controller's order (Slurm's own
 * order is not alphabetical: the controller sends it already arranged).
 */
export function formatConfig(entries: Readonly<Record<string, string>>, asOf: number, statusLines: string): string {
  const body = Object.entries(entries).map(([k, v]) => configLine(k, v)).join("");
  return `Configuration data as of ${formatIsoTime(asOf)}\n${body}\n${statusLines}`;
}
