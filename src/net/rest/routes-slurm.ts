/**
 * @module rest/routes-slurm
 * The /slurm/<version>/ operations (slurmctld's side): ping, diag, jobs, one
 * job (get, update, signal/cancel), submit, allocate, nodes, partitions,
 * reservations, licenses, shares. Each handler is a few calls to spurctld
 * through the caller's ControllerPort and a serializer; errors are RestErrors.
 */
import type { Route, RequestContext } from "./route.ts";
import { RestError } from "./errors.ts";
import { sharesValue } from "./serialize-shares.ts";
import { ctlCall } from "./ctl-errors.ts";
import { OpenapiResp, value } from "./schemas-common.ts";
import { JobAllocReq, JobAllocResp, JobDescMsg, JobInfoResp, JobPostResp, JobSubmitReq, JobSubmitResp, KillJobResp } from "./schemas-job.ts";
import { DiagResp, LicensesResp, NodesResp, PartitionsResp, PingResp, SharesResp, UpdateNodeMsg } from "./schemas-cluster.ts";
import { jobInfo } from "./serialize-job.ts";
import { nodeValue, partitionValue } from "./serialize-cluster.ts";
import { jobSpecFromDesc, updateFieldsFromDesc, type JobDesc } from "./job-desc.ts";
import type { Infer } from "./schema.ts";
import type { Job } from "../../compat/format/job-values.ts";
import { signalNumber } from "./signals.ts";
import { RawMembers, singleFlight } from "./raw-json.ts";
import { createJobsJsonCache } from "./jobs-json.ts";
import { createListMemo } from "./list-memo.ts";
import { versionNumber } from "./versions.ts";

const lastUpdate = (rc: RequestContext) => value(Math.floor(rc.nowSec));

/** "123", "123_4" → the records it names. */
function parseJobId(text: string): { id: number; task?: number } {
  const m = /^(\d{1,10})(?:_(\d{1,10}))?$/.exec(text);
  if (m === null) throw new RestError("InvalidJobId", `Unable to parse job id "${text.slice(0, 64)}"`, "job_id", "Invalid job id specified");
  return m[2] === undefined ? { id: Number(m[1]) } : { id: Number(m[1]), task: Number(m[2]) };
}

async function jobsNamed(rc: RequestContext, text: string): Promise<Job[]> {
  const { id, task } = parseJobId(text);
  const res = await ctlCall("get_job", () => rc.ctl.listJobs({ jobIds: [id] }));
  const jobs = res.jobs.filter((j) => (task === undefined ? j.jobId === id || j.arrayJobId === id : j.arrayJobId === id && j.arrayTaskId === task));
  if (jobs.length === 0) throw new RestError("InvalidJobId", `Failure to query job ${text}`, "get_job");
  return jobs;
}

function changedSince(job: Job, sinceSec: number): boolean {
  return Math.max(job.submitTime, job.startTime, job.endTime, job.lastSchedEval) >= sinceSec;
}

const jobsFlight = singleFlight<Uint8Array[]>();
const jobsText = createJobsJsonCache();
const listMemo = createListMemo<Uint8Array[]>();

/**
 * The `"jobs":[...]` member for this version, shared by concurrent identical requests of one user.
 * The whole queue's member is kept per controller list version (list-memo.ts): while the
 * controller answers that the list is unchanged, GET /jobs sends the bytes it already has.
 */
function jobsMember(rc: RequestContext, since: number): Promise<Uint8Array[]> {
  return jobsFlight(`${rc.caller.user}|${rc.version}|${since}`, async () => {
    const known = since === 0 ? listMemo.version() : "";
    const res = await ctlCall("get_jobs", () => rc.ctl.listJobs(known === "" ? {} : { knownListVersion: known }));
    const whole = `${rc.version}|${rc.host.cluster}`;
    if (since === 0) {
      const kept = listMemo.get(res, whole);
      if (kept !== undefined) return kept;
    }
    // listUnchanged for a member not kept (another version asked first): the full list once more
    const list = res.listUnchanged === true ? await ctlCall("get_jobs", () => rc.ctl.listJobs({})) : res;
    const jobs = since > 0 ? list.jobs.filter((j) => changedSince(j, since)) : list.jobs;
    const member = jobsText.member(jobs, rc.host.cluster, versionNumber(rc.version), since === 0);
    if (since !== 0 || (list.listVersion ?? "") === "") return member;
    // Kept as one buffer: each answer then copies 40 MiB once instead of joining 20k chunks.
    const joined = [Buffer.concat(member)];
    listMemo.put(list.listVersion ?? "", whole, joined);
    return joined;
  });
}

async function getJobs(rc: RequestContext) {
  const asked = Number(rc.query.update_time ?? 0);
  const since = Number.isFinite(asked) && asked > 0 ? Math.floor(asked) : 0;
  return new RawMembers(await jobsMember(rc, since), { last_backfill: value(0), last_update: lastUpdate(rc) });
}

async function submit(rc: RequestContext) {
  const body = rc.body as Infer<typeof JobSubmitReq>;
  if (body.jobs !== undefined && body.job !== undefined) throw new RestError("InvalidJobDesc", "Specify only one of job or jobs", "job_submit");
  const desc: JobDesc | undefined = body.job ?? body.jobs?.[0];
  if (desc === undefined) throw new RestError("InvalidJobDesc", "Job description (job) missing", "job_submit");
  const script = body.script ?? desc.script ?? "";
  const { spec, warnings } = jobSpecFromDesc({ desc, script, nowSec: rc.nowSec, defaultCwd: rc.host.homeOf(rc.caller.user), hostname: rc.host.hostname });
  for (const w of warnings) rc.warnings.push({ description: w, source: "job_submit" });
  const res = await ctlCall("job_submit", () => rc.ctl.submit({ spec: { ...spec, submitLine: "slurmrestd job/submit" }, testOnly: false, hetComponents: [] }));
  return { job_id: res.jobId, step_id: "batch", job_submit_user_msg: res.warnings.join("\n") };
}

async function allocate(rc: RequestContext) {
  const body = rc.body as Infer<typeof JobAllocReq>;
  const desc = body.job ?? body.hetjob?.[0];
  if (desc === undefined) throw new RestError("InvalidJobDesc", "Job description (job) missing", "job_allocate");
  const built = jobSpecFromDesc({ desc, script: "#!/bin/sh\n", nowSec: rc.nowSec, defaultCwd: rc.host.homeOf(rc.caller.user), hostname: rc.host.hostname });
  const spec = { ...built.spec, script: "", interactive: true, submitLine: "slurmrestd job/allocate" };
  const res = await ctlCall("job_allocate", () => rc.ctl.submit({ spec, testOnly: false, hetComponents: [] }));
  return { job_id: res.jobId, job_submit_user_msg: "" };
}

async function updateJob(rc: RequestContext) {
  const jobId = rc.params.job_id ?? "";
  parseJobId(jobId);
  const { fields, action } = updateFieldsFromDesc(rc.body as JobDesc);
  const results: { job_id: number; step_id: string; error_code: number; error: string; why: string }[] = [];
  const run = async (act: string, f: Record<string, string>) => {
    const res = await ctlCall("update_job", () => rc.ctl.updateJob({ jobIds: [jobId], action: act, fields: f }));
    for (const r of res.results) {
      results.push({ job_id: Number(r.jobId.split("_")[0]), step_id: "", error_code: r.errorCode, error: r.error, why: r.error === "" ? "Job updated" : r.error });
    }
  };
  if (Object.keys(fields).length > 0) await run("update", fields);
  if (action !== undefined) await run(action, {});
  const failed = results.find((r) => r.error_code !== 0);
  if (failed !== undefined) throw new RestError(failed.error_code === 2017 ? "InvalidJobId" : failed.error_code === 2002 ? "AccessDenied" : "Rejected", failed.error, "update_job", failed.error, failed.error_code);
  return { results, job_id: jobId, step_id: "", job_submit_user_msg: "" };
}

async function deleteJob(rc: RequestContext) {
  const jobId = rc.params.job_id ?? "";
  parseJobId(jobId);
  // slurmrestd sends SIGKILL when no signal is named, which cancels the job (scancel without -s).
  const asked = signalNumber(rc.query.signal);
  const signal = asked === 9 ? 0 : asked;
  const flags = (rc.query.flags ?? "").toUpperCase().split(",");
  const res = await ctlCall("delete_job", () =>
    rc.ctl.cancel({ filter: { jobIds: [jobId], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal, batchOnly: flags.includes("BATCH_JOB"), full: flags.includes("FULL_JOB") }),
  );
  const status = res.results.map((r) => ({
    error: { string: r.error, code: r.errorCode, message: r.error === "" ? "" : r.error },
    step_id: "", job_id: value(Number(r.jobId.split("_")[0])), federation: { sibling: "" },
  }));
  const failed = res.results.find((r) => r.errorCode !== 0);
  if (failed !== undefined) throw new RestError(failed.errorCode === 2017 ? "InvalidJobId" : failed.errorCode === 2002 ? "AccessDenied" : "Rejected", failed.error, "delete_job", failed.error, failed.errorCode);
  return { status };
}

async function nodes(rc: RequestContext, name?: string) {
  // GET /node/{name}: the controller sends that node only (an older one all of them: filtered here either way)
  const res = await ctlCall("get_nodes", () => rc.ctl.listNodes(name === undefined ? {} : { names: [name] }));
  const list = name === undefined ? res.nodes : res.nodes.filter((n) => n.name === name);
  if (name !== undefined && list.length === 0) throw new RestError("InvalidNodeName", `Unable to query node ${name}`, "get_node", "Invalid node name specified");
  return { nodes: list.map((n) => nodeValue(n, rc.host.cluster)), last_update: lastUpdate(rc) };
}

/** GET /licenses: slurm.conf Licenses= with their use now (local licenses: Remote false, no LastConsumed). */
async function licenses(rc: RequestContext) {
  const res = await ctlCall("get_licenses", () => rc.ctl.listNodes({ withoutNodes: true }));
  const rows = (res.licenses ?? []).map((l) => ({
    LicenseName: l.name, Total: l.total, Used: l.used, Free: Math.max(0, l.total - l.used - l.reserved), Remote: false,
    Reserved: l.reserved, LastConsumed: 0, LastDeficit: 0, LastUpdate: Math.floor(rc.nowSec),
  }));
  return { licenses: rows, last_update: lastUpdate(rc) };
}

const NODE_STATE_ACTIONS = ["DRAIN", "RESUME", "DOWN", "IDLE", "UNDRAIN"];

async function updateNode(rc: RequestContext) {
  const body = rc.body as Infer<typeof UpdateNodeMsg>;
  const name = rc.params.node_name ?? (body.name ?? []).join(",");
  if (name === "") throw new RestError("InvalidQuery", "No node names given (name)", "update_nodes");
  const state = body.state?.find((s) => NODE_STATE_ACTIONS.includes(s));
  const unsupported = (["comment", "extra", "gres", "weight"] as const).find((k) => body[k] !== undefined);
  if (unsupported !== undefined) throw new RestError("InvalidQuery", `Spur cannot change a node's ${unsupported} at run time (set it in spur.conf)`, "update_node");
  if (state === undefined && (body.state ?? []).length > 0) throw new RestError("InvalidQuery", `Spur can set a node's state to one of ${NODE_STATE_ACTIONS.join(", ")}`, "update_node");
  if (state === undefined && body.features === undefined) throw new RestError("InvalidQuery", "Nothing to change: give state (with reason) or features", "update_node");
  if ((state === "DRAIN" || state === "DOWN") && !body.reason) throw new RestError("InvalidQuery", "You must specify a reason when DOWNING or DRAINING a node", "update_node");
  const features = body.features === undefined ? {} : { features: body.features.join(",") };
  await ctlCall("update_node", () => rc.ctl.updateNode({ nodes: name, state: state ?? "", reason: body.reason ?? "", ...features }));
  return {};
}

async function partitions(rc: RequestContext, name?: string) {
  const res = await ctlCall("get_partitions", () => rc.ctl.listNodes({ withoutNodes: true }));
  const list = name === undefined ? res.partitions : res.partitions.filter((p) => p.name === name);
  if (name !== undefined && list.length === 0) throw new RestError("InvalidPartition", `Unable to find partition ${name}`, "get_partition", "Invalid partition name specified");
  return { partitions: list.map((p) => partitionValue(p, rc.host.cluster)), last_update: lastUpdate(rc) };
}

async function ping(rc: RequestContext) {
  const t0 = performance.now();
  const p = await ctlCall("ping", () => rc.ctl.ping());
  const latency = Math.round((performance.now() - t0) * 1000);
  return { pings: [{ hostname: p.controller, pinged: "UP", responding: true, latency, mode: p.primary ? "primary" : "backup", primary: p.primary, status: "UP" }] };
}

async function diag(rc: RequestContext) {
  const res = await ctlCall("diag", () => rc.ctl.listJobs({ includeFinished: true }));
  const count = (pred: (j: Job) => boolean) => res.jobs.filter(pred).length;
  return {
    statistics: {
      parts_packed: 1, req_time: value(Math.floor(rc.nowSec)), req_time_start: value(0), server_thread_count: 1,
      agent_queue_size: 0, agent_count: 0, agent_thread_count: 0, dbd_agent_queue_size: 0,
      jobs_submitted: res.jobs.length, jobs_started: count((j) => j.startTime > 0), jobs_completed: count((j) => j.state === "COMPLETED"),
      jobs_canceled: count((j) => j.state === "CANCELLED"), jobs_failed: count((j) => j.state === "FAILED"),
      jobs_pending: count((j) => j.state === "PENDING"), jobs_running: count((j) => j.state === "RUNNING"),
      job_states_ts: value(Math.floor(rc.nowSec)), schedule_cycle_last: 0, schedule_cycle_total: 0, bf_active: false,
    },
  };
}

/** The fair-share tree from the controller (sshare's rows); a controller without it: an empty tree. */
async function shares(rc: RequestContext) {
  const get = rc.ctl.getShares?.bind(rc.ctl);
  if (get === undefined) return { shares: { shares: [], total_shares: 0 } };
  return sharesValue(await ctlCall("get_shares", () => get({})));
}

export const SLURM_ROUTES: readonly Route[] = [
  { method: "get", api: "slurm", path: "ping/", since: 42, operation: "get_ping", summary: "ping test", response: PingResp, handle: ping },
  { method: "get", api: "slurm", path: "diag/", since: 42, operation: "get_diag", summary: "get diagnostics", response: DiagResp, handle: diag },
  { method: "get", api: "slurm", path: "jobs/", since: 42, operation: "get_jobs", summary: "get list of jobs", query: ["update_time", "flags"], response: JobInfoResp, handle: getJobs },
  { method: "get", api: "slurm", path: "job/{job_id}", since: 42, operation: "get_job", summary: "get job info", query: ["update_time", "flags"], response: JobInfoResp, handle: async (rc) => ({ jobs: (await jobsNamed(rc, rc.params.job_id ?? "")).map((j) => jobInfo(j, rc.host.cluster)), last_backfill: value(0), last_update: lastUpdate(rc) }) },
  { method: "post", api: "slurm", path: "job/{job_id}", since: 42, operation: "post_job", summary: "update job", body: JobDescMsg, response: JobPostResp, handle: updateJob },
  { method: "delete", api: "slurm", path: "job/{job_id}", since: 42, operation: "delete_job", summary: "cancel or signal job", query: ["signal", "flags"], response: KillJobResp, handle: deleteJob },
  { method: "post", api: "slurm", path: "job/submit", since: 42, operation: "post_job_submit", summary: "submit new job", body: JobSubmitReq, response: JobSubmitResp, handle: submit },
  { method: "post", api: "slurm", path: "job/allocate", since: 42, operation: "post_job_allocate", summary: "submit new job allocation without any steps that must be signaled to stop", body: JobAllocReq, response: JobAllocResp, handle: allocate },
  { method: "get", api: "slurm", path: "nodes/", since: 42, operation: "get_nodes", summary: "get node(s) info", query: ["update_time", "flags"], response: NodesResp, handle: (rc) => nodes(rc) },
  { method: "post", api: "slurm", path: "nodes/", since: 42, operation: "post_nodes", summary: "batch update node(s)", body: UpdateNodeMsg, response: OpenapiResp, handle: updateNode },
  { method: "get", api: "slurm", path: "node/{node_name}", since: 42, operation: "get_node", summary: "get node info", response: NodesResp, handle: (rc) => nodes(rc, rc.params.node_name) },
  { method: "post", api: "slurm", path: "node/{node_name}", since: 42, operation: "post_node", summary: "update node properties", body: UpdateNodeMsg, response: OpenapiResp, handle: updateNode },
  { method: "get", api: "slurm", path: "partitions/", since: 42, operation: "get_partitions", summary: "get all partition info", query: ["update_time", "flags"], response: PartitionsResp, handle: (rc) => partitions(rc) },
  { method: "get", api: "slurm", path: "partition/{partition_name}", since: 42, operation: "get_partition", summary: "get partition info", response: PartitionsResp, handle: (rc) => partitions(rc, rc.params.partition_name) },
  { method: "get", api: "slurm", path: "licenses/", since: 42, operation: "get_licenses", summary: "get all Slurm tracked license info", response: LicensesResp, handle: licenses },
  { method: "get", api: "slurm", path: "shares", since: 42, operation: "get_shares", summary: "get fairshare info", response: SharesResp, handle: shares },
];
