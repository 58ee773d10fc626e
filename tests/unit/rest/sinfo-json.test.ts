/**
 * `sinfo --json=v0.0.4x` prints data_parser's openapi_sinfo_resp: it parses
 * with the component /openapi/v3 publishes for each version (the independent
 * checker of openapi-check.ts) and with the schema language's own validator,
 * and it holds the same lines, counts and filters as the text form.
 */
import { describe, expect, it } from "vitest";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { validate } from "../../../src/net/rest/schema.ts";
import { SinfoResp } from "../../../src/net/rest/schemas-sinfo.ts";
import { VERSIONS } from "../../../src/net/rest/versions.ts";
import { busyNodeStates, oracleNodes, oraclePartitions } from "../squeue-sinfo/fixtures.ts";
import { fakePort, type World } from "../squeue-sinfo/golden.ts";
import { createFixture } from "./fixture.ts";
import { check, type Doc } from "./openapi-check.ts";

process.env.TZ = "UTC";

interface SinfoDoc {
  sinfo: {
    cluster: string;
    node: { state: string[] };
    nodes: { allocated: number; idle: number; other: number; total: number; nodes: string[] };
    cpus: { allocated: number; idle: number; total: number; minimum: number; maximum: number };
    partition: { name: string; cluster: string };
    gres: { total: string };
  }[];
  meta: { plugin: { data_parser: string }; command: string[] };
}

const busy = (): World => ({ nodes: oracleNodes(busyNodeStates()), partitions: oraclePartitions(), now: 1796214928 });

async function doc(): Promise<Doc> {
  const fx = await createFixture();
  return (await (await fx.app.request("/openapi/v3")).json()) as Doc;
}

async function sinfo(argv: string[], world = busy(), cluster?: string) {
  const port = fakePort(world);
  if (cluster !== undefined) port.ctl.getConfig = async () => ({ entries: { ClusterName: cluster } });
  return sinfoMain(argv, port);
}

describe("sinfo --json=<data_parser>", () => {
  it("parses with <version>_openapi_sinfo_resp of /openapi/v3 and with the schema validator, in every version", async () => {
    const d = await doc();
    for (const v of VERSIONS) {
      const ref = { $ref: `#/components/schemas/${v}_openapi_sinfo_resp` };
      expect(d.components.schemas[`${v}_openapi_sinfo_resp`], v).toBeDefined();
      const bare = v === "v0.0.45" ? [["--json"], ["-N", "--json"]] : [];
      for (const argv of [[`--json=${v}`], [`--json=data_parser/${v}`, "-N"], [`--json=${v}`, "-a", "-l"], ...bare]) {
        const r = await sinfo(argv, busy(), "oracle");
        expect(r.exitCode, r.stderr).toBe(0);
        const out = JSON.parse(r.stdout) as SinfoDoc;
        expect(out.meta.plugin.data_parser).toBe(`data_parser/${v}`);
        expect(out.meta.command).toEqual(["sinfo", ...argv]);
        expect(check(d, ref, out)).toEqual([]);
        expect(validate(SinfoResp.node, out, { rejectUnknown: true, version: Number(v.slice(5)) })).toEqual([]);
      }
    }
  });

  it("holds the text form's lines: one entry per partition/state group, counts and ranges per group", async () => {
    const text = await sinfo([]);
    const lines = text.stdout.trim().split("\n").slice(1);
    const out = JSON.parse((await sinfo(["--json=v0.0.45"], busy(), "oracle")).stdout) as SinfoDoc;
    expect(out.sinfo).toHaveLength(lines.length);
    const rows = out.sinfo.map((s) => [s.partition.name, s.node.state.join("+"), s.nodes.nodes.join(","), s.nodes.total]);
    expect(rows).toEqual([
      ["debug", "MIXED", "n4", 1],
      ["debug", "ALLOCATED", "n3", 1],
      ["debug", "IDLE", "n1,n2", 2],
      ["gpu", "MIXED", "n4", 1],
      ["gpu", "ALLOCATED", "n3", 1],
    ]);
    const idle = out.sinfo[2];
    expect(idle?.nodes).toMatchObject({ allocated: 0, idle: 2, other: 0, total: 2 });
    expect(idle?.cpus).toMatchObject({ allocated: 0, idle: 8, total: 8, minimum: 4, maximum: 4 });
    const mixed = out.sinfo[0];
    expect(mixed?.cpus).toMatchObject({ allocated: 3, idle: 1, total: 4 });
    expect(mixed?.gres.total).toBe("gpu:mi300x:8");
    expect(out.sinfo.every((s) => s.cluster === "oracle" && s.partition.cluster === "oracle")).toBe(true);
  });

  it("applies sinfo's filters and -N", async () => {
    const gpu = JSON.parse((await sinfo(["--json=v0.0.42", "-p", "gpu"])).stdout) as SinfoDoc;
    expect(new Set(gpu.sinfo.map((s) => s.partition.name))).toEqual(new Set(["gpu"]));
    const perNode = JSON.parse((await sinfo(["--json=v0.0.43", "-N"])).stdout) as SinfoDoc;
    expect(perNode.sinfo.map((s) => `${s.nodes.nodes.join(",")}/${s.partition.name}`).sort()).toEqual(
      ["n1/debug", "n2/debug", "n3/debug", "n3/gpu", "n4/debug", "n4/gpu"],
    );
    const idleOnly = JSON.parse((await sinfo(["--json=v0.0.44", "-t", "idle"])).stdout) as SinfoDoc;
    expect(idleOnly.sinfo.flatMap((s) => s.nodes.nodes)).toEqual(["n1", "n2"]);
  });

  it("refuses an unknown data_parser, and an unreachable controller fails as the text form does", async () => {
    const bad = await sinfo(["--json=v0.0.99"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toBe("");
    expect(bad.stderr).toContain("Unable to find data_parser plugin for v0.0.99");
    const down = await sinfo(["--json=v0.0.45"], { ...busy(), down: true });
    expect(down.exitCode).toBe(1);
    expect(down.stderr).toContain("slurm_load_partitions: Unable to contact slurm controller");
  });

  it("keeps an empty cluster name when the controller gives no config (document still valid)", async () => {
    const r = await sinfo(["--json=v0.0.45"]);
    const out = JSON.parse(r.stdout) as SinfoDoc;
    expect(out.sinfo[0]?.cluster).toBe("");
    expect(validate(SinfoResp.node, out, { rejectUnknown: true, version: 45 })).toEqual([]);
  });
});
