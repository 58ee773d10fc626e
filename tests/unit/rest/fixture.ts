/**
 * @module tests/unit/rest/fixture
 * An in-process spurrestd app over a fake controller (jobs in an array, the
 * CLI's ownership rule: users act on their own jobs, root/operators on all),
 * with a real HS256 key so tokens are signed and checked for real.
 */
import { RpcError, type ControllerPort } from "../../../src/net/ctl-port.ts";
import { createRestApp } from "../../../src/net/rest/app.ts";
import { createAuthenticator, type Caller } from "../../../src/net/rest/auth.ts";
import { importKey, signToken, verifyToken } from "../../../src/net/rest/jwt.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo, JobSpec } from "../../../src/net/gen/spur/v1/types_pb.ts";

export const USERS: Record<string, { uid: number; group: string }> = {
  root: { uid: 0, group: "root" }, alice: { uid: 1001, group: "alice" }, bob: { uid: 1002, group: "bob" }, op: { uid: 1003, group: "op" },
};
export const OPERATORS = ["op"];
export const NOW_SEC = 1_800_000_000;

export interface Fixture {
  app: ReturnType<typeof createRestApp>;
  jobs: Plain<JobInfo>[];
  admin: FakeAdmin;
  specs: Plain<JobSpec>[];
  token(user: string, lifespanSec?: number, secret?: Uint8Array): Promise<string>;
  request(method: string, path: string, opts?: { user?: string; token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; json: Record<string, unknown> }>;
}

const SECRET = new TextEncoder().encode("unit-test-secret-0123456789abcdef");

/** Reservations and accounting records the fake controller keeps (by name). */
export interface FakeAdmin {
  resv: Map<string, Record<string, string>>;
  acct: { action: string; entity: string; names: string[]; where: Record<string, string>; set: Record<string, string> }[];
  accounts: Map<string, Record<string, string>>;
  users: Map<string, Record<string, string>>;
  qos: Map<string, Record<string, string>>;
  /** Partitions by name (DELETE partition/), reconfigure calls and what a reconfigure answers as kept. */
  partitions: Set<string>;
  reconfigured: number;
  reconfigureRefuses: string[];
}

/** Accounting as a fresh controller has it: root account and user, the normal QOS. */
export function freshAdmin(): FakeAdmin {
  return {
    resv: new Map(), acct: [], partitions: new Set(["debug", "gpu"]), reconfigured: 0, reconfigureRefuses: [],
    accounts: new Map([["root", { account: "root", description: "default root account", organization: "root" }]]),
    users: new Map([["root", { user: "root", defaultaccount: "root", adminlevel: "Administrator" }]]),
    qos: new Map([["normal", { name: "normal", id: "1", description: "Normal QOS default", priority: "0", usagefactor: "1.000000" }]]),
  };
}

function fakeController(caller: Caller, jobs: Plain<JobInfo>[], specs: Plain<JobSpec>[], admin: FakeAdmin = freshAdmin()): ControllerPort {
  const privileged = caller.uid === 0 || OPERATORS.includes(caller.user);
  const may = (j: Plain<JobInfo>) => caller.uid === 0 || OPERATORS.includes(caller.user) || j.uid === caller.uid;
  const results = (ids: string[], act: (j: Plain<JobInfo>) => void) =>
    ids.map((id) => {
      const j = jobs.find((x) => String(x.jobId) === id);
      if (j === undefined) return { jobId: id, error: "Invalid job id specified", errorCode: 2017 };
      if (!may(j)) return { jobId: id, error: "Access/permission denied", errorCode: 2002 };
      act(j);
      return { jobId: id, error: "", errorCode: 0 };
    });
  return {
    async submit(req) {
      if (req.spec === undefined) throw new RpcError("invalid_argument", "missing spec");
      if (req.spec.partition === "nope") throw new RpcError("invalid_argument", "Invalid partition name specified");
      specs.push(req.spec);
      const jobId = 100 + jobs.length;
      jobs.push({ ...emptyJobInfo(), jobId, name: req.spec.name, uid: caller.uid, user: caller.user, partition: req.spec.partition || "debug", submitTime: NOW_SEC, workDir: req.spec.workDir, timeLimitMin: req.spec.timeLimitMin });
      return { jobId, warnings: [], startEstimate: 0, nodelist: "", cpus: 1, partition: "debug" };
    },
    async listJobs(req) {
      const ids = req.jobIds ?? [];
      const listed = ids.length === 0 ? jobs : jobs.filter((j) => ids.includes(j.jobId));
      // Named by its content, as the controller names a cached list (ctld/list-jobs-fast.ts): GET /jobs keeps its bytes under it.
      const listVersion = `fx:${JSON.stringify(listed)}`;
      if (req.knownListVersion === listVersion) return { jobs: [], now: NOW_SEC, clusterName: "spur", listVersion, listUnchanged: true };
      return { jobs: listed, now: NOW_SEC, clusterName: "spur", listVersion };
    },
    async listNodes() {
      return { nodes: [], partitions: [], now: NOW_SEC, licenses: [], downSpans: [] };
    },
    async cancel(req) {
      return { results: results(req.filter?.jobIds ?? [], (j) => { j.state = "CANCELLED"; }) };
    },
    async updateJob(req) {
      return { results: results(req.jobIds, (j) => { if (req.fields.TimeLimit !== undefined) j.timeLimitMin = Number(req.fields.TimeLimit); if (req.fields.JobName !== undefined) j.name = req.fields.JobName; }) };
    },
    async updateNode() {},
    async ping() {
      return { controller: "ctl", primary: true, now: NOW_SEC, version: "0", pid: 1, started: NOW_SEC };
    },
    async getConfig() {
      return { entries: {} };
    },
    async waitJob() {
      throw new RpcError("unimplemented", "no");
    },
    async getJobScript(req) {
      const j = jobs.find((x) => x.jobId === req.jobId);
      if (j === undefined) throw new RpcError("not_found", "Invalid job id specified");
      if (!may(j)) throw new RpcError("permission_denied", "Access/permission denied");
      return { script: `#!/bin/sh\n# script of job ${j.jobId}\n` };
    },
    async partition(req) {
      if (!privileged) throw new RpcError("permission_denied", "Invalid user id");
      if (req.action === "delete" && !admin.partitions.delete(req.name)) throw new RpcError("invalid_argument", "Invalid partition name specified");
      return {};
    },
    async reconfigure() {
      if (!privileged) throw new RpcError("permission_denied", "Invalid user id");
      admin.reconfigured += 1;
      return { refused: admin.reconfigureRefuses };
    },
    async reservation(req) {
      if (!privileged) throw new RpcError("permission_denied", "Access/permission denied");
      if (req.action === "delete") {
        if (!admin.resv.delete(req.name)) throw new RpcError("invalid_argument", "Reservation request failed: Requested reservation is invalid");
        return { name: req.name };
      }
      if (req.action === "update" && !admin.resv.has(req.name)) throw new RpcError("invalid_argument", "Requested reservation is invalid");
      if (req.action === "create" && req.fields.starttime === undefined) throw new RpcError("invalid_argument", "StartTime must be specified. No reservation created.");
      const name = req.name || `resv_${admin.resv.size + 1}`;
      admin.resv.set(name, { ...(admin.resv.get(name) ?? {}), ...req.fields });
      return { name };
    },
    async listReservations() {
      return {
        now: NOW_SEC,
        reservations: [...admin.resv].map(([name, f]) => ({
          name, startTime: Number(f.starttime ?? 0), endTime: Number(f.starttime ?? 0) + 60 * Number(f.duration ?? 60), nodes: f.nodes ?? "", nodeCount: 1, coreCount: 1,
          users: (f.users ?? "").split(",").filter(Boolean), accounts: (f.accounts ?? "").split(",").filter(Boolean), flags: (f.flags ?? "").split(",").filter(Boolean), partition: f.partitionname ?? "", state: "INACTIVE",
        })),
      };
    },
    async acctModify(req) {
      if (!privileged) throw new RpcError("permission_denied", "Access/permission denied");
      admin.acct.push({ action: req.action, entity: req.entity, names: [...req.names], where: { ...req.where }, set: { ...req.set } });
      const table = req.entity === "account" ? admin.accounts : req.entity === "user" ? admin.users : req.entity === "qos" ? admin.qos : undefined;
      if (table !== undefined) {
        for (const n of req.names) {
          if (req.action === "delete") {
            if (!table.delete(n)) throw new RpcError("invalid_argument", " Nothing deleted");
          } else if (req.action === "add" && table.has(n)) throw new RpcError("invalid_argument", " Nothing new added.");
          else if (req.action === "add" && req.entity === "user" && (req.set.account ?? "") === "") throw new RpcError("invalid_argument", " Need name of account to add user to.");
          else {
            const key = req.entity === "qos" ? "name" : req.entity;
            table.set(n, { ...(table.get(n) ?? {}), [key]: n, ...req.set });
          }
        }
      }
      return { text: "", changed: Math.max(1, req.names.length) };
    },
    async acctList(req) {
      const table = req.entity === "account" ? admin.accounts : req.entity === "user" ? admin.users : req.entity === "qos" ? admin.qos : new Map<string, Record<string, string>>();
      const rows = [...table.values()];
      return { rows: rows.map((fields) => ({ fields })), cluster: "spur" };
    },
  };
}

export async function createFixture(opts: { perSec?: number; bodyBytesMax?: number; localPeer?: string } = {}): Promise<Fixture> {
  const key = await importKey(SECRET);
  const jobs: Plain<JobInfo>[] = [];
  const specs: Plain<JobSpec>[] = [];
  const admin = freshAdmin();
  const app = createRestApp({
    auth: createAuthenticator({
      verify: (t, now) => verifyToken([key], t, now),
      mint: (user, life, now) => signToken(key, { iat: now, exp: now + life, sun: user }),
      isPrivileged: (u) => u === "root" || OPERATORS.includes(u),
      lookupUser: (n) => USERS[n],
    }),
    controllerFor: (caller) => fakeController(caller, jobs, specs, admin),
    host: { cluster: "spur", hostname: "h", homeOf: (u) => `/home/${u}`, operators: () => OPERATORS, controller: { host: "127.0.0.1", port: 6817 } },
    nowSec: () => NOW_SEC,
    rateLimit: { perSec: opts.perSec ?? 0, burst: opts.perSec ?? 0 },
    ...(opts.bodyBytesMax === undefined ? {} : { bodyBytesMax: opts.bodyBytesMax }),
    // rest_auth/local: every request as if it came through the Unix socket from this user
    ...(opts.localPeer === undefined ? {} : { localPeer: () => opts.localPeer }),
  });
  const fx: Fixture = {
    app, jobs, specs, admin,
    async token(user, lifespanSec = 600, secret) {
      const k = secret === undefined ? key : await importKey(secret);
      return signToken(k, { iat: NOW_SEC, exp: NOW_SEC + lifespanSec, sun: user });
    },
    async request(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.user !== undefined) headers["x-slurm-user-token"] = o.token ?? (await fx.token(o.user));
      if (o.body !== undefined || o.raw !== undefined) headers["content-type"] = "application/json";
      const init: RequestInit = { method, headers };
      if (o.raw !== undefined) init.body = o.raw;
      else if (o.body !== undefined) init.body = JSON.stringify(o.body);
      const res = await app.request(path, init);
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    },
  };
  return fx;
}
