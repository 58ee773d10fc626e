/**
 * @module ctld/job-launch
 * The controller's part of starting a batch job, in the order Slurm runs it:
 * PrologSlurmctld, the node Prolog on every node at allocation (PrologFlags=Alloc),
 * then the launch on the batch host; and EpilogSlurmctld after the job ended. Each
 * failure becomes a command (jobEnded / launchFailed / nodeFail) that apply() re-checks,
 * tagged with the run it was about so a late one cannot end a later run. The site scripts
 * run through the port in `CtldScripts.run` (the role wires the process runner in), so the
 * controller shell does not reach into the node agent's code.
 */
import type { ConsolaInstance } from "consola/core";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState, JobRecord } from "../sched/model/types.ts";
import type { AgentLink } from "./agent-link.ts";
import { ctldScriptEnv, type CtldScripts, type ScriptRunner } from "./ctld-scripts.ts";
import { runsBatchScript } from "../sched/model/het.ts";

export interface JobLaunchContext {
  state: ClusterState;
  agents: AgentLink;
  /** The scripts in force now (a reconfigure may have changed them). */
  scripts: () => CtldScripts | undefined;
  runScript: ScriptRunner;
  logger: ConsolaInstance;
  now: () => number;
  /** Whether this controller acts (the serving leader, or the only controller). */
  acting: () => boolean;
  /** Commit a command the controller itself decided (errors are logged by the caller's wrapper). */
  executeInternal: (command: Command) => void;
}

export interface JobLauncher {
  launch(jobId: number): Promise<void>;
  epilogSlurmctld(jobId: number): Promise<void>;
}

export function createJobLauncher(ctx: JobLaunchContext): JobLauncher {
  const { state, logger } = ctx;

  /** PrologSlurmctld before a batch job is launched: false when it failed (the job is then requeued). */
  async function prologSlurmctld(job: JobRecord): Promise<boolean> {
    const scripts = ctx.scripts();
    const path = scripts?.prolog ?? "";
    if (path === "" || scripts === undefined) return true;
    const r = await ctx.runScript(path, ctldScriptEnv(job.info, "prolog_slurmctld", state.config.clusterName), scripts.timeoutSec);
    if (r.ok) return true;
    logger.warn({ message: `PrologSlurmctld ${path} failed: ${r.why}`, jobId: job.info.jobId });
    if (job.info.state === "RUNNING") {
      ctx.executeInternal({ v: 1, type: "jobEnded", at: ctx.now(), jobId: job.info.jobId, exitCode: 1, exitSignal: 0, outcome: "PROLOG_SLURMCTLD_FAILED" });
    }
    return false;
  }

  /**
   * PrologFlags=Alloc: the node Prolog on every node of the job before its batch script starts
   * (the batch host's stepd runs its own first). A node whose Prolog failed has reported it
   * (PROLOG_FAILED: drained, job requeued held); the script is then not launched.
   */
  async function prologAtAllocation(job: JobRecord): Promise<boolean> {
    if (!(ctx.scripts()?.prologFlags ?? []).includes("alloc")) return true;
    const others = job.info.alloc.map((a) => a.node).filter((n) => n !== job.info.batchHost);
    // A node that cannot be asked is not a failed Prolog: it runs its Prolog at the job's first step there instead.
    const ask = (node: string): Promise<string> =>
      ctx.agents.runProlog(node, job, state).catch((error: unknown) => {
        logger.warn({ message: `Prolog at allocation not asked of ${node}: ${String(error)}`, jobId: job.info.jobId });
        return "";
      });
    const results = await Promise.all(others.map(ask));
    const failed = results.filter((r) => r !== "");
    for (const why of failed) logger.warn({ message: `Prolog at allocation: ${why}`, jobId: job.info.jobId });
    return failed.length === 0;
  }

  return {
    async launch(jobId) {
      const job = state.jobs.get(jobId);
      if (job === undefined) return;
      const node = job.info.batchHost;
      // The run being launched: a failure reported after the job was requeued and restarted is about an earlier run.
      const restarts = job.info.restarts;
      if (!(await prologSlurmctld(job))) return;
      if (!(await prologAtAllocation(job))) {
        // The failing node has been drained and the job told to requeue (held) once its script ends; it never started.
        if (ctx.acting() && job.info.state === "RUNNING") {
          ctx.executeInternal({ v: 1, type: "jobEnded", at: ctx.now(), jobId, exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", restarts });
        }
        return;
      }
      try {
        await ctx.agents.launchBatch(job, state);
        logger.info({ message: "job launched", jobId, node });
      } catch (error) {
        logger.warn({ message: "launch failed", jobId, node, error: String(error) });
        if (job.info.state !== "RUNNING" || !ctx.acting()) return;
        ctx.executeInternal({ v: 1, type: "launchFailed", at: ctx.now(), jobId, node, reason: String(error), restarts });
        // An agent that cannot be reached must not be chosen again at once.
        if (isUnreachable(error)) ctx.executeInternal({ v: 1, type: "nodeFail", at: ctx.now(), node, reason: "Not responding" });
      }
    },

    async epilogSlurmctld(jobId) {
      const scripts = ctx.scripts();
      const path = scripts?.epilog ?? "";
      const job = state.jobs.get(jobId);
      if (path === "" || scripts === undefined || job === undefined || !runsBatchScript(job.info)) return;
      const r = await ctx.runScript(path, ctldScriptEnv(job.info, "epilog_slurmctld", state.config.clusterName), scripts.timeoutSec);
      if (!r.ok) logger.warn({ message: `EpilogSlurmctld ${path} failed: ${r.why}`, jobId });
    },
  };
}

function isUnreachable(error: unknown): boolean {
  const text = String(error);
  return /unavailable|ECONNREFUSED|deadline_exceeded|ConnectionRefused|Unable to connect/i.test(text);
}
