/**
 * @module ctld/service-script
 * GetJobScript: a batch job's script as it was submitted, for the web page's job view
 * (and what `scontrol write batch_script` needs). Slurm hands a script to its owner and to
 * its operators only; here the owner (by uid), root and SpurOperators=. A job without a
 * script (salloc, srun) is refused with Slurm's wording.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { requester, type ServiceContext } from "./service-context.ts";

/** Whether `by` may read the script of a job owned by `ownerUid`. */
export function mayReadScript(by: { uid: number; user: string }, ownerUid: number, operators: readonly string[]): boolean {
  return by.uid === 0 || by.uid === ownerUid || operators.includes(by.user);
}

export function scriptHandlers(sc: ServiceContext) {
  return {
    getJobScript(req: { jobId: number }, ctx: HandlerContext) {
      const by = requester(ctx);
      const job = sc.controller.state.jobs.get(req.jobId);
      if (job === undefined) throw new ConnectError("Invalid job id specified", Code.NotFound);
      if (!mayReadScript(by, job.info.uid, sc.controller.state.config.operators)) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
      const script = job.spec.script ?? "";
      if (script === "") throw new ConnectError("Job has no batch script", Code.InvalidArgument);
      return { script };
    },
  };
}
