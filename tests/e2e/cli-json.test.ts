/**
 * End-to-end: the compiled binary's `sinfo`, `squeue` and `sacct
 * --json=v0.0.45` against a real controller print documents that parse with
 * the schemas the running spurrestd publishes at /openapi/v3 (issue 7:
 * "the --json outputs of squeue/sinfo/sacct parse with the same schemas").
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { startCluster, eventually, type Cluster } from "./cluster.ts";
import { check, responseSchema, type Doc } from "../unit/rest/openapi-check.ts";

const V = "v0.0.45";
let c: Cluster;
let doc: Doc;

async function fetchDoc(url: string): Promise<Doc> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await fetch(`${url}/openapi/v3`).catch(() => undefined);
    if (r?.ok) return (await r.json()) as Doc;
    if (Date.now() > deadline) throw new Error("spurrestd did not answer /openapi/v3");
    await new Promise((res) => setTimeout(res, 200));
  }
}

beforeAll(async () => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
  await eventually("controller answering", () => (c.run(["sinfo"]).code === 0 ? true : undefined), 60_000);
  const port = /^RestPort=(\d+)/m.exec(readFileSync(c.conf, "utf8"))?.[1];
  if (port === undefined) throw new Error("no RestPort= in spur.conf");
  doc = await fetchDoc(`http://127.0.0.1:${port}`);
});
afterAll(() => c?.down());

describe("--json=v0.0.4x of the real binary", () => {
  it("sinfo --json=v0.0.45 parses with the published openapi_sinfo_resp and names the cluster", async () => {
    const job = c.run(["sbatch", "--wrap", "sleep 30", "-N", "1"]);
    expect(job.code, job.stderr).toBe(0);
    const r = c.run(["sinfo", `--json=${V}`]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { sinfo: { cluster: string; nodes: { total: number; nodes: string[] } }[] };
    expect(check(doc, { $ref: `#/components/schemas/${V}_openapi_sinfo_resp` }, out)).toEqual([]);
    expect(out.sinfo.flatMap((s) => s.nodes.nodes).sort()).toEqual(["n1", "n2"]);
    expect(out.sinfo.every((s) => s.cluster !== "")).toBe(true);
    const perNode = JSON.parse(c.run(["sinfo", `--json=${V}`, "-N"]).stdout) as { sinfo: unknown[] };
    expect(perNode.sinfo).toHaveLength(2);
    // a bare --json is the newest data_parser, as current Slurm prints it; 22.05's shape when asked for
    const bare = c.run(["sinfo", "--json"]);
    expect(bare.code).toBe(0);
    expect(check(doc, { $ref: `#/components/schemas/${V}_openapi_sinfo_resp` }, JSON.parse(bare.stdout))).toEqual([]);
    const legacy = c.run(["sinfo", "--json=v0.0.38"]);
    expect(Object.keys(JSON.parse(legacy.stdout) as object)).toContain("nodes");
  });

  it("squeue and sacct --json=v0.0.45 parse with their paths' response schemas", () => {
    const q = c.run(["squeue", `--json=${V}`]);
    expect(q.code, q.stderr).toBe(0);
    expect(check(doc, responseSchema(doc, `/slurm/${V}/jobs/`, "get"), JSON.parse(q.stdout))).toEqual([]);
    const a = c.run(["sacct", `--json=${V}`, "-a"]);
    expect(a.code, a.stderr).toBe(0);
    expect(check(doc, responseSchema(doc, `/slurmdb/${V}/jobs/`, "get"), JSON.parse(a.stdout))).toEqual([]);
    // a bare sacct --json is the newest data_parser as well, its meta.command the invocation
    const bare = c.run(["sacct", "--json", "-a"]);
    expect(bare.code, bare.stderr).toBe(0);
    const out = JSON.parse(bare.stdout) as { meta: { command: string[] } };
    expect(check(doc, responseSchema(doc, `/slurmdb/${V}/jobs/`, "get"), out)).toEqual([]);
    expect(out.meta.command).toEqual(["sacct", "--json", "-a"]);
  });
});
