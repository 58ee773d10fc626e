/**
 * @module sched/model/std-paths
 * StdOut/StdErr/StdIn as scontrol shows them once a job has a node (pure): the
 * filename pattern expanded, relative to WorkDir. Set at submission and again when
 * the job starts or is requeued, so both apply files share this leaf.
 */
import type { JobRecord } from "./types.ts";
import { expandFilenamePattern, defaultOutputPattern } from "../../compat/filename-pattern.ts";

/** Output paths as scontrol shows them: the pattern expanded, relative to WorkDir. */
export function setStdPaths(job: JobRecord, nodeName: string): void {
  const info = job.info;
  const isArray = info.arrayJobId !== 0;
  const ctx = {
    jobId: info.jobId, arrayJobId: info.arrayJobId || info.jobId, arrayTaskId: info.arrayTaskId,
    jobName: info.name, user: info.user, nodeName, nodeIndex: 0,
  };
  const abs = (p: string): string => (p.startsWith("/") ? p : `${info.workDir.replace(/\/$/, "")}/${p}`);
  const outPattern = job.spec.stdOut || defaultOutputPattern(isArray);
  info.stdOut = abs(expandFilenamePattern(outPattern, ctx));
  info.stdErr = abs(expandFilenamePattern(job.spec.stdErr || outPattern, ctx));
  info.stdIn = job.spec.stdIn ? abs(expandFilenamePattern(job.spec.stdIn, ctx)) : "/dev/null";
}
