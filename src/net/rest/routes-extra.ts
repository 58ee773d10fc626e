/**
 * @module rest/routes-extra
 * Operations added after v0.0.42 or used less often: the light job state list
 * (jobs/state), signalling many jobs by filter (DELETE jobs/), requeue of one
 * job (v0.0.45), and /util/ hostlist expansion and compression (v0.0.44 on).
 */
import type { Route, RequestContext } from "./route.ts";
import type { Infer } from "./schema.ts";
import { RestError } from "./errors.ts";
import { ctlCall } from "./ctl-errors.ts";
import { OpenapiResp, value } from "./schemas-common.ts";
import { JobsStateResp, KillJobsMsg, KillJobsResp } from "./schemas-job.ts";
import { HostlistReq, HostlistResp, HostnamesReq, HostnamesResp } from "./schemas-util.ts";
import { jobStateArray } from "./serialize-job.ts";
import { signalNumber } from "./signals.ts";
import { compressHostlist, expandHostlist } from "../../compat/hostlist.ts";
import { displayJobId } from "../../compat/format/job-values.ts";

async function jobsState(rc: RequestContext) {
  const res = await ctlCall("get_jobs_state", () => rc.ctl.listJobs({}));
  return { jobs: res.jobs.map((j) => ({ job_id: displayJobId(j), state: jobStateArray(j) })) };
}

const FILTER_DEFAULTS = { jobIds: [] as string[], user: "", name: "", partition: "", states: [] as string[], account: "", nodelist: "", qos: "", reservation: "" };

async function killJobs(rc: RequestContext) {
  const m = rc.body as Infer<typeof KillJobsMsg>;
  const filter = {
    ...FILTER_DEFAULTS, jobIds: m.jobs ?? [], user: m.user_name ?? "", name: m.job_name ?? "", partition: m.partition ?? "",
    states: m.job_state ?? [], account: m.account ?? "", nodelist: (m.nodes ?? []).join(","), qos: m.qos ?? "", reservation: m.reservation ?? "",
  };
  const selective = filter.jobIds.length + filter.states.length > 0 || [filter.user, filter.name, filter.partition, filter.account, filter.nodelist, filter.qos, filter.reservation].some((x) => x !== "");
  if (!selective) throw new RestError("InvalidQuery", "No job filter given: refusing to signal every job", "delete_jobs");
  const asked = signalNumber(m.signal);
  const flags = m.flags ?? [];
  const res = await ctlCall("delete_jobs", () => rc.ctl.cancel({ filter, signal: asked === 9 ? 0 : asked, batchOnly: flags.includes("BATCH_JOB"), full: flags.includes("FULL_JOB") }));
  return {
    status: res.results.map((r) => ({ error: { string: r.error, code: r.errorCode, message: r.error }, step_id: "", job_id: value(Number(r.jobId.split("_")[0])), federation: { sibling: "" } })),
  };
}

async function requeue(rc: RequestContext) {
  const id = rc.params.job_id ?? "";
  if (!/^\d{1,10}(_\d{1,10})?$/.test(id)) throw new RestError("InvalidJobId", `Unable to parse job id "${id.slice(0, 64)}"`, "requeue_job", "Invalid job id specified");
  const res = await ctlCall("requeue_job", () => rc.ctl.updateJob({ jobIds: [id], action: "requeue", fields: {} }));
  const failed = res.results.find((r) => r.errorCode !== 0);
  if (failed !== undefined) throw new RestError(failed.errorCode === 2017 ? "InvalidJobId" : failed.errorCode === 2002 ? "AccessDenied" : "Rejected", failed.error, "requeue_job", failed.error, failed.errorCode);
  return {};
}

async function hostnames(rc: RequestContext) {
  const r = expandHostlist((rc.body as Infer<typeof HostnamesReq>).hostlist);
  if (!r.ok) throw new RestError("InvalidQuery", r.error.message, "hostnames");
  if (r.value.length > 100_000) throw new RestError("InvalidQuery", "hostlist expands to more than 100000 names", "hostnames");
  return { hostnames: r.value };
}

export const EXTRA_ROUTES: readonly Route[] = [
  { method: "get", api: "slurm", path: "jobs/state/", since: 43, operation: "get_jobs_state", summary: "get list of job states", response: JobsStateResp, handle: jobsState },
  { method: "delete", api: "slurm", path: "jobs/", since: 42, operation: "delete_jobs", summary: "send signal to list of jobs", body: KillJobsMsg, response: KillJobsResp, handle: killJobs },
  { method: "get", api: "slurm", path: "job/{job_id}/requeue", since: 45, operation: "get_job_requeue", summary: "requeue job", response: OpenapiResp, handle: requeue },
  { method: "post", api: "util", path: "hostnames", since: 44, operation: "post_hostnames", summary: "expand a hostlist expression", body: HostnamesReq, response: HostnamesResp, handle: hostnames },
  { method: "post", api: "util", path: "hostlist", since: 44, operation: "post_hostlist", summary: "compress host names into a hostlist expression", body: HostlistReq, response: HostlistResp, handle: async (rc) => ({ hostlist: compressHostlist((rc.body as Infer<typeof HostlistReq>).hostnames) }) },
];
