/**
 * @module sched/model/std-paths
 * StdOut/StdErr/StdIn of a batch job (pure). The record keeps them as scontrol shows them:
 * the job's own letters of the filename pattern expanded (%A %a %j %u %x), the node's
 * (%N %n %t %s %J, "%%") as written, relative to WorkDir as given (22.05 does not tidy
 * the path: -D sub/ -o o.txt is sub//o.txt). The node launching the job gets them fully
 * expanded (launchStdPaths). Set at submission and again when the job starts or is
 * requeued, so both apply files share this leaf.
 */
import type { JobRecord } from "./types.ts";
import { expandFilenamePattern, defaultOutputPattern, RECORD_LETTERS } from "../../compat/filename-pattern.ts";
import { isGivenEmpty } from "../../compat/given-empty.ts";

type StdPaths = { stdOut: string; stdErr: string; stdIn: string };

function stdPaths(job: JobRecord, nodeName: string, only?: ReadonlySet<string>): StdPaths {
  const info = job.info;
  const isArray = info.arrayJobId !== 0;
  const ctx = {
    jobId: info.jobId, arrayJobId: info.arrayJobId || info.jobId, arrayTaskId: info.arrayTaskId,
    jobName: info.name, user: info.user, nodeName, nodeIndex: 0,
  };
  const abs = (p: string): string => (p.startsWith("/") ? p : `${info.workDir}/${p}`);
  // given empty (--output=): the working directory itself, as 22.05 records it (compat/given-empty.ts)
  const given = (name: string): boolean => isGivenEmpty(job.spec.givenEmpty, name);
  const outPattern = job.spec.stdOut || (given("output") ? "" : defaultOutputPattern(isArray));
  const stdOut = abs(expandFilenamePattern(outPattern, ctx, only));
  const errPattern = job.spec.stdErr || (given("error") ? "" : outPattern);
  return {
    stdOut,
    // the same text built twice is two strings kept for the job's life: one when they are equal (most jobs)
    stdErr: errPattern === outPattern ? stdOut : abs(expandFilenamePattern(errPattern, ctx, only)),
    stdIn: job.spec.stdIn ? abs(expandFilenamePattern(job.spec.stdIn, ctx, only)) : given("input") ? abs("") : "/dev/null",
  };
}

/** Output paths as the record (scontrol) shows them. */
export function setStdPaths(job: JobRecord, _nodeName: string): void {
  Object.assign(job.info, stdPaths(job, "", RECORD_LETTERS));
}

/** The paths the batch host opens: every letter expanded for that node. */
export const launchStdPaths = (job: JobRecord): StdPaths => stdPaths(job, job.info.batchHost);
