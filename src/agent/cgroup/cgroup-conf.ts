/**
 * @module agent/cgroup/cgroup-conf
 * cgroup.conf switches as Slurm has them, pure: which limits spurd enforces
 * with cgroups. Read from cgroup.conf beside spur.conf; the same keys in
 * spur.conf win over it (one file is enough for a small cluster). Defaults are
 * Slurm's: nothing is constrained unless configured (processes are still
 * tracked, killed and measured through cgroups); `spur up` writes a
 * cgroup.conf that turns every switch on.
 *   ConstrainCores=yes       the job's cpuset is its allocated CPUs
 *   ConstrainRAMSpace=yes    hard memory limit: AllowedRAMSpace % (default 100)
 *                            of the job's memory on the node
 *   ConstrainSwapSpace=yes   RAM + swap limit: AllowedSwapSpace % (default 0) of
 *                            the job's memory more than the RAM limit
 *   ConstrainDevices=yes     only the allocated GPUs' device files can be opened
 *                            (and visible-device variables count from 0)
 * A value other than yes/no, or a percentage that is not a number, is an error
 * (spurd refuses to start rather than run jobs less contained than configured).
 */
import { err, ok, type Result } from "../../lib/result.ts";

export interface CgroupConstraints {
  cores: boolean;
  ram: boolean;
  swap: boolean;
  devices: boolean;
  /** AllowedRAMSpace: percent of the job's memory. */
  allowedRamPercent: number;
  /** AllowedSwapSpace: percent of the job's memory, on top of the RAM limit. */
  allowedSwapPercent: number;
}

/** Slurm's defaults: nothing constrained. */
export const SLURM_DEFAULTS: CgroupConstraints = { cores: false, ram: false, swap: false, devices: false, allowedRamPercent: 100, allowedSwapPercent: 0 };

/** What `spur up` writes: a demo cluster whose jobs get exactly what they asked for. */
export const SPUR_UP_CGROUP_CONF = [
  "# Written by `spur up`: jobs are held to what they were allocated (Slurm's cgroup.conf switches).",
  "ConstrainCores=yes",
  "ConstrainRAMSpace=yes",
  "ConstrainSwapSpace=yes",
  "ConstrainDevices=yes",
  "",
].join("\n");

const SWITCHES: Record<string, "cores" | "ram" | "swap" | "devices"> = {
  constraincores: "cores", constrainramspace: "ram", constrainswapspace: "swap", constraindevices: "devices",
};
const PERCENTS: Record<string, "allowedRamPercent" | "allowedSwapPercent"> = {
  allowedramspace: "allowedRamPercent", allowedswapspace: "allowedSwapPercent",
};

/** Key=Value pairs of a cgroup.conf text (comments and blank lines skipped; keys lower-cased). */
export function cgroupConfPairs(text: string): [string, string][] {
  const out: [string, string][] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    for (const word of line.split(/\s+/)) {
      const eq = word.indexOf("=");
      if (eq > 0) out.push([word.slice(0, eq).toLowerCase(), word.slice(eq + 1)]);
    }
  }
  return out;
}

/** The switches from cgroup.conf pairs, then spur.conf's (later pairs win); unknown keys are left to others. */
export function readConstraints(pairs: readonly (readonly [string, string])[]): Result<CgroupConstraints> {
  const c: CgroupConstraints = { ...SLURM_DEFAULTS };
  for (const [key, value] of pairs) {
    const k = key.toLowerCase();
    const sw = SWITCHES[k];
    if (sw !== undefined) {
      const v = value.toLowerCase();
      if (v !== "yes" && v !== "no") return err("BadCgroupConf", `cgroup.conf: ${key}=${value}: expected yes or no`);
      c[sw] = v === "yes";
      continue;
    }
    const pct = PERCENTS[k];
    if (pct !== undefined) {
      const n = Number(value.replace(/%$/, ""));
      if (!Number.isFinite(n) || n < 0) return err("BadCgroupConf", `cgroup.conf: ${key}=${value}: expected a percentage`);
      c[pct] = n;
    }
  }
  return ok(c);
}

/** "cores,ram,swap,devices" as scontrol show node / spurd --discover say it; "none" when nothing is constrained. */
export function constraintsText(c: CgroupConstraints): string {
  const on = [c.cores && "ConstrainCores", c.ram && `ConstrainRAMSpace(${c.allowedRamPercent}%)`, c.swap && `ConstrainSwapSpace(+${c.allowedSwapPercent}%)`, c.devices && "ConstrainDevices"]
    .filter((x): x is string => typeof x === "string");
  return on.length === 0 ? "none" : on.join(",");
}

/** How a node contains jobs, as scontrol -d show node (Containment=) and spurd --discover say it. */
export function containmentText(summary: string, c: CgroupConstraints): string {
  return summary.startsWith("none") ? summary : `${summary} Constrained=${constraintsText(c)}`;
}

/** The job's memory limits in bytes: RAM (0 = none) and RAM + swap (undefined = swap not limited). */
export function memoryLimits(c: CgroupConstraints, memMib: number): { ramBytes: number; swapBytes: number | undefined } {
  const bytes = memMib * 1024 * 1024;
  const ramBytes = c.ram && bytes > 0 ? Math.floor((bytes * c.allowedRamPercent) / 100) : 0;
  const swapBytes = c.swap && bytes > 0 ? Math.floor((bytes * c.allowedSwapPercent) / 100) : undefined;
  return { ramBytes, swapBytes };
}
