/**
 * @module tests/unit/rest/fixture
 * An in-process spurrestd app over a fake controller (jobs in an array, the
 * CLI's ownership rule: users act on their own jobs, root/operators on all),
 * with a real HS256 key so tokens are signed and checked for real.
 */
import { RpcError, type ControllerPort } from "../../../src/cli/io.ts";
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
  specs: Plain<JobSpec>[];
  token(user: string, lifespanSec?: number, secret?: Uint8Array): Promise<string>;
  request(method: string, path: string, opts?: { user?: string; token?: string; body?: unknown; raw?: string; headers?: Record<string, string> }): Promise<{ status: number; json: Record<string, unknown> }>;
}

const SECRET = new TextEncoder().encode("unit-test-secret-0123456789abcdef");

function fakeController(caller: Caller, jobs: Plain<JobInfo>[], specs: Plain<JobSpec>[]): ControllerPort {
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
      return { jobs: ids.length === 0 ? jobs : jobs.filter((j) => ids.includes(j.jobId)), now: NOW_SEC, clusterName: "spur" };
    },
    async listNodes() {
      return { nodes: [], partitions: [], now: NOW_SEC };
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
  };
}

export async function createFixture(opts: { perSec?: number; bodyBytesMax?: number } = {}): Promise<Fixture> {
  const key = await importKey(SECRET);
  const jobs: Plain<JobInfo>[] = [];
  const specs: Plain<JobSpec>[] = [];
  const app = createRestApp({
    auth: createAuthenticator({
      verify: (t, now) => verifyToken([key], t, now),
      mint: (user, life, now) => signToken(key, { iat: now, exp: now + life, sun: user }),
      isPrivileged: (u) => u === "root" || OPERATORS.includes(u),
      lookupUser: (n) => USERS[n],
    }),
    controllerFor: (caller) => fakeController(caller, jobs, specs),
    host: { cluster: "spur", hostname: "h", homeOf: (u) => `/home/${u}`, operators: () => OPERATORS, controller: { host: "127.0.0.1", port: 6817 } },
    nowSec: () => NOW_SEC,
    rateLimit: { perSec: opts.perSec ?? 0, burst: opts.perSec ?? 0 },
    ...(opts.bodyBytesMax === undefined ? {} : { bodyBytesMax: opts.bodyBytesMax }),
  });
  const fx: Fixture = {
    app, jobs, specs,
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
