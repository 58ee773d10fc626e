/**
 * @module ctld/ctld-scripts
 * PrologSlurmctld and EpilogSlurmctld: site scripts the controller runs for a
 * batch job, before it is launched and after it ended, with the job's
 * variables (SLURM_SCRIPT_CONTEXT=prolog_slurmctld/epilog_slurmctld; the
 * epilog also gets SLURM_JOB_EXIT_CODE (raw wait status), SLURM_JOB_EXIT_CODE2
 * (exit:signal) and SLURM_JOB_DERIVED_EC). A failing PrologSlurmctld requeues
 * the job (or fails it when it may not be requeued; no node is drained); a
 * failing EpilogSlurmctld is only logged, as in Slurm.
 */
import type { JobInfoP } from "../sched/model/types.ts";

export interface CtldScripts {
  prolog: string;
  epilog: string;
  timeoutSec: number;
  /** PrologFlags, lower-cased: "alloc" runs the node Prolog on every node at allocation. */
  prologFlags?: string[];
}

/** Runs a site script as the controller's user with exactly `env` (the role wires agent/prolog.ts runAdminScript in). */
export type ScriptRunner = (path: string, env: Record<string, string>, timeoutSec: number) => Promise<{ ok: boolean; why: string }>;

/** The scripts spur.conf names (lower-cased keys): at start, and again after `scontrol reconfigure`. */
export function scriptsFrom(g: ReadonlyMap<string, string>): CtldScripts & { prologFlags: string[] } {
  return {
    prolog: g.get("prologslurmctld") ?? "", epilog: g.get("epilogslurmctld") ?? "", timeoutSec: Number(g.get("prologepilogtimeout") ?? 0) || 0,
    prologFlags: (g.get("prologflags") ?? "").toLowerCase().split(",").filter(Boolean),
  };
}

/** The scripts in force: what the last reconfigure read (replicated), else what the controller was started with. */
export function scriptsInForce(reconfigured: { globals?: [string, string][] } | undefined, atStart: CtldScripts | undefined): CtldScripts | undefined {
  return reconfigured?.globals === undefined ? atStart : scriptsFrom(new Map(reconfigured.globals));
}

export function ctldScriptEnv(job: JobInfoP, context: "prolog_slurmctld" | "epilog_slurmctld", clusterName: string): Record<string, string> {
  const env: Record<string, string> = {
    SLURM_SCRIPT_CONTEXT: context, SLURM_JOB_ID: String(job.jobId), SLURM_JOBID: String(job.jobId), SLURM_JOB_USER: job.user,
    SLURM_JOB_UID: String(job.uid), SLURM_JOB_GID: String(job.gid), SLURM_JOB_NAME: job.name, SLURM_JOB_PARTITION: job.partition,
    SLURM_JOB_NODELIST: job.nodelist, SLURM_JOB_ACCOUNT: job.account, SLURM_CLUSTER_NAME: clusterName, SLURM_JOB_WORK_DIR: job.workDir,
  };
  if (context === "epilog_slurmctld") {
    Object.assign(env, {
      SLURM_JOB_EXIT_CODE: String(job.exitCode * 256 + job.exitSignal),
      SLURM_JOB_EXIT_CODE2: `${job.exitCode}:${job.exitSignal}`,
      SLURM_JOB_DERIVED_EC: String(job.derivedExitCode),
    });
  }
  return env;
}
