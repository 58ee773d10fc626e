/**
 * sinfo against the Slurm 22.05 oracle: idle and busy clusters (goldens
 * 003-012, 056-058), byte for byte. Where Slurm's per-partition threads race
 * (the order of one node's lines in `-N` output, goldens 006/057), the test
 * accepts either order of those tied lines and checks everything else exactly.
 */
import { describe, expect, it } from "vitest";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { naturalCompare } from "../../../src/compat/hostlist.ts";
import { busyNodeStates, node, oracleNodes, oraclePartitions, type Node } from "./fixtures.ts";
import { expected, fakePort, golden, type World } from "./golden.ts";

process.env.TZ = "UTC";

const idle = (now: number): World => ({ nodes: oracleNodes(), partitions: oraclePartitions(), now });
const busy = (now: number): World => ({ nodes: oracleNodes(busyNodeStates()), partitions: oraclePartitions(), now });

const run = async (prefix: string, world: World) => {
  const g = golden(prefix);
  return { g, result: await sinfoMain(g.argv, fakePort(world)) };
};

/** Lines of a `-N` listing with each node's tied lines put in one canonical order. */
function canonicalNodeLines(text: string): string[] {
  const [head, ...rows] = text.split("\n");
  const firstWord = (l: string): string => l.split(" ")[0] ?? "";
  const sorted = [...rows].sort((a, b) => naturalCompare(firstWord(a), firstWord(b)) || (a < b ? -1 : a > b ? 1 : 0));
  return [head ?? "", ...sorted];
}

describe("sinfo goldens, idle cluster", () => {
  const cases: [string, number][] = [
    ["003", 1796214928], ["004", 1796214928], ["005", 1796214928], ["007", 1796214928],
    ["008", 1796214928], ["009", 1796214928], ["010", 1796214928], ["011", 1796214928],
  ];
  for (const [prefix, now] of cases) {
    it(`matches golden ${prefix}`, async () => {
      const { g, result } = await run(prefix, idle(now));
      expect(result).toEqual(expected(g));
    });
  }

  it("matches golden 006 up to the order of one node's tied lines", async () => {
    const { g, result } = await run("006", idle(1796214928));
    expect(result.exitCode).toBe(g.exitCode);
    expect(result.stderr).toBe(g.stderr);
    expect(canonicalNodeLines(result.stdout)).toEqual(canonicalNodeLines(g.stdout));
  });
});

describe("sinfo goldens, busy cluster", () => {
  it("matches golden 056 (mix/alloc/idle lines per partition)", async () => {
    const { g, result } = await run("056", busy(1796214967));
    expect(result).toEqual(expected(g));
  });

  it("matches golden 058 (-N with CPU counts)", async () => {
    const { g, result } = await run("058", busy(1796214967));
    expect(result).toEqual(expected(g));
  });

  it("matches golden 057 up to the order of one node's tied lines", async () => {
    const { g, result } = await run("057", busy(1796214967));
    expect(result.exitCode).toBe(0);
    const [date, ...rest] = result.stdout.split("\n");
    const [gDate, ...gRest] = g.stdout.split("\n");
    expect(date).toBe(gDate);
    expect(canonicalNodeLines(rest.join("\n"))).toEqual(canonicalNodeLines(gRest.join("\n")));
  });
});

/** The oracle's nodes as golden 012 recorded them (boot times, load, free memory). */
function jsonNodes(): Node[] {
  const os = "Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0";
  const extra: Record<string, Partial<Node>> = {
    n1: { cpuLoad: 0.68, freeMemoryMib: 23609, bootTime: 1796209038 },
    n2: { cpuLoad: 0.68, freeMemoryMib: 23608, bootTime: 1796209038 },
    n3: { cpuLoad: 0.72, freeMemoryMib: 23607, bootTime: 1796209038 },
    n4: { cpuLoad: 0.72, freeMemoryMib: 23607, bootTime: 1796209037 },
  };
  return oracleNodes().map((n) => node({ ...n, os, lastBusyTime: 1796214928, registeredTime: 1796214928, ...extra[n.name] }));
}

describe("sinfo --json=v0.0.38 (a bare --json prints the current data_parser: tests/unit/rest/sinfo-json.test.ts)", () => {
  it("matches golden 012 byte for byte", async () => {
    const g = golden("012");
    expect(g.argv).toEqual(["--json"]);
    const result = await sinfoMain(["--json=v0.0.38"], fakePort({ nodes: jsonNodes(), partitions: oraclePartitions(), now: 1796214928 }));
    expect(result).toEqual(expected(g));
  });
});
