/**
 * @module agent/node-prolog
 * Prolog and Epilog on the nodes of a job that hold no batch script (the other
 * nodes of a multi-node job, every node of an salloc/srun allocation), as Slurm
 * runs them without PrologFlags=Alloc: the Prolog once per job and node, before
 * the first step's tasks there; the Epilog on every node of the job when the
 * controller ends it there (after its steps' processes are gone). With PrologFlags=Alloc the
 * controller asks for the Prolog at allocation instead (`runProlog`), before the
 * batch script starts. A marker file per job (spool/prolog/<job id>) says that
 * the Prolog ran, so a restarted spurd neither runs it twice nor forgets the
 * Epilog. Failure policy: a failing Prolog fails the step and is reported
 * (the controller drains this node and requeues the job held); a failing Epilog
 * drains this node.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { adminScriptEnv, runAdminScript, type JobFacts, type SiteScripts } from "./prolog.ts";

export interface NodePrologDeps {
  spool: string;
  node: string;
  scripts: SiteScripts;
  /** Tell the controller: the Prolog failed here (outcome PROLOG_FAILED), or drain this node (Epilog). */
  report(r: { jobId: number; outcome: "PROLOG_FAILED" } | { drainReason: string; message: string }): Promise<void>;
  /** Whether processes of the job's steps still run here. */
  stepsRunning(jobId: number): boolean;
}

export interface NodeProlog {
  /** Run the Prolog for the job unless it ran here already: "" when the job may run, else why not. */
  ensure(facts: JobFacts): Promise<string>;
  /**
   * The job ended on this node: once its steps are gone, run the Epilog and forget the job. It runs
   * on every node of the job (as Slurm's), with the Prolog's facts, else with `facts` from the controller.
   */
  ended(jobId: number, waitMs: number, facts?: JobFacts): Promise<void>;
}

const ENDED_KEPT_MS = 60_000;
const markerDir = (spool: string): string => join(spool, "prolog");
const markerOf = (spool: string, jobId: number): string => join(markerDir(spool), String(jobId));

export function createNodeProlog(d: NodePrologDeps): NodeProlog {
  const inFlight = new Map<number, Promise<string>>();
  const ending = new Set<number>();
  /** Jobs whose Epilog ran here in the last minute (the controller's second word on a job comes within seconds). */
  const endedAt = new Map<number, number>();
  async function runOnce(facts: JobFacts): Promise<string> {
    const marker = markerOf(d.spool, facts.jobId);
    if (existsSync(marker)) return "";
    mkdirSync(markerDir(d.spool), { recursive: true });
    if (d.scripts.prolog === "") {
      writeFileSync(marker, JSON.stringify(facts));
      return "";
    }
    const r = await runAdminScript(d.scripts.prolog, adminScriptEnv(facts, "prolog_slurmd"), d.scripts.timeoutSec);
    if (r.ok) {
      writeFileSync(marker, JSON.stringify(facts));
      return "";
    }
    await d.report({ jobId: facts.jobId, outcome: "PROLOG_FAILED" }).catch(() => undefined);
    return `Prolog ${d.scripts.prolog} failed on ${d.node}: ${r.why}`;
  }
  return {
    ensure(facts) {
      endedAt.delete(facts.jobId); // a new run of the job (requeued) here ends again later
      // Parallel steps of one job wait for the same Prolog run.
      const running = inFlight.get(facts.jobId);
      if (running !== undefined) return running;
      const p = runOnce(facts).finally(() => inFlight.delete(facts.jobId));
      inFlight.set(facts.jobId, p);
      return p;
    },
    async ended(jobId, waitMs, given) {
      const marker = markerOf(d.spool, jobId);
      const facts = markedFacts(d.spool, jobId) ?? given;
      // A job is ended here once, though the controller may say so twice (scancel, then the end itself).
      const now = Date.now();
      for (const [id, at] of endedAt) if (now - at > ENDED_KEPT_MS) endedAt.delete(id);
      if (facts === undefined || ending.has(jobId) || endedAt.has(jobId)) return;
      ending.add(jobId);
      endedAt.set(jobId, now);
      const deadline = Date.now() + waitMs;
      while (d.stepsRunning(jobId) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      rmSync(marker, { force: true });
      ending.delete(jobId);
      if (d.scripts.epilog === "") return;
      const r = await runAdminScript(d.scripts.epilog, adminScriptEnv(facts, "epilog_slurmd"), d.scripts.timeoutSec);
      if (!r.ok) await d.report({ drainReason: "Epilog error", message: `Epilog ${d.scripts.epilog} failed: ${r.why}` }).catch(() => undefined);
    },
  };
}

/** The facts the marker file keeps (the Epilog's environment), or undefined. */
export function markedFacts(spool: string, jobId: number): JobFacts | undefined {
  try {
    return JSON.parse(readFileSync(markerOf(spool, jobId), "utf8")) as JobFacts;
  } catch {
    return undefined;
  }
}
