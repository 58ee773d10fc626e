/**
 * @module net/ctl-client/controller-port
 * The ControllerPort every client of spurctld uses (the CLIs, srun/salloc, `spur`, and
 * spurrestd on behalf of its callers): controller calls in Connect's JSON form over plain
 * fetch (no protobuf runtime or Connect client is loaded: measured 25-30 ms of start-up
 * saved, see shared/MEASURED.md), on one controller or a replicated set (failover.ts).
 * It reads no configuration and writes no output itself: the caller names the controllers
 * and, for replicated ones, where the no-leader diagnosis goes (Endpoints.warn).
 * Every user command loads this, so it stays off node:fs, node:os and Node's streams
 * (docs/startup.md).
 */
import { RpcError, type ControllerPort } from "../ctl-port.ts";
import { errnoOf } from "./rpc-errno.ts";
import { callReplicated, pingEach, type Endpoints } from "./failover.ts";
import { fetchTls } from "../client-tls.ts";
import { fetchWithBackoff, type Send } from "./rate-backoff.ts";
import { postHttp1 } from "./http1.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";
import type { Plain } from "../../lib/plain.ts";
import type { ListJobsResponse, TriggerInfo } from "../gen/spur/v1/controller_pb.ts";

/**
 * How a call goes out. "fetch" (default): Bun's fetch, which keeps connections alive across calls
 * (daemons, spurrestd). "one-shot": a fresh CLI process, which makes a call or two: a plain-http
 * controller gets each as one HTTP/1.1 POST on a socket of its own (http1.ts: no fetch client
 * thread to start); https still goes through fetch (the cluster's CA).
 */
export type CallStyle = "fetch" | "one-shot";

const sendFor = (base: string, style: CallStyle): Send =>
  style === "one-shot" && base.startsWith("http:") ? (url, init) => postHttp1(url, init.headers as Record<string, string>, init.body as string) : fetch;

/** One Connect-JSON call to one controller; `headers` add to the content type (spurrestd's user token). */
export async function callOne<T>(base: string, method: string, body: unknown, headers: Record<string, string> = {}, style: CallStyle = "fetch"): Promise<T> {
  let res: Response;
  try {
    res = await fetchWithBackoff(`${base}/spur.v1.Controller/${method}`, {
      ...fetchTls(base),
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body ?? {}),
    }, sendFor(base, style));
  } catch (e) {
    if (e instanceof RpcError) throw e; // no credential (rate-backoff.ts)
    throw new RpcError("unavailable", "Unable to contact slurm controller (connect failure)");
  }
  return connectAnswer<T>(res, "controller");
}

/** A Connect-JSON answer's body, or its error (code and message) as an RpcError; `who` names the server in a bare HTTP failure. */
export async function connectAnswer<T>(res: Response, who: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) {
    let parsed: { code?: string; message?: string } = {};
    try {
      parsed = JSON.parse(text);
    } catch {
      /* not a Connect error body */
    }
    throw new RpcError(parsed.code ?? "unknown", parsed.message ?? `${who} answered HTTP ${res.status}`, errnoOf(res));
  }
  return JSON.parse(text) as T;
}

/**
 * A port on one controller URL, or on replicated controllers (a list: see failover.ts).
 * `headers` go with every call (spurrestd's user token); `shared` keeps the leader found
 * across ports (spurrestd makes one port per request); `style` how a single controller is called.
 */
export function controllerPort(where: string | string[], headers: Record<string, string> = {}, shared?: Endpoints, style: CallStyle = "fetch"): ControllerPort {
  const urls = typeof where === "string" ? [where] : where;
  const ep: Endpoints = shared ?? { urls };
  const base = urls[0] ?? "http://127.0.0.1:6817";
  const call = <T>(_base: string, method: string, body: unknown): Promise<T> =>
    urls.length > 1 ? callReplicated<T>(ep, method, body, headers) : callOne<T>(base, method, body, headers, style);
  return {
    submit: (req) => call(base, "Submit", req),
    listJobs: async (req) => {
      // The controller leaves default-valued fields out (proto3 JSON); restore them. An answer
      // with squeueText or listUnchanged carries no jobs.
      const res = await call<Partial<Plain<ListJobsResponse>>>(base, "ListJobs", req);
      const defaults = emptyJobInfo();
      return { now: 0, clusterName: "", ...res, jobs: (res.jobs ?? []).map((j) => withDefaults(j, defaults)) };
    },
    listNodes: (req = {}) => call(base, "ListNodes", req),
    cancel: (req) => call(base, "Cancel", req),
    updateJob: (req) => call(base, "UpdateJob", req),
    updateNode: async (req) => {
      await call(base, "UpdateNode", req);
    },
    ping: () => call(base, "Ping", {}),
    getConfig: () => call(base, "GetConfig", {}),
    waitJob: (req) => call(base, "WaitJob", req),
    issueToken: (req) => call(base, "IssueToken", req),
    ...(urls.length > 1 ? { pingAll: () => pingEach(urls) } : {}),
    getPriorityFactors: (req) => call(base, "GetPriorityFactors", req),
    getDiag: (req) => call(base, "GetDiag", req),
    acctModify: (req) => call(base, "AcctModify", req),
    acctList: (req) => call(base, "AcctList", req),
    getShares: (req) => call(base, "GetShares", req),
    reservation: (req) => call(base, "Reservation", req),
    partition: (req) => call(base, "Partition", req),
    reconfigure: (req) => call(base, "Reconfigure", req),
    listReservations: (req) => call(base, "ListReservations", req),
    getJobScript: async (req) => {
      // proto3 JSON leaves an empty script out
      const res = await call<{ script?: string }>(base, "GetJobScript", req);
      return { script: res.script ?? "" };
    },
    setTrigger: (req) => call(base, "SetTrigger", req),
    clearTrigger: (req) => call(base, "ClearTrigger", req),
    listTriggers: async (req) => {
      // proto3 JSON leaves out defaults (offset 0, perm false, an empty list): restore them
      const res = await call<{ triggers?: Partial<Plain<TriggerInfo>>[] }>(base, "ListTriggers", req);
      const blank: Plain<TriggerInfo> = { triggerId: 0, resType: "", resId: "", types: [], offset: 0, user: "", uid: 0, perm: false, program: "" };
      return { triggers: (res.triggers ?? []).map((t) => ({ ...blank, ...t })) };
    },
  };
}

