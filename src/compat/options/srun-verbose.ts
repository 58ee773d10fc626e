/**
 * @module compat/options/srun-verbose
 * What `srun -v` prints on stderr, in the oracle's shape (`/usr/bin/srun -v -N2 -n3 -t 5 true`):
 * the "defined options" dump (each option given on the command line or through SLURM_*
 * input variables, sorted by name, flags as "set", a time limit as HH:MM:SS), then, once
 * the allocation is known, `srun: jobid N: nodes(K):`LIST', cpu counts: 2(x1),1(x1)` (test
 * harnesses take the job id from it) and one `launching StepId=J.S on host H, T tasks: IDS`
 * line per node. Pure; the srun shell writes the text.
 */
import { compressHostlist } from "../hostlist.ts";
import { parseTimeLimit } from "../parse-time.ts";
import { envAssignments, fromParsed } from "./env-input.ts";
import { parseArgs } from "./parse-args.ts";

const RULE = "srun: -------------------- --------------------\n";

const two = (n: number): string => String(n).padStart(2, "0");

/** 5 → "00:05:00"; 1-2:00:00 → "1-02:00:00" (Slurm's mins2time_str). */
function limitText(value: string): string {
  const parsed = parseTimeLimit(value);
  if (!parsed.ok || parsed.value === undefined) return value;
  const min = parsed.value;
  const days = Math.floor(min / 1440);
  const hms = `${two(Math.floor((min % 1440) / 60))}:${two(min % 60)}:00`;
  return days > 0 ? `${days}-${hms}` : hms;
}

/** The "defined options" block for `argv` (without the command) and the environment. */
export function definedOptionsDump(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
  const parsed = parseArgs("srun", argv);
  const given = [...envAssignments("srun", env), ...(parsed.ok ? fromParsed(parsed.value.options, "cli") : [])];
  const byName = new Map<string, string>();
  for (const a of given) {
    if (a.reset) byName.delete(a.name);
    else if (a.name === "verbose") byName.set("verbose", String(Number(byName.get("verbose") ?? 0) + (a.source === "env" && /^\d+$/.test(a.value ?? "") ? Number(a.value) : 1)));
    else byName.set(a.name, a.value === undefined ? "set" : a.name === "time" ? limitText(a.value) : a.value);
  }
  const lines = [...byName.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, value]) => `srun: ${name.padEnd(20)}: ${value}\n`);
  return `srun: defined options\n${RULE}${lines.join("")}${RULE}srun: end of defined options\n`;
}

/** "2(x1),1(x1)": CPU counts per node, equal neighbours counted (Slurm's cpu count reps). */
function cpuCounts(cpus: readonly number[]): string {
  const runs: [number, number][] = [];
  for (const c of cpus) {
    const last = runs[runs.length - 1];
    if (last !== undefined && last[0] === c) last[1]++;
    else runs.push([c, 1]);
  }
  return runs.map(([c, n]) => `${c}(x${n})`).join(",");
}

/** `srun: jobid N: nodes(K):`LIST', cpu counts: ...` for the job's allocation, one share per node. */
export function jobidLine(jobId: number, shares: readonly { node: string; cpus: number }[]): string {
  const nodes = compressHostlist(shares.map((s) => s.node));
  return `srun: jobid ${jobId}: nodes(${shares.length}):\`${nodes}', cpu counts: ${cpuCounts(shares.map((s) => s.cpus))}\n`;
}

/** "0", "[0-1]", "[0,2]": the task ids of one node as Slurm's bit string prints them. */
function idsText(ids: readonly number[]): string {
  if (ids.length === 1) return String(ids[0]);
  const sorted = [...ids].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && (sorted[j + 1] as number) === (sorted[j] as number) + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return `[${parts.join(",")}]`;
}

/** One `launching StepId=...` line per node of the step. */
export function launchingLines(jobId: number, stepId: number, nodes: readonly { node: string; taskIds: readonly number[] }[]): string {
  return nodes.map((n) => `srun: launching StepId=${jobId}.${stepId} on host ${n.node}, ${n.taskIds.length} tasks: ${idsText(n.taskIds)}\n`).join("");
}
