/**
 * sinfo's lines are found through keys (sinfo-records.ts LineIndex) instead of comparing each
 * node with every line. On generated clusters (nodes sharing and differing in every grouped
 * attribute, partitions overlapping, a node listed twice) and generated options (the grouped
 * attributes of random formats, -N, -R, -e, -p), the lines, their order, their nodes and their
 * counts must be those of the walk (buildRecords' `walk`, the definition).
 */
import { describe, expect, it } from "vitest";
import { buildRecords, type GroupOptions, type MatchKey } from "../../../src/compat/format/sinfo-records.ts";
import { createRng } from "../../../src/lib/rng.ts";
import { node, partition } from "./fixtures.ts";

const KEYS: MatchKey[] = [
  "partition", "avail", "groups", "jobSize", "defaultTime", "maxTime", "root", "oversubscribe", "priorityTier", "priorityJobFactor",
  "state", "features", "featuresAct", "gres", "gresUsed", "reason", "reasonTime", "reasonUser", "allocMem", "hostnames", "nodeAddr",
  "cpus", "sockets", "cores", "threads", "sct", "disk", "memory", "weight", "cpuLoad", "freeMem", "port", "version",
];

describe("sinfo lines through the index", () => {
  it("are the walk's lines on generated clusters and options", () => {
    const seed = Number(process.env.SEED ?? 5);
    let lines = 0;
    let byMembers = 0;
    for (let round = 0; round < 600; round++) {
      const rng = createRng(seed + round);
      const nodes = Array.from({ length: rng.int(0, 30) }, (_, i) =>
        node({
          name: `n${i}`, hostname: rng.pick([`n${i}`, "h1", "h2"]), addr: rng.pick(["10.0.0.1", "10.0.0.2"]),
          state: rng.pick(["IDLE", "ALLOCATED", "MIXED", "DOWN"]), stateFlags: rng.pick([[], ["DRAIN"], ["COMPLETING"]]),
          features: rng.pick(["", "a100", "a100,ib"]), gres: rng.pick(["", "gpu:8"]), reason: rng.pick(["", "maint"]),
          cpus: rng.pick([4, 8]), allocCpus: rng.pick([0, 2, 4]), realMemoryMib: rng.pick([1000, 2000]), cpuLoad: rng.pick([0, 1.5, Number.NaN]),
          weight: rng.pick([1, 10]), version: rng.pick(["22.05", "23.02"]),
        }),
      );
      if (nodes.length > 0 && rng.int(0, 3) === 0) nodes.push(nodes[rng.int(0, nodes.length - 1)] as (typeof nodes)[number]);
      const parts = Array.from({ length: rng.int(1, 4) }, (_, i) =>
        partition({ name: `p${i}`, state: rng.pick(["UP", "DOWN"]), maxTimeMin: rng.pick([undefined, 60]), priorityTier: rng.pick([1, 2]), allowGroups: rng.pick(["", "ALL"]) }),
      );
      const members = new Map(parts.map((p) => [p.name, new Set(nodes.filter(() => rng.int(0, 2) > 0).map((n) => n.name))]));
      const o: GroupOptions = {
        match: new Set(KEYS.filter(() => rng.int(0, 3) === 0)),
        nodeLines: rng.int(0, 3) === 0,
        listReasons: rng.int(0, 3) === 0,
        exact: rng.int(0, 1) === 0,
        ...(rng.int(0, 3) === 0 ? { partitions: [rng.pick(parts).name] } : {}),
        ...(rng.int(0, 3) === 0 ? { keepNode: (n) => n.state !== "DOWN" } : {}),
      };
      const memberOf = (p: { name: string }) => members.get(p.name) ?? new Set<string>();
      const want = buildRecords(nodes, parts, memberOf, o, true);
      const got = buildRecords(nodes, parts, memberOf, o);
      expect(got, `SEED=${seed + round}`).toEqual(want);
      lines += want.length;
      if (o.match.has("hostnames") || o.match.has("nodeAddr")) byMembers++;
    }
    expect(lines).toBeGreaterThan(3000);
    expect(byMembers).toBeGreaterThan(200);
  });

  it("gives one line per node and partition with -N and one per partition without, at 10k nodes", () => {
    const nodes = Array.from({ length: 10_000 }, (_, i) => node({ name: `n${i}`, state: "IDLE" }));
    const parts = [partition({ name: "a" }), partition({ name: "b" })];
    const all = new Set(nodes.map((n) => n.name));
    const o: GroupOptions = { match: new Set<MatchKey>(["partition", "state"]), nodeLines: true, listReasons: false, exact: false };
    const records = buildRecords(nodes, parts, () => all, o);
    expect(records).toHaveLength(20_000);
    // and the grouped listing: one line per partition
    expect(buildRecords(nodes, parts, () => all, { ...o, nodeLines: false }).map((r) => r.nodes.length)).toEqual([10_000, 10_000]);
  });
});
