/**
 * @module tests/real-scripts/run-case
 * Runs one real case on one side, in a directory of its own: a script is written as
 * ./job.sh and submitted with `sbatch --hold job.sh`, and its job observed as the
 * differential tester does (scontrol show job -o, squeue -o %all, sacct lines; then
 * cancelled); a command line first gets its own held job $J when it names one (cancelled
 * and recorded first for @ended), runs, and the job is cancelled. Only this run's jobs
 * are ever cancelled.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOn, type Side } from "../conformance/side.ts";
import { observeJob, sideIn, WAIT_SEEN } from "../differential/run-case.ts";
import type { Observation } from "../differential/compare.ts";
import type { CommandCase, ScriptCase } from "./corpus.ts";

const SUBMITTED = /^Submitted batch job (\d+)$/m;

export async function runScript(base: Side, c: ScriptCase, dir: string): Promise<Observation> {
  mkdirSync(dir, { recursive: true });
  const side = sideIn(base, dir);
  writeFileSync(join(dir, "job.sh"), c.text);
  const sub = await runOn(side, "sbatch --hold job.sh", { timeoutMs: 30_000 });
  const jobId = SUBMITTED.exec(sub.stdout)?.[1];
  if (jobId === undefined) return { sub };
  return { sub, jobId, ...(await observeJob(side, jobId, false)) };
}

/** A command's text with the case's job and name put in. */
export const commandText = (c: CommandCase, job: string | undefined, name: string): string =>
  c.cmd.replace(/\$J\b/g, job ?? "0").replace(/\$NAME\b/g, name);

export async function runCommand(base: Side, c: CommandCase, name: string, dir: string): Promise<Observation> {
  mkdirSync(dir, { recursive: true });
  const side = sideIn(base, dir);
  let jobId: string | undefined;
  if (c.needsJob) {
    const r = await runOn(side, `sbatch --parsable --hold -J ${name} --wrap=true`, { timeoutMs: 30_000 });
    jobId = /^\d+/.exec(r.stdout)?.[0];
    if (jobId === undefined) return { sub: { code: -1, stdout: "", stderr: `setup failed: ${r.stdout}${r.stderr}` } };
    if (c.ended) await runOn(side, `${WAIT_SEEN}\nwait_sacct_seen ${jobId}; scancel ${jobId}; wait_sacct ${jobId}`, { timeoutMs: 60_000 });
  }
  const sub = await runOn(side, commandText(c, jobId, name), { timeoutMs: 30_000 });
  if (jobId !== undefined && !c.ended) await runOn(side, `scancel ${jobId} >/dev/null 2>&1`, { timeoutMs: 30_000 });
  return jobId === undefined ? { sub } : { sub, jobId };
}
