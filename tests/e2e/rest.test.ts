/**
 * End-to-end: spurrestd started by `spur up`, tokens from `scontrol token`,
 * a typed client submitting, listing, updating and cancelling jobs, and the
 * authorisation matrix (user A, user B, operator, root; valid, expired and
 * forged tokens; impersonation) against the real controller. Needs root (to
 * create the test users and run commands as them), as CI has.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";
import { request as httpRequest } from "node:http";
import { networkInterfaces } from "node:os";
import { gunzipSync } from "node:zlib";
import { startCluster, eventually, ensureUser, isRoot, BIN, type Cluster } from "./cluster.ts";
import { createClient, type SlurmClient } from "./rest-client.ts";
import { importKey, signToken } from "../../src/net/rest/jwt.ts";

const A = "spurresta";
const B = "spurrestb";
const OP = "spurrestop";
const ready = isRoot() && [A, B, OP].every(ensureUser);

let c: Cluster;
let url: string;
const tokens: Record<string, string> = {};

function token(args: string[], user?: string): { token?: string; stderr: string; code: number } {
  const r = c.run(["scontrol", "token", ...args], user === undefined ? {} : { user });
  const m = /^SLURM_JWT=(\S+)\n$/.exec(r.stdout);
  return m?.[1] === undefined ? { stderr: r.stderr, code: r.code } : { token: m[1], stderr: r.stderr, code: r.code };
}

/** Poll an async check until it gives a value (cluster.ts's eventually takes sync checks only). */
async function until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const v = await check().catch(() => undefined);
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const client = (user: string, extra: Record<string, string> = {}): Promise<SlurmClient> =>
  createClient(url, { "X-SLURM-USER-NAME": user, "X-SLURM-USER-TOKEN": tokens[user] ?? "", ...extra });

function restartDaemon(name: string, args: string[]): void {
  const pid = c.pid(name);
  if (pid > 0) process.kill(pid, "SIGTERM");
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    Bun.sleepSync(50);
  }
  c.startDaemon(name, args);
}

beforeAll(async () => {
  if (!ready) return;
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  url = `http://127.0.0.1:${/^RestPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1]}`;
  // An operator needs SpurOperators= in spur.conf: add it and restart the controller and spurrestd.
  appendFileSync(c.conf, `SpurOperators=${OP}\n`);
  restartDaemon("spurctld", ["spurctld", "--conf", c.conf]);
  restartDaemon("spurrestd", ["spurrestd", "--conf", c.conf]);
  await eventually("controller and spurrestd back", () => (c.run(["squeue"]).code === 0 ? true : undefined), 30_000);
  tokens.root = token([]).token ?? "";
  await until("spurrestd answering", async () => ((await fetch(`${url}/openapi/v3`).catch(() => undefined))?.ok ? true : undefined), 30_000);
});
afterAll(() => c?.down());

describe.runIf(ready)("spurrestd", () => {
  it("issues tokens with scontrol token by Slurm's rules", () => {
    for (const u of [A, B, OP]) {
      const t = token(["lifespan=600"], u);
      expect(t.code, t.stderr).toBe(0);
      tokens[u] = t.token ?? "";
    }
    const forOther = token([`username=${B}`], A);
    expect(forOther.code).toBe(1);
    expect(forOther.stderr).toContain("Access/permission denied");
    expect(token([`username=${A}`, "lifespan=60"]).code).toBe(0);
    expect(token([`username=${A}`], OP).code).toBe(0);
    expect(token(["lifespan=abc"]).code).toBe(1);
  });

  it("submits, lists, updates and cancels through a typed client", async () => {
    const a = await client(A);
    expect((await a.ping()).status).toBe(200);
    const sub = await a.submit({ script: "#!/bin/sh\nsleep 60\n", job: { name: "rest-e2e", current_working_directory: c.work, environment: ["PATH=/usr/bin:/bin"], time_limit: { set: true, infinite: false, number: 5 } } });
    expect(sub.status, JSON.stringify(sub.body.errors)).toBe(200);
    const id = String(sub.body.job_id);
    const listed = await a.jobs();
    const mine = listed.body.jobs.find((j) => String(j.job_id) === id);
    expect(mine?.user_name).toBe(A);
    expect(mine?.name).toBe("rest-e2e");
    await until("job running", async () => ((await a.job(id)).body.jobs[0]?.job_state?.[0] === "RUNNING" ? true : undefined));
    const upd = await a.updateJob(id, { comment: "via rest", time_limit: { set: true, infinite: false, number: 3 } });
    expect(upd.status, JSON.stringify(upd.body.errors)).toBe(200);
    expect((await a.job(id)).body.jobs[0]?.time_limit).toEqual({ set: true, infinite: false, number: 3 });
    expect((await a.cancelJob(id)).status).toBe(200);
    await until("job cancelled", async () => ((await a.job(id)).body.jobs[0]?.job_state?.[0] === "CANCELLED" ? true : undefined));
    const acct = await a.dbJob(id);
    expect(acct.body.jobs[0]?.state?.current).toEqual(["CANCELLED"]);
    expect((await a.nodes()).body.nodes.map((n) => n.name).sort()).toEqual(["n1", "n2"]);
    expect((await a.partitions()).body.partitions[0]?.name).toBe("debug");
    expect(a.problems).toEqual([]);
  });

  it("enforces the authorisation matrix", async () => {
    const [a, b, op, root] = await Promise.all([client(A), client(B), client(OP), client("root")]);
    const job = { script: "#!/bin/sh\nsleep 60\n", job: { current_working_directory: c.work, environment: ["PATH=/usr/bin:/bin"] } };
    const id = String((await a.submit(job)).body.job_id);
    expect((await b.job(id)).status).toBe(200);
    expect((await b.updateJob(id, { comment: "b" })).status).toBe(403);
    const denied = await b.cancelJob(id);
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]?.error).toBe("Access/permission denied");
    expect((await op.updateJob(id, { comment: "operator" })).status).toBe(200);
    expect((await root.cancelJob(id)).status).toBe(200);
    const id2 = String((await a.submit(job)).body.job_id);
    expect((await op.cancelJob(id2)).status).toBe(200);
    // Impersonation: root may act as B; A may not.
    const asB = await createClient(url, { "X-SLURM-USER-NAME": B, "X-SLURM-USER-TOKEN": tokens.root ?? "" });
    const subB = await asB.submit(job);
    expect(subB.status).toBe(200);
    expect((await b.job(String(subB.body.job_id))).body.jobs[0]?.user_name).toBe(B);
    expect((await b.cancelJob(String(subB.body.job_id))).status).toBe(200);
    const aAsB = await createClient(url, { "X-SLURM-USER-NAME": B, "X-SLURM-USER-TOKEN": tokens[A] ?? "" });
    expect((await aAsB.jobs()).status).toBe(401);
    for (const cl of [a, b, op, root, asB]) expect(cl.problems).toEqual([]);
  });

  it("refuses expired and forged tokens, at spurrestd and at spurctld", async () => {
    const short = token(["lifespan=1"], A).token ?? "";
    await until("token expired", async () => ((await fetch(`${url}/slurm/v0.0.45/jobs/`, { headers: { "X-SLURM-USER-TOKEN": short } })).status === 401 ? true : undefined), 10_000);
    const forgedKey = await importKey(randomBytes(32));
    const now = Math.floor(Date.now() / 1000);
    const forged = await signToken(forgedKey, { iat: now, exp: now + 600, sun: "root" });
    const r = await fetch(`${url}/slurm/v0.0.45/jobs/`, { headers: { "X-SLURM-USER-TOKEN": forged } });
    expect(r.status).toBe(401);
    // Straight to the controller with the forged token: refused, not taken as the socket's (root) uid.
    const ctlPort = /^ControlPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1];
    const direct = await fetch(`http://127.0.0.1:${ctlPort}/spur.v1.Controller/Cancel`, {
      method: "POST", headers: { "content-type": "application/json", "x-spur-user-token": forged }, body: JSON.stringify({ filter: { user: A } }),
    });
    expect(direct.status).toBe(401);
  });

  it("rotates the key without restart, keeping old tokens for the grace period", async () => {
    const keyPath = join(c.dir, "cluster", "ctld", "jwt_hs256.key");
    const before = tokens[A] ?? "";
    writeFileSync(keyPath, randomBytes(32), { mode: 0o600 });
    await new Promise((r) => setTimeout(r, 1200));
    const after = token(["lifespan=600"], A).token ?? "";
    expect(after).not.toBe("");
    for (const t of [before, after]) {
      const res = await fetch(`${url}/slurm/v0.0.45/jobs/`, { headers: { "X-SLURM-USER-TOKEN": t } });
      expect(res.status).toBe(200);
    }
  });
});

const hasOpenssl = spawnSync("openssl", ["version"]).status === 0;
if (!hasOpenssl) console.warn("spurrestd TLS test skipped: the openssl command is missing (Debian package openssl)");

describe.runIf(ready && hasOpenssl)("spurrestd TLS", () => {
  it("serves HTTPS with a certificate from spur tls-cert, and refuses plaintext off loopback", async () => {
    const certDir = join(c.dir, "tls");
    const gen = c.run(["tls-cert", "--out-dir", certDir, "--host", "localhost"]);
    expect(gen.code, gen.stderr).toBe(0);
    const cert = join(certDir, "spurrestd.crt");
    const port = await new Promise<number>((res) => {
      const srv = createServer().listen(0, "127.0.0.1", () => {
        const a = srv.address();
        srv.close(() => res(typeof a === "object" && a !== null ? a.port : 0));
      });
    });
    c.startDaemon("spurrestd-tls", ["spurrestd", "--conf", c.conf, "--port", String(port), "--tls-cert", cert, "--tls-key", join(certDir, "spurrestd.key")]);
    const ca = readFileSync(cert, "utf8");
    // A fresh token: the key was rotated above, and a daemon started after a rotation knows only the new key.
    const rootToken = token([]).token ?? "";
    const res = await until("https answer", async () => {
      const r = await fetch(`https://127.0.0.1:${port}/slurm/v0.0.45/ping/`, { headers: { "X-SLURM-USER-TOKEN": rootToken }, tls: { ca } } as RequestInit);
      return r.status === 200 ? r : undefined;
    });
    expect(((await res.json()) as { pings: unknown[] }).pings).toHaveLength(1);
    const plain = spawnSync(BIN, ["spurrestd", "--conf", c.conf, "--listen", "0.0.0.0", "--port", "0"], { encoding: "utf8", timeout: 20_000 });
    expect(plain.status).toBe(1);
    expect(plain.stderr).toContain("refusing plaintext");
  });
});

/** This host's first non-loopback IPv4 address: a peer there is not on loopback, so spurrestd may gzip. */
function networkAddress(): string | undefined {
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (a.family === "IPv4" && !a.internal) return a.address;
  return undefined;
}

/** A GET whose body comes back as sent (fetch would inflate it). */
function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

describe.runIf(ready && networkAddress() !== undefined)("spurrestd gzip", () => {
  it("gzips GET jobs/ (over 1 MiB) for a client across a network: the same document as the identity body on loopback", async () => {
    const conf = readFileSync(c.conf, "utf8");
    const ctlPort = /^ControlPort=(\d+)/m.exec(conf)?.[1];
    const spec = JSON.stringify({ spec: { name: "gz", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true } });
    for (let done = 0; done < 320; done += 32) {
      const answers = await Promise.all(Array.from({ length: 32 }, () => fetch(`http://127.0.0.1:${ctlPort}/spur.v1.Controller/Submit`, { method: "POST", headers: { "content-type": "application/json" }, body: spec })));
      expect(answers.every((a) => a.ok)).toBe(true);
    }
    const port = await new Promise<number>((res) => {
      const srv = createServer().listen(0, "0.0.0.0", () => {
        const a = srv.address();
        srv.close(() => res(typeof a === "object" && a !== null ? a.port : 0));
      });
    });
    c.startDaemon("spurrestd-gzip", ["spurrestd", "--conf", c.conf, "--listen", "0.0.0.0", "--port", String(port), "--allow-plaintext"]);
    const headers = { "X-SLURM-USER-TOKEN": token([]).token ?? "", "accept-encoding": "gzip, deflate" };
    const near = await until("spurrestd on 0.0.0.0", async () => {
      const r = await rawGet(`http://127.0.0.1:${port}/slurm/v0.0.45/jobs/`, headers).catch(() => undefined);
      return r?.status === 200 ? r : undefined;
    }, 30_000);
    const far = await rawGet(`http://${networkAddress()}:${port}/slurm/v0.0.45/jobs/`, headers);
    expect(near.headers["content-encoding"], "loopback: as is").toBeUndefined();
    expect(near.body.length).toBeGreaterThan(1 << 20);
    expect(far.status).toBe(200);
    expect(far.headers["content-encoding"]).toBe("gzip");
    expect(far.headers.vary).toBe("accept-encoding");
    expect(far.body.length).toBeLessThan(near.body.length / 10);
    const a = JSON.parse(near.body.toString("utf8")) as { jobs: unknown[]; meta: unknown; last_update: unknown };
    const b = JSON.parse(gunzipSync(far.body).toString("utf8")) as typeof a;
    expect(b.jobs.length).toBeGreaterThanOrEqual(320);
    // Only the caller's address in meta (and the time) may differ between the two answers.
    expect(b.jobs).toEqual(a.jobs);
  }, 90_000);
});
