/**
 * @module ctld/service-script
 * GetJobScript: a batch job's script as it was submitted, for the web page's job view
 * (and what `scontrol write batch_script` needs). Slurm hands a script to its owner and to
 * its operators only; here the owner (by uid), root and SpurOperators=. Refusals carry
 * slurmctld's error numbers (oracle, scontrol write batch_script): anyone else gets
 * "Invalid user id" (ESLURM_USER_ID_MISSING), a job without a script (salloc, srun) "Job
 * script not specified".
 */
import type { HandlerContext } from "@connectrpc/connect";
import { rejectionError, requester, type ServiceContext } from "./service-context.ts";

/** Whether `by` may read the script of a job owned by `ownerUid`. */
export function mayReadScript(by: { uid: number; user: string }, ownerUid: number, operators: readonly string[]): boolean {
  return by.uid === 0 || by.uid === ownerUid || operators.includes(by.user);
}

export function scriptHandlers(sc: ServiceContext) {
  return {
    getJobScript(req: { jobId: number }, ctx: HandlerContext) {
      const by = requester(ctx);
      const job = sc.controller.state.jobs.get(req.jobId);
      if (job === undefined) throw rejectionError("", "InvalidJobId");
      if (!mayReadScript(by, job.info.uid, sc.controller.state.config.operators)) throw rejectionError("", "UserIdMissing");
      const script = job.spec.script ?? "";
      if (script === "") throw rejectionError("", "JobScriptMissing");
      return { script };
    },
  };
}
