/**
 * sinfo's listing rendered by the controller (ListNodesRequest.sinfo_view, compat/format/sinfo-listing.ts)
 * is the one sinfo prints from the nodes themselves: on seeded random clusters (node states and
 * flags, sizes, features, GRES, weights; partitions overlapping, hidden, default) and random
 * command lines (formats by letter and by name, -N -l -s -e -a -h -r -d, -p -t -n -S, SINFO_*
 * variables), sinfo through a controller that renders gives the same stdout, stderr and exit
 * code as through one that sends the nodes. Local times (-R's TIMESTAMP) are rendered there in
 * the controller's zone, which sinfo uses only in its own (else it asks for the nodes); --json,
 * -T and a SLURM_TIME_FORMAT style are not rendered there. A failure prints its seed; SEED=<n> replays one.
 */
import { describe, expect, it } from "vitest";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { renderSinfoView } from "../../../src/compat/format/sinfo-listing.ts";
import { useTimeFormat } from "../../../src/compat/format-time.ts";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import type { CliPort } from "../../../src/net/ctl-port.ts";
import { node, partition, type Node, type Partition } from "./fixtures.ts";
import { fakePort } from "./golden.ts";

process.env.TZ = "UTC";
const NOW = 1796214967;
const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: 300 }, (_, i) => i + 1);

const STATES: [string, string[]][] = [
  ["IDLE", []], ["ALLOCATED", []], ["MIXED", []], ["DOWN", ["NOT_RESPONDING"]], ["IDLE", ["DRAIN"]],
  ["ALLOCATED", ["DRAIN"]], ["DOWN", []], ["UNKNOWN", []], ["IDLE", ["NOT_RESPONDING"]], ["FUTURE", []],
];
const LETTERS = "PaDtTNcmfGRCOeEhnosSwzFABdgMXYZVlILpruUvb".split("");
const NAMES = ["Partition", "Available", "Nodes", "StateCompact", "StateLong", "NodeList", "CPUs", "Memory", "Features", "Gres", "GresUsed", "Reason", "CPUsState", "NodeHost", "Weight", "Size", "SocketCoreThread", "AllocMem", "FreeMem"];

function cluster(rng: Rng): { nodes: Node[]; partitions: Partition[] } {
  const n = rng.int(1, 12);
  const names = Array.from({ length: n }, (_, i) => `${rng.next() < 0.8 ? "c" : "g"}${i + 1}`);
  const nodes = names.map((name) => {
    const [state, stateFlags] = rng.pick(STATES);
    const cpus = rng.pick([4, 8, 64]);
    const gpus = name.startsWith("g") ? rng.pick([0, 4, 8]) : 0;
    return node({
      name, state, stateFlags, cpus, allocCpus: state === "ALLOCATED" ? cpus : state === "MIXED" ? rng.int(1, cpus - 1) : 0,
      realMemoryMib: rng.pick([4000, 8000, 256000]), freeMemoryMib: rng.int(0, 4000), weight: rng.pick([1, 1, 5]),
      features: rng.pick(["", "a100", "a100,ib", "ib"]), gres: gpus > 0 ? `gpu:h100:${gpus}` : "", gpuCount: gpus, gpuModel: gpus > 0 ? "h100" : "",
      reason: stateFlags.length > 0 || state === "DOWN" ? rng.pick(["maint", "Not responding", "bad disk"]) : "",
      reasonUser: "root", reasonTime: NOW - rng.int(0, 5000), cpuLoad: rng.int(0, 400) / 100,
    });
  });
  const partitions: Partition[] = [];
  for (let k = 0; k < rng.int(1, 3); k++) {
    const members = names.filter(() => rng.next() < 0.7);
    const list = members.length > 0 ? members : [names[0] as string];
    partitions.push(partition({
      name: ["main", "gpu", "debug"][k] as string, nodes: list.join(","), isDefault: k === 0, hidden: rng.next() < 0.15,
      state: rng.pick(["UP", "UP", "DOWN", "DRAIN"]), maxTimeMin: rng.pick([undefined, 60, 1440]), totalNodes: list.length,
    }));
  }
  for (const nd of nodes) nd.partitions = partitions.filter((p) => p.nodes.split(",").includes(nd.name)).map((p) => p.name);
  return { nodes, partitions };
}

function commandLine(rng: Rng, c: { nodes: Node[]; partitions: Partition[] }): { argv: string[]; env: Record<string, string> } {
  const argv: string[] = [];
  const env: Record<string, string> = {};
  for (const flag of ["-N", "-l", "-s", "-e", "-a", "-h", "-r", "-d", "-R", "-T", "--json"]) if (rng.next() < (flag.startsWith("--") || flag === "-T" ? 0.03 : 0.12)) argv.push(flag);
  if (rng.next() < 0.2) argv.push("-p", rng.pick(c.partitions).name);
  if (rng.next() < 0.15) argv.push("-t", rng.pick(["idle", "alloc", "drain", "down", "mix,idle", "responding"]));
  if (rng.next() < 0.15) argv.push("-n", rng.pick(c.nodes).name);
  if (rng.next() < 0.15) argv.push("-S", rng.pick(["P", "-N", "t,N", "#P,-t", "c"]));
  const r = rng.next();
  if (r < 0.3) argv.push("-o", Array.from({ length: rng.int(1, 5) }, () => `%${rng.next() < 0.3 ? String(rng.int(3, 12)) : ""}${rng.pick(LETTERS)}`).join(" "));
  else if (r < 0.45) argv.push("-O", Array.from({ length: rng.int(1, 4) }, () => `${rng.pick(NAMES)}${rng.next() < 0.3 ? `:${rng.int(4, 14)}` : ""}`).join(","));
  else if (r < 0.5) env.SINFO_FORMAT = "%P %D %t %N";
  if (rng.next() < 0.05) env.SLURM_TIME_FORMAT = rng.pick(["standard", "%s", "relative"]);
  if (rng.next() < 0.05) env.SINFO_SORT = "-P";
  if (rng.next() < 0.05) env.SINFO_PARTITION = rng.pick(c.partitions).name;
  return { argv, env };
}

/**
 * A controller that renders sinfo_view as the real one does (ctld/service.ts), counting what it
 * rendered and every call; `zone`: the time zone it names for local times (the real one: its own).
 */
function renderingPort(base: CliPort, rendered: { count: number; calls?: number }, zone = "UTC"): CliPort {
  return {
    ...base,
    ctl: {
      ...base.ctl,
      listNodes: async (req = {}) => {
        rendered.calls = (rendered.calls ?? 0) + 1;
        const answer = await base.ctl.listNodes(req);
        const view = (req as { sinfoView?: string }).sinfoView ?? "";
        const made = view === "" ? undefined : renderSinfoView(view, answer);
        if (made === undefined) return answer;
        rendered.count++;
        return { nodes: [], partitions: [], licenses: [], now: answer.now, downSpans: [], sinfoText: made.text, ...(made.localTime ? { sinfoTextZone: zone } : {}) };
      },
    },
  };
}

describe("sinfo rendered by the controller", () => {
  it(`prints what sinfo prints from the nodes (${SEEDS.length} seeds)`, async () => {
    const rendered = { count: 0 };
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(rng);
        for (let k = 0; k < 4; k++) {
          const { argv, env } = commandLine(rng, c);
          const world = { ...c, now: NOW, env };
          const plain = await sinfoMain([...argv], fakePort(world));
          const served = await sinfoMain([...argv], renderingPort(fakePort(world), rendered));
          expect({ argv, env, out: served }).toEqual({ argv, env, out: plain });
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/squeue-sinfo/sinfo-view.test.ts): ${String(error)}`);
      }
    }
    // the controller's path was taken for most lines, not only its fall-backs
    if (SEEDS.length >= 100) expect(rendered.count).toBeGreaterThan(SEEDS.length * 2);
  });

  it("renders -R's local times in its zone; sinfo in another zone asks for the nodes and prints its own", async () => {
    const reasonTime = NOW - 3600;
    const world = {
      nodes: [node({ name: "n1", state: "IDLE", stateFlags: ["DRAIN"], reason: "maint", reasonUser: "root", reasonTime })],
      partitions: [partition({ name: "p", nodes: "n1", isDefault: true })], now: NOW, env: {},
    };
    const plain = await sinfoMain(["-R"], fakePort(world));
    expect(plain.stdout).toContain("maint");
    const same = { count: 0 };
    expect(await sinfoMain(["-R"], renderingPort(fakePort(world), same, "UTC"))).toEqual(plain);
    expect(same).toEqual({ count: 1, calls: 1 });
    // a controller in another zone: its text is not used, the nodes are asked for and rendered here
    const other = { count: 0 };
    expect(await sinfoMain(["-R"], renderingPort(fakePort(world), other, "Asia/Tokyo"))).toEqual(plain);
    expect(other).toEqual({ count: 1, calls: 2 });
    // a SLURM_TIME_FORMAT style is the reader's: no view is sent at all
    const styled = { count: 0 };
    const withStyle = { ...world, env: { SLURM_TIME_FORMAT: "%s" } };
    expect(await sinfoMain(["-R"], renderingPort(fakePort(withStyle), styled))).toEqual(await sinfoMain(["-R"], fakePort(withStyle)));
    expect(styled).toEqual({ count: 0, calls: 1 });
  });

  it("leaves JSON, reservations, time styles and what it cannot read to sinfo", () => {
    const input = { nodes: [node({ name: "n1" })], partitions: [partition({ name: "p", nodes: "n1", isDefault: true })] };
    const view = (argv: string[], env: Record<string, string> = {}) => JSON.stringify({ argv, env });
    // the time style is process-wide: the commands above (this test's "controller" shares their process) may have left one
    useTimeFormat(undefined, NOW);
    expect(renderSinfoView(view([]), input)?.text).toContain("n1");
    expect(renderSinfoView(view([]), input)?.localTime).toBe(false);
    expect(renderSinfoView(view(["-R"]), input)?.localTime).toBe(true);
    expect(renderSinfoView(view(["-o", "%H %N"]), input)?.localTime).toBe(true);
    expect(renderSinfoView(view(["-o", "%H %N"], { SLURM_TIME_FORMAT: "relative" }), input)).toBeUndefined();
    expect(renderSinfoView(view(["-o", "%N"], { SLURM_TIME_FORMAT: "relative" }), input)?.localTime).toBe(false);
    expect(renderSinfoView(view(["--json"]), input)).toBeUndefined();
    expect(renderSinfoView(view(["-T"]), input)).toBeUndefined();
    expect(renderSinfoView(view(["--bogus"]), input)).toBeUndefined();
    expect(renderSinfoView("not json", input)).toBeUndefined();
    expect(renderSinfoView(JSON.stringify({ argv: [1] }), input)).toBeUndefined();
    expect(renderSinfoView("null", input)).toBeUndefined();
  });
});
