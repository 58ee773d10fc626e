/**
 * spurrestd's app over a fake controller: envelopes, shapes (every response
 * validated against the schema it is published under), submission mapping,
 * authentication rules and robustness against malformed input.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { createFixture, type Fixture } from "./fixture.ts";
import { validate } from "../../../src/net/rest/schema.ts";
import { JobInfoResp, JobSubmitResp } from "../../../src/net/rest/schemas-job.ts";
import { OpenapiResp } from "../../../src/net/rest/schemas-common.ts";

let fx: Fixture;
beforeEach(async () => {
  fx = await createFixture();
});

const JOB = { name: "hello", partition: "debug", current_working_directory: "/home/alice", environment: ["PATH=/bin"], time_limit: { set: true, infinite: false, number: 10 } };

describe("envelope and shapes", () => {
  it("answers ping with meta, errors and warnings", async () => {
    const r = await fx.request("GET", "/slurm/v0.0.45/ping/", { user: "alice" });
    expect(r.status).toBe(200);
    expect(r.json.errors).toEqual([]);
    expect(r.json.warnings).toEqual([]);
    const meta = r.json.meta as { plugin: { data_parser: string }; client: { user: string }; slurm: { version: { major: string } } };
    expect(meta.plugin.data_parser).toBe("data_parser/v0.0.45");
    expect(meta.client.user).toBe("alice");
    expect(typeof meta.slurm.version.major).toBe("string");
  });

  it("serves every version from v0.0.42 to v0.0.45 and no other", async () => {
    for (const v of ["v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]) {
      const r = await fx.request("GET", `/slurm/${v}/jobs/`, { user: "alice" });
      expect(r.status).toBe(200);
      expect((r.json.meta as { plugin: { data_parser: string } }).plugin.data_parser).toBe(`data_parser/${v}`);
    }
    const old = await fx.request("GET", "/slurm/v0.0.38/jobs/", { user: "alice" });
    expect(old.status).toBe(404);
    expect((old.json.errors as unknown[]).length).toBe(1);
  });

  it("submits a job through sbatch's rules and lists it in the job_info shape", async () => {
    const s = await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\necho hi\n", job: JOB } });
    expect(s.status).toBe(200);
    expect(validate(JobSubmitResp.node, s.json, { rejectUnknown: true })).toEqual([]);
    expect(s.json.job_id).toBe(100);
    const spec = fx.specs[0]!;
    expect(spec.name).toBe("hello");
    expect(spec.timeLimitMin).toBe(10);
    expect(spec.workDir).toBe("/home/alice");
    expect(spec.env.PATH).toBe("/bin");
    const l = await fx.request("GET", "/slurm/v0.0.45/jobs", { user: "bob" });
    expect(validate(JobInfoResp.node, l.json, { rejectUnknown: true })).toEqual([]);
    const job = (l.json.jobs as Record<string, unknown>[])[0]!;
    expect(job.job_state).toEqual(["PENDING"]);
    expect(job.time_limit).toEqual({ set: true, infinite: false, number: 10 });
    expect(job.user_name).toBe("alice");
  });

  it("serves GET /jobs again from what it kept while the controller's list is unchanged, and afresh once it moved", async () => {
    const submitOne = (name: string) => fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: { ...JOB, name } } });
    const names = async (v: string) => ((await fx.request("GET", `/slurm/${v}/jobs`, { user: "bob" })).json.jobs as { name: string }[]).map((j) => j.name);
    await submitOne("a");
    const first = await fx.request("GET", "/slurm/v0.0.45/jobs", { user: "bob" });
    const again = await fx.request("GET", "/slurm/v0.0.45/jobs", { user: "alice" });
    expect(again.json.jobs).toEqual(first.json.jobs);
    expect(await names("v0.0.44")).toEqual(["a"]);
    await submitOne("b");
    expect(await names("v0.0.45")).toEqual(["a", "b"]);
    expect(await names("v0.0.44")).toEqual(["a", "b"]);
    fx.jobs[0]!.name = "renamed";
    expect(await names("v0.0.45")).toEqual(["renamed", "b"]);
  });

  it("takes #SBATCH lines from the script, with the request's fields winning", async () => {
    const s = await fx.request("POST", "/slurm/v0.0.44/job/submit", { user: "alice", body: { script: "#!/bin/sh\n#SBATCH -J fromscript\n#SBATCH -t 5\n", job: { current_working_directory: "/tmp", time_limit: { set: true, infinite: false, number: 7 } } } });
    expect(s.status).toBe(200);
    expect(fx.specs[0]!.name).toBe("fromscript");
    expect(fx.specs[0]!.timeLimitMin).toBe(7);
  });

  it("updates and cancels with the ownership rule", async () => {
    await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: JOB } });
    const denied = await fx.request("POST", "/slurm/v0.0.45/job/100", { user: "bob", body: { time_limit: { set: true, infinite: false, number: 20 } } });
    expect(denied.status).toBe(403);
    expect((denied.json.errors as { error_number: number }[])[0]!.error_number).toBe(2002);
    const ok = await fx.request("POST", "/slurm/v0.0.45/job/100", { user: "alice", body: { time_limit: { set: true, infinite: false, number: 20 } } });
    expect(ok.status).toBe(200);
    expect(fx.jobs[0]!.timeLimitMin).toBe(20);
    expect((await fx.request("DELETE", "/slurm/v0.0.45/job/100", { user: "bob" })).status).toBe(403);
    const op = await fx.request("DELETE", "/slurm/v0.0.45/job/100?signal=SIGKILL", { user: "op" });
    expect(op.status).toBe(200);
    expect(fx.jobs[0]!.state).toBe("CANCELLED");
    const missing = await fx.request("GET", "/slurm/v0.0.45/job/999", { user: "alice" });
    expect(missing.status).toBe(404);
    expect((missing.json.errors as { error: string }[])[0]!.error).toBe("Invalid job id specified");
  });
});

describe("authentication", () => {
  it("refuses requests without a token, with both headers, or with a non-Bearer Authorization", async () => {
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/")).status).toBe(401);
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { headers: { "x-slurm-user-name": "alice" } })).status).toBe(401);
    const t = await fx.token("alice");
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { headers: { "x-slurm-user-token": t, authorization: `Bearer ${t}` } })).status).toBe(401);
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { headers: { authorization: `Basic ${t}` } })).status).toBe(401);
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { headers: { authorization: `Bearer ${t}` } })).status).toBe(200);
  });

  it("refuses expired and forged tokens", async () => {
    const expired = await fx.token("alice", -1);
    const r = await fx.request("GET", "/slurm/v0.0.45/jobs/", { user: "alice", token: expired });
    expect(r.status).toBe(401);
    expect((r.json.errors as { description: string }[])[0]!.description).toContain("expired");
    const forged = await fx.token("root", 600, new TextEncoder().encode("not-the-cluster-key-0123456789"));
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { user: "root", token: forged })).status).toBe(401);
    const alice = await fx.token("alice");
    const [h, , s] = alice.split(".");
    const body = btoa(JSON.stringify({ exp: 2e9, iat: 0, sun: "root" })).replace(/=+$/, "");
    expect((await fx.request("GET", "/slurm/v0.0.45/jobs/", { user: "root", token: `${h}.${body}.${s}` })).status).toBe(401);
  });

  it("lets root and operators act as another user, and nobody else", async () => {
    const asAlice = { "x-slurm-user-name": "alice" };
    const root = await fx.request("GET", "/slurm/v0.0.45/ping/", { user: "root", headers: asAlice });
    expect((root.json.meta as { client: { user: string } }).client.user).toBe("alice");
    expect((await fx.request("GET", "/slurm/v0.0.45/ping/", { user: "op", headers: asAlice })).status).toBe(200);
    expect((await fx.request("GET", "/slurm/v0.0.45/ping/", { user: "bob", headers: asAlice })).status).toBe(401);
  });

  it("rate-limits per user", async () => {
    const limited = await createFixture({ perSec: 3 });
    const codes: number[] = [];
    for (let i = 0; i < 4; i++) codes.push((await limited.request("GET", "/slurm/v0.0.45/ping/", { user: "alice" })).status);
    codes.push((await limited.request("GET", "/slurm/v0.0.42/jobs/", { user: "alice" })).status);
    expect(codes).toEqual([200, 200, 200, 429, 429]);
    expect((await limited.request("GET", "/slurm/v0.0.45/ping/", { user: "bob" })).status).toBe(200);
  });
});

describe("robustness", () => {
  const submit = (body: unknown, raw?: string) =>
    fx.request("POST", "/slurm/v0.0.45/job/submit", raw === undefined ? { user: "alice", body } : { user: "alice", raw });
  const expect4xx = async (p: Promise<{ status: number; json: Record<string, unknown> }>, status = 400) => {
    const r = await p;
    expect(r.status).toBe(status);
    expect(validate(OpenapiResp.node, r.json, { rejectUnknown: true })).toEqual([]);
    expect((r.json.errors as unknown[]).length).toBe(1);
    expect(fx.specs.length).toBe(0);
  };

  it("refuses malformed JSON, wrong types, unknown fields and empty bodies", async () => {
    await expect4xx(submit(undefined, "{not json"));
    await expect4xx(submit(undefined, ""));
    await expect4xx(submit({ script: 42, job: JOB }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, tasks: "four" } }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, bogus_field: 1 } }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, time_limit: 10 } }));
    await expect4xx(submit([1, 2, 3]));
  });

  it("refuses path traversal and relative working directories", async () => {
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, current_working_directory: "/home/alice/../bob" } }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, current_working_directory: "relative/dir" } }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, standard_output: "../../etc/cron.d/x" } }));
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, standard_error: "/tmp/a\u0000b" } }));
  });

  it("refuses huge arrays and oversized bodies", async () => {
    await expect4xx(submit({ script: "#!/bin/sh\n", job: { ...JOB, environment: Array.from({ length: 5000 }, (_, i) => `V${i}=1`) } }));
    const small = await createFixture({ bodyBytesMax: 1000 });
    const r = await small.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: `#!/bin/sh\n${"x".repeat(2000)}`, job: JOB } });
    expect(r.status).toBe(413);
  });

  it("passes sbatch's own errors back as 400 with Slurm's wording", async () => {
    const r = await submit({ script: "#!/bin/sh\n", job: { ...JOB, nodes: "abc" } });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json.errors)).toMatch(/is not a valid node count/);
    const noScript = await submit({ job: JOB });
    expect(noScript.status).toBe(400);
    const ctl = await submit({ script: "#!/bin/sh\n", job: { ...JOB, partition: "nope" } });
    expect(ctl.status).toBe(400);
    expect((ctl.json.errors as { error: string }[])[0]!.error).toBe("Invalid partition name specified");
  });

  it("answers bad job ids and unknown paths with slurmrestd-style errors", async () => {
    expect((await fx.request("GET", "/slurm/v0.0.45/job/abc", { user: "alice" })).status).toBe(404);
    expect((await fx.request("GET", "/slurm/v0.0.45/job/..%2F..%2Fetc", { user: "alice" })).status).toBe(404);
    expect((await fx.request("GET", "/slurm/v0.0.45/nothing", { user: "alice" })).status).toBe(404);
    expect((await fx.request("DELETE", "/slurm/v0.0.45/job/1?signal=NOPE", { user: "alice" })).status).toBe(400);
  });
});

describe("later additions", () => {
  it("lists job states, signals jobs by filter, and refuses an empty filter", async () => {
    await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: JOB } });
    const st = await fx.request("GET", "/slurm/v0.0.43/jobs/state/", { user: "bob" });
    expect(st.json.jobs).toEqual([{ job_id: "100", state: ["PENDING"] }]);
    expect((await fx.request("GET", "/slurm/v0.0.42/jobs/state/", { user: "bob" })).status).toBe(404);
    expect((await fx.request("DELETE", "/slurm/v0.0.45/jobs/", { user: "alice", body: {} })).status).toBe(400);
    const k = await fx.request("DELETE", "/slurm/v0.0.45/jobs/", { user: "alice", body: { jobs: ["100"], signal: "KILL" } });
    expect(k.status).toBe(200);
    expect(fx.jobs[0]!.state).toBe("CANCELLED");
  });

  it("expands and compresses hostlists from v0.0.44 on", async () => {
    const e = await fx.request("POST", "/util/v0.0.44/hostnames", { user: "alice", body: { hostlist: "n[1-3],gpu01" } });
    expect(e.json.hostnames).toEqual(["n1", "n2", "n3", "gpu01"]);
    const c = await fx.request("POST", "/util/v0.0.45/hostlist", { user: "alice", body: { hostnames: ["n1", "n2", "n3"] } });
    expect(c.json.hostlist).toBe("n[1-3]");
    expect((await fx.request("POST", "/util/v0.0.43/hostnames", { user: "alice", body: { hostlist: "n1" } })).status).toBe(404);
    expect((await fx.request("POST", "/util/v0.0.45/hostnames", { user: "alice", body: { hostlist: "n[1-99999999]" } })).status).toBe(400);
  });
});

describe("nodes", () => {
  it("updates one node or several, and wants a reason to drain", async () => {
    expect((await fx.request("POST", "/slurm/v0.0.45/node/n1", { user: "root", body: { state: ["DRAIN"] } })).status).toBe(400);
    expect((await fx.request("POST", "/slurm/v0.0.45/node/n1", { user: "root", body: { state: ["DRAIN"], reason: "maint" } })).status).toBe(200);
    expect((await fx.request("POST", "/slurm/v0.0.45/nodes/", { user: "root", body: { state: ["RESUME"], name: ["n1", "n2"] } })).status).toBe(200);
    expect((await fx.request("POST", "/slurm/v0.0.45/nodes/", { user: "root", body: { state: ["RESUME"] } })).status).toBe(400);
  });
});

describe("key trouble", () => {
  it("answers 401, not 500, when the key cannot be read", async () => {
    const { createRestApp } = await import("../../../src/net/rest/app.ts");
    const { createAuthenticator } = await import("../../../src/net/rest/auth.ts");
    const app = createRestApp({
      auth: createAuthenticator({
        verify: async () => { throw new Error("ENOENT: no such file, stat '/x/jwt_hs256.key'"); },
        mint: async () => "", isPrivileged: () => false, lookupUser: () => ({ uid: 1, group: "g" }),
      }),
      controllerFor: () => { throw new Error("unused"); },
      host: { cluster: "c", hostname: "h", homeOf: () => "/", operators: () => [], controller: { host: "h", port: 1 } },
      nowSec: () => 0, rateLimit: { perSec: 0, burst: 0 },
    });
    const res = await app.request("/slurm/v0.0.45/ping/", { headers: { "x-slurm-user-token": "a.b.c" } });
    expect(res.status).toBe(401);
    expect(JSON.stringify(await res.json())).toContain("Unable to verify tokens");
  });
});

describe("slurmdb single items", () => {
  it("answers one user, account, QOS or cluster by name, 404 otherwise", async () => {
    await fx.request("POST", "/slurm/v0.0.45/job/submit", { user: "alice", body: { script: "#!/bin/sh\n", job: { ...JOB, account: "physics" } } });
    const u = await fx.request("GET", "/slurmdb/v0.0.45/user/root", { user: "alice" });
    expect((u.json.users as { name: string }[]).map((x) => x.name)).toEqual(["root"]);
    expect((await fx.request("GET", "/slurmdb/v0.0.45/qos/normal", { user: "alice" })).status).toBe(200);
    expect((await fx.request("GET", "/slurmdb/v0.0.45/qos/gold", { user: "alice" })).status).toBe(404);
    expect((await fx.request("GET", "/slurmdb/v0.0.45/cluster/spur", { user: "alice" })).status).toBe(200);
    expect((await fx.request("GET", "/slurmdb/v0.0.45/account/nope", { user: "alice" })).status).toBe(404);
    expect((await fx.request("GET", "/slurmdb/v0.0.42/qos/", { user: "alice" })).status).toBe(200);
  });
});
