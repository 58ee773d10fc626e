/**
 * @module rest/routes-slurmdb
 * The /slurmdb/<version>/ operations Spur can answer from the controller's own
 * records (it has no separate accounting daemon): jobs and one job (sacct's
 * data and filters), and accounts, users, associations, QOS, clusters, TRES,
 * config and diag. Accounts, users, QOS and associations come from the
 * controller's accounting records (sacctmgr's) when it has them, else they are
 * derived from job records; writes are in routes-slurmdb-write.ts.
 */
import type { Route, RequestContext } from "./route.ts";
import { RestError } from "./errors.ts";
import { ctlCall } from "./ctl-errors.ts";
import { value } from "./schemas-common.ts";
import { AccountsResp, AssocsResp, ClustersResp, ConfigResp, DbDiagResp, DbJobsResp, QosResp, TresResp, UsersResp } from "./schemas-slurmdb.ts";
import { dbJobValue, tresListValue } from "./serialize-slurmdb.ts";
import type { Job } from "../../compat/format/job-values.ts";
import { jobStateFromName } from "../../compat/states.ts";
import { accountsFromRecords, assocsFromRecords, qosFromRecords, usersFromRecords } from "./routes-slurmdb-write.ts";

const csv = (text: string | undefined): string[] | undefined => (text === undefined || text === "" ? undefined : text.split(",").filter(Boolean));
const num = (text: string | undefined): number => (text !== undefined && /^\d{1,12}$/.test(text) ? Number(text) : 0);

async function allJobs(rc: RequestContext, start = 0, end = 0): Promise<Job[]> {
  const res = await ctlCall("slurmdb_jobs", () => rc.ctl.listJobs({ includeFinished: true, includeSteps: true, accounting: true, windowStart: start, windowEnd: end }));
  return res.jobs;
}

function matches(job: Job, q: Record<string, string>): boolean {
  const has = (list: string[] | undefined, v: string) => list === undefined || list.includes(v);
  const states = csv(q.state)?.map((s) => jobStateFromName(s) ?? s.toUpperCase());
  const ids = csv(q.job)?.map(Number);
  return (
    has(csv(q.users), job.user) && has(csv(q.account), job.account) && has(csv(q.partition), job.partition) &&
    has(csv(q.job_name), job.name) && has(csv(q.qos), job.qos) && has(states, job.state.toUpperCase()) &&
    (ids === undefined || ids.includes(job.jobId) || ids.includes(job.arrayJobId))
  );
}

async function dbJobs(rc: RequestContext) {
  const jobs = (await allJobs(rc, num(rc.query.start_time), num(rc.query.end_time))).filter((j) => matches(j, rc.query));
  return { jobs: jobs.map((j) => dbJobValue(j, rc.host.cluster, rc.nowSec)) };
}

async function dbJob(rc: RequestContext) {
  const text = rc.params.job_id ?? "";
  if (!/^\d{1,10}$/.test(text)) throw new RestError("InvalidJobId", `Unable to parse job id "${text.slice(0, 64)}"`, "slurmdb_get_job", "Invalid job id specified");
  const id = Number(text);
  const jobs = (await allJobs(rc)).filter((j) => j.jobId === id || j.arrayJobId === id);
  if (jobs.length === 0) throw new RestError("InvalidJobId", `Unable to query job ${text}`, "slurmdb_get_job", "Invalid job id specified");
  return { jobs: jobs.map((j) => dbJobValue(j, rc.host.cluster, rc.nowSec)) };
}

const distinct = (values: string[]): string[] => [...new Set(values.filter(Boolean))].sort();

async function accounts(rc: RequestContext) {
  const recorded = await accountsFromRecords(rc);
  if (recorded !== undefined) return recorded as { accounts: { description: string; name: string; organization: string; flags: string[] }[] };
  const names = distinct((await allJobs(rc)).map((j) => j.account));
  return { accounts: names.map((name) => ({ description: name, name, organization: name, flags: [] })) };
}

async function users(rc: RequestContext) {
  const recorded = await usersFromRecords(rc);
  if (recorded !== undefined) return recorded as Awaited<ReturnType<typeof jobUsers>>;
  return jobUsers(rc);
}

async function jobUsers(rc: RequestContext) {
  const jobs = await allJobs(rc);
  const names = distinct([...jobs.map((j) => j.user), "root", ...rc.host.operators()]);
  return {
    users: names.map((name) => ({
      administrator_level: [name === "root" ? "Administrator" : rc.host.operators().includes(name) ? "Operator" : "None"] as ("Administrator" | "Operator" | "None")[],
      default: { account: jobs.find((j) => j.user === name)?.account ?? "", wckey: "" }, flags: [], name,
    })),
  };
}

async function associations(rc: RequestContext) {
  const recorded = await assocsFromRecords(rc);
  if (recorded !== undefined) return recorded;
  const pairs = distinct((await allJobs(rc)).map((j) => `${j.account}\u0000${j.user}`));
  return { associations: pairs.map((p, i) => { const [account = "", user = ""] = p.split("\u0000"); return { account, cluster: rc.host.cluster, partition: "", user, id: i + 1, is_default: true, flags: [] }; }) };
}

const NORMAL_QOS = { description: "Normal QOS default", flags: [], id: 1, name: "normal", priority: value(0), usage_factor: 1 };
async function qosList(rc: RequestContext): Promise<{ qos: { name: string }[] }> {
  return ((await qosFromRecords(rc)) as { qos: { name: string }[] } | undefined) ?? { qos: [NORMAL_QOS] };
}

const BASE_TRES = "cpu=0,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0";

async function clusters(rc: RequestContext) {
  const nodes = await ctlCall("slurmdb_clusters", () => rc.ctl.listNodes());
  const names = nodes.nodes.map((n) => n.name).join(",");
  return { clusters: [{ controller: { host: rc.host.controller.host, port: rc.host.controller.port }, flags: [], name: rc.host.cluster, nodes: names, rpc_version: 0, tres: [] }] };
}

/** One item of a list handler's answer, by name; 404 in slurmdbd's wording when absent. */
function one(key: string, param: string, what: string, list: (rc: RequestContext) => Promise<Record<string, { name: string }[]>>) {
  return async (rc: RequestContext) => {
    const name = rc.params[param] ?? "";
    const items = (await list(rc))[key]?.filter((i) => i.name === name) ?? [];
    if (items.length === 0) throw new RestError("NotFound", `No ${what} named ${name.slice(0, 64)}`, `slurmdb_get_${what}`, `Nothing found`, 9003);
    return { [key]: items };
  };
}

export const SLURMDB_ROUTES: readonly Route[] = [
  { method: "get", api: "slurmdb", path: "jobs/", since: 42, operation: "get_jobs", summary: "Get job list", query: ["users", "account", "start_time", "end_time", "state", "partition", "job_name", "qos", "job"], response: DbJobsResp, handle: dbJobs },
  { method: "get", api: "slurmdb", path: "job/{job_id}", since: 42, operation: "get_job", summary: "Get job info", response: DbJobsResp, handle: dbJob },
  { method: "get", api: "slurmdb", path: "accounts/", since: 42, operation: "get_accounts", summary: "Get account list", response: AccountsResp, handle: accounts },
  { method: "get", api: "slurmdb", path: "account/{account_name}", since: 42, operation: "get_account", summary: "Get account info", response: AccountsResp, handle: one("accounts", "account_name", "account", accounts) },
  { method: "get", api: "slurmdb", path: "user/{name}", since: 42, operation: "get_user", summary: "Get user info", response: UsersResp, handle: one("users", "name", "user", users) },
  { method: "get", api: "slurmdb", path: "qos/{qos}", since: 42, operation: "get_single_qos", summary: "Get QOS info", response: QosResp, handle: one("qos", "qos", "qos", qosList) },
  { method: "get", api: "slurmdb", path: "cluster/{cluster_name}", since: 42, operation: "get_cluster", summary: "Get cluster info", response: ClustersResp, handle: one("clusters", "cluster_name", "cluster", clusters) },
  { method: "get", api: "slurmdb", path: "users/", since: 42, operation: "get_users", summary: "Get user list", response: UsersResp, handle: users },
  { method: "get", api: "slurmdb", path: "associations/", since: 42, operation: "get_associations", summary: "Get association list", response: AssocsResp, handle: associations },
  { method: "get", api: "slurmdb", path: "qos/", since: 42, operation: "get_qos", summary: "Get QOS list", response: QosResp, handle: qosList },
  { method: "get", api: "slurmdb", path: "clusters/", since: 42, operation: "get_clusters", summary: "Get cluster list", response: ClustersResp, handle: clusters },
  { method: "get", api: "slurmdb", path: "tres/", since: 42, operation: "get_tres", summary: "Get TRES info", response: TresResp, handle: async () => ({ TRES: tresListValue(BASE_TRES) }) },
  {
    method: "get", api: "slurmdb", path: "config", since: 42, operation: "get_config", summary: "Dump all configuration information", response: ConfigResp,
    handle: async (rc) => ({ ...(await clusters(rc)), tres: tresListValue(BASE_TRES), ...(await accounts(rc)), ...(await users(rc)), ...(await qosList(rc)), ...(await associations(rc)) }),
  },
  {
    method: "get", api: "slurmdb", path: "diag/", since: 42, operation: "get_diag", summary: "Get slurmdb diagnostics", response: DbDiagResp,
    handle: async (rc) => ({ statistics: { time_start: Math.floor(rc.nowSec), rollups: {}, RPCs: [], users: [] } }),
  },
];
