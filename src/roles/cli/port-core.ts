/**
 * @module roles/cli/port-core
 * The real CliPort: controller calls in Connect's JSON form over plain fetch
 * (no protobuf runtime or Connect client is loaded: measured 25-30 ms of
 * start-up saved, see shared/MEASURED.md), the invoking user, env and clock.
 * Every user command loads this, so it stays off node:fs, node:os and Node's
 * streams (docs/startup.md): files are read by client-env.ts, output goes through
 * stdio.ts. port.ts adds what srun/salloc/spur need on top (sync conf lookups).
 */
import { RpcError, type CliPort, type ControllerPort } from "../../net/ctl-port.ts";
import { errnoOf } from "./rpc-errno.ts";
import { callReplicated, pingEach, type Endpoints } from "./failover.ts";
import { fetchTls, rpcUrl } from "../../net/client-tls.ts";
import { fetchWithBackoff } from "./rate-backoff.ts";
import { unknownUser, userNamed } from "../../net/users-parse.ts";
import { loadClientEnv } from "./client-env.ts";
import { writeOutput } from "./stdio.ts";
import { withDefaults } from "../../lib/sparse.ts";
import { emptyJobInfo } from "../../sched/model/records.ts";
import type { Plain } from "../../lib/plain.ts";
import type { ListJobsResponse, TriggerInfo } from "../../net/gen/spur/v1/controller_pb.ts";

/** One Connect-JSON call to one controller; `headers` add to the content type (spurrestd's user token). */
export async function callOne<T>(base: string, method: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  let res: Response;
  try {
    res = await fetchWithBackoff(`${base}/spur.v1.Controller/${method}`, {
      ...fetchTls(base),
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body ?? {}),
    });
  } catch (e) {
    if (e instanceof RpcError) throw e; // no credential (rate-backoff.ts)
    throw new RpcError("unavailable", "Unable to contact slurm controller (connect failure)");
  }
  return connectAnswer<T>(res, "controller");
}

/** A Connect-JSON answer's body, or its error (code and message) as an RpcError; `who` names the server in a bare HTTP failure. */
async function connectAnswer<T>(res: Response, who: string): Promise<T> {
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
 * across ports (spurrestd makes one port per request).
 */
export function controllerPort(where: string | string[], headers: Record<string, string> = {}, shared?: Endpoints): ControllerPort {
  const urls = typeof where === "string" ? [where] : where;
  const ep: Endpoints = shared ?? { urls };
  const base = urls[0] ?? "http://127.0.0.1:6817";
  const call = <T>(_base: string, method: string, body: unknown): Promise<T> =>
    urls.length > 1 ? callReplicated<T>(ep, method, body, headers) : callOne<T>(base, method, body, headers);
  return {
    submit: (req) => call(base, "Submit", req),
    listJobs: async (req) => {
      // The controller leaves default-valued fields out (proto3 JSON); restore them.
      const res = await call<Plain<ListJobsResponse>>(base, "ListJobs", req);
      const defaults = emptyJobInfo();
      return { ...res, jobs: res.jobs.map((j) => withDefaults(j, defaults)) };
    },
    listNodes: () => call(base, "ListNodes", {}),
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

export async function realPort(): Promise<CliPort> {
  const env = await loadClientEnv();
  const uid = process.getuid?.() ?? 0;
  const user = env.users.get(uid) ?? unknownUser(uid);
  const byUid = (n: number) => env.users.get(n) ?? unknownUser(n);
  return {
    ctl: controllerPort(env.urls),
    invoker: { uid, gid: process.getgid?.() ?? user.gid, user: user.name, group: user.group, cwd: process.cwd(), hostname: env.hostname, umask: process.umask() },
    env: process.env,
    now: () => Date.now() / 1000,
    readFile: async (path) => {
      try {
        return await Bun.file(path).text();
      } catch {
        return undefined;
      }
    },
    readStdin: async () => (process.stdin.isTTY ? "" : await Bun.stdin.text()),
    write: (stream, text) => {
      void writeOutput(stream, text);
    },
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
    readLine: (timeoutMs) => readLine(timeoutMs),
    userKnown: (u) => (/^\d+$/.test(u) ? byUid(Number(u)).name !== u : userNamed(env.users, u) !== undefined),
    agentListPids: (addr, port, req) => callAgent(rpcUrl(addr, port), "ListPids", req),
  };
}

/** One call to a node agent in Connect's JSON form (scontrol listpids); its error message as Slurm's scontrol would say it. */
async function callAgent<T>(base: string, method: string, body: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${base}/spur.v1.Agent/${method}`, { ...fetchTls(base), method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
  } catch {
    throw new RpcError("unavailable", "Unable to connect to slurmstepd");
  }
  return connectAnswer<T>(res, "node agent");
}

/** Read one line from stdin (a terminal or a pipe); undefined on timeout, what there was at end of input. */
function readLine(timeoutMs: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    let buf = "";
    const finish = (line: string | undefined): void => {
      clearTimeout(timer);
      process.stdin.off("data", onData);
      process.stdin.off("end", onEnd);
      process.stdin.pause();
      resolve(line);
    };
    const onData = (chunk: Buffer | string): void => {
      buf += chunk.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) finish(buf.slice(0, nl));
    };
    const onEnd = (): void => finish(buf);
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    process.stdin.on("data", onData);
    process.stdin.on("end", onEnd);
    process.stdin.resume();
  });
}
