/**
 * @module roles/conf-file
 * Finds and reads spur.conf: --conf, then $SPUR_CONF, then $SLURM_CONF, then
 * /etc/spur/spur.conf. Also how a client finds the controller's address.
 */
import { readFileSync } from "node:fs";
import { parseConf, type ParsedConf } from "../compat/conf/slurm-conf.ts";

export const DEFAULT_CONF = "/etc/spur/spur.conf";

export function confPath(explicit?: string): string {
  return explicit || process.env.SPUR_CONF || process.env.SLURM_CONF || DEFAULT_CONF;
}

export function readConf(path: string): ParsedConf {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`cannot read configuration file ${path} (set SPUR_CONF or pass --conf)`);
  }
  const parsed = parseConf(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

/** ClusterName from the configuration ("spur" when unset or unreadable), as the controller has it. */
export function clusterNameOf(path: string): string {
  try {
    return readConf(path).globals.get("clustername") ?? "spur";
  } catch {
    return "spur";
  }
}

/** The controller's address: ControlAddr/ControlPort, or slurm.conf's SlurmctldHost/SlurmctldPort. */
export function controllerAddress(conf: ParsedConf): { host: string; port: number } {
  const slurmHost = conf.globals.get("slurmctldhost")?.replace(/^[^(]*\(([^)]*)\).*$/, "$1");
  const host = conf.globals.get("controladdr") ?? slurmHost ?? "127.0.0.1";
  const port = Number(conf.globals.get("controlport") ?? conf.globals.get("slurmctldport") ?? "6817");
  return { host, port };
}

export function controllerUrl(conf: ParsedConf): string {
  const { host, port } = controllerAddress(conf);
  return `http://${host}:${port}`;
}
