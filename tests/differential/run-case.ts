/**
 * @module tests/differential/run-case
 * Runs one case on one side (tests/conformance/side.ts) in a directory of its own: writes
 * the script, runs the command, finds the job it made (printed id, else by its unique name
 * or directory), records `scontrol show job -o`, `squeue -o %all` and the sacct lines of
 * that job, and cancels it. Only jobs the case itself submitted are ever cancelled.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOn, type Side } from "../conformance/side.ts";
import type { Case } from "./generator.ts";
import type { Observation } from "./compare.ts";
import { render } from "./render.ts";

/** sacct's ALL field list as 22.05 prints it (explicit, so both sides print the same columns). */
export const SACCT_FIELDS = [
  "Account", "AdminComment", "AllocCPUS", "AllocNodes", "AllocTRES", "AssocID", "AveCPU", "AveCPUFreq", "AveDiskRead", "AveDiskWrite",
  "AvePages", "AveRSS", "AveVMSize", "BlockID", "Cluster", "Comment", "Constraints", "ConsumedEnergy", "ConsumedEnergyRaw", "Container",
  "CPUTime", "CPUTimeRAW", "DBIndex", "DerivedExitCode", "Elapsed", "ElapsedRaw", "Eligible", "End", "ExitCode", "Flags", "GID", "Group",
  "JobID", "JobIDRaw", "JobName", "Layout", "MaxDiskRead", "MaxDiskReadNode", "MaxDiskReadTask", "MaxDiskWrite", "MaxDiskWriteNode",
  "MaxDiskWriteTask", "MaxPages", "MaxPagesNode", "MaxPagesTask", "MaxRSS", "MaxRSSNode", "MaxRSSTask", "MaxVMSize", "MaxVMSizeNode",
  "MaxVMSizeTask", "McsLabel", "MinCPU", "MinCPUNode", "MinCPUTask", "NCPUS", "NNodes", "NodeList", "NTasks", "Partition", "Priority",
  "QOS", "QOSRAW", "Reason", "ReqCPUFreq", "ReqCPUFreqGov", "ReqCPUFreqMax", "ReqCPUFreqMin", "ReqCPUS", "ReqMem", "ReqNodes", "ReqTRES",
  "Reservation", "ReservationId", "Reserved", "ResvCPU", "ResvCPURAW", "Start", "State", "Submit", "SubmitLine", "Suspended",
  "SystemComment", "SystemCPU", "Timelimit", "TimelimitRaw", "TotalCPU", "TRESUsageInAve", "TRESUsageInMax", "TRESUsageInMaxNode",
  "TRESUsageInMaxTask", "TRESUsageInMin", "TRESUsageInMinNode", "TRESUsageInMinTask", "TRESUsageInTot", "TRESUsageOutAve",
  "TRESUsageOutMax", "TRESUsageOutMaxNode", "TRESUsageOutMaxTask", "TRESUsageOutMin", "TRESUsageOutMinNode", "TRESUsageOutMinTask",
  "TRESUsageOutTot", "UID", "User", "UserCPU", "WCKey", "WCKeyID", "WorkDir",
].join(",");

/** The side with the case's directory as its working (and masked) directory. */
export function sideIn(side: Side, dir: string): Side {
  return { ...side, ctx: { ...side.ctx, workDir: dir }, vars: {} };
}

const SUBMITTED = /^(?:Submitted batch job (\d+)|(\d+)(?:;\S+)?)$/m;

/** The case's job on this side: the id sbatch printed, else the one squeue shows by name or directory. */
async function findJob(side: Side, stdout: string, name: string, dir: string): Promise<string | undefined> {
  const m = SUBMITTED.exec(stdout);
  if (m) return m[1] ?? m[2];
  const r = await runOn(side, `squeue -h -a -o '%i|%j|%Z'`, { timeoutMs: 20_000 });
  const hit = r.stdout.split("\n").map((l) => l.split("|")).find(([, j, z]) => j === name || z === dir);
  return hit ? /^\d+/.exec(hit[0] ?? "")?.[0] : undefined;
}

const SEP = "@@differential@@";

/** Shell helper: wait (at most 20 s) until sacct lists the job. */
export const WAIT_SEEN = String.raw`wait_sacct_seen() {
  local end=$((SECONDS + 20))
  until [ -n "$(sacct -n -X -P -j "$1" -o JobName 2>/dev/null)" ]; do ((SECONDS < end)) || return 0; sleep 0.3; done
}`;

/** scontrol, squeue and (after cancelling, once accounting has it) sacct of one job. */
export async function observeJob(side: Side, id: string, plain: boolean): Promise<Pick<Observation, "job" | "squeue" | "sacct">> {
  const show = [`scontrol show job -o ${id} 2>&1`, `echo ${SEP}`, `squeue -j ${id} -o %all 2>&1`, `echo ${SEP}`];
  if (plain) {
    // a runnable job's accounting races the shared oracle's load: not compared (compare.ts)
    const r = await runOn(side, [...show, `scancel ${id} >/dev/null 2>&1`].join("\n"), { timeoutMs: 60_000 });
    const [job, squeue] = r.stdout.split(`${SEP}\n`);
    return { job: job ?? "", squeue: squeue ?? "" };
  }
  const cmd = [
    WAIT_SEEN,
    ...show,
    // cancel only once accounting has the job's start record: cancelled earlier, 22.05's
    // slurmdbd keeps a stub ("allocation", no partition) and the record depends on timing
    `wait_sacct_seen ${id}`,
    `scancel ${id} >/dev/null 2>&1`, `wait_sacct ${id} >/dev/null 2>&1`,
    `sacct -j ${id} -P -o ${SACCT_FIELDS} 2>&1`,
  ].join("\n");
  const r = await runOn(side, cmd, { timeoutMs: 60_000 });
  const [job, squeue, sacct] = r.stdout.split(`${SEP}\n`);
  return { job: job ?? "", squeue: squeue ?? "", sacct: sacct ?? "" };
}

/** Run a case on one side. `name` is unique to this run and case; `dir` is created here. */
export async function runCase(base: Side, c: Case, name: string, dir: string): Promise<Observation> {
  mkdirSync(join(dir, "sub"), { recursive: true });
  const side = sideIn(base, dir);
  let jobId: string | undefined;
  if (c.kind === "query" && c.needsJob) {
    const r = await runOn(side, `sbatch --parsable --hold -J ${name} --wrap=true`, { timeoutMs: 30_000 });
    jobId = /^\d+/.exec(r.stdout)?.[0];
    if (jobId === undefined) return { sub: { code: -1, stdout: "", stderr: `setup failed: ${r.stdout}${r.stderr}` } };
    // the query may cancel the job (scancel): wait for its start record first, as observeJob does,
    // or 22.05's slurmdbd keeps the "allocation" stub (seed 12033: JobName=allocation, QOS=Unknown)
    const end = c.afterEnd ? `; scancel ${jobId}; wait_sacct ${jobId}` : "";
    await runOn(side, `${WAIT_SEEN}\nwait_sacct_seen ${jobId}${end}`, { timeoutMs: 60_000 });
  }
  const rendered = render(c, name, jobId);
  if (rendered.script !== undefined) writeFileSync(join(dir, "job.sh"), rendered.script);
  const sub = await runOn(side, rendered.cmd, { timeoutMs: 30_000 });
  if (c.kind === "sbatch" && c.mode !== "test-only" && sub.code === 0) jobId = await findJob(side, sub.stdout, name, dir);
  if (jobId === undefined) return { sub };
  if (c.kind === "query" && c.afterEnd) return { sub, jobId };
  return { sub, jobId, ...(await observeJob(side, jobId, c.kind === "sbatch" && c.mode === "plain")) };
}
