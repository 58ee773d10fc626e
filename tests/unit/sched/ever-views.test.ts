/**
 * The "ever" views submission checks use (sched/plan/ever-views.ts): the same fits as the
 * scheduler's full views give in "ever" mode, on busy random clusters, while kept views follow
 * every in-place change of a node's configuration, and nobody can write to one.
 */
import { describe, expect, it } from "vitest";
import { everViews, fitsEver, viewTotals } from "../../../src/sched/plan/ever-views.ts";
import { nodeViews } from "../../../src/sched/plan/backfill.ts";
import { fitJob, type NodeView } from "../../../src/sched/plan/fit-node.ts";
import { buildRequest } from "../../../src/sched/plan/request.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { expandHostlist } from "../../../src/compat/hostlist.ts";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import type { ClusterState, JobSpecP } from "../../../src/sched/model/types.ts";
import { ALICE, cluster, spec, submit } from "./builders.ts";

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

/** The views submission checks used before ever-views.ts: the scheduler's, of every node, picked by name. */
function fullViews(state: ClusterState, names: readonly string[]): NodeView[] {
  const all = nodeViews(state, false);
  return names.map((n) => all.get(n)).filter((v) => v !== undefined);
}

/** What an "ever" fit may read of a view (fit-node.ts reads the free fields, users and state only in "now" mode). */
const configured = (v: NodeView) => ({
  name: v.name, cpus: v.cpus, memMiB: v.memMiB, gpuCount: v.gpuCount, gpuModel: v.gpuModel, features: v.features, weight: v.weight,
  gpuLinks: v.gpuLinks, socketCount: v.sockets?.count, gpuSocket: v.sockets?.gpuSocket, threadsPerCore: v.threadsPerCore,
  sockets: v.socketCount, coresPerSocket: v.coresPerSocket, gpuTypes: v.gpuTypes, tmpDiskMib: v.tmpDiskMib, gresTotal: v.gresTotal, order: v.order,
});

function randomConf(rng: Rng): string {
  const lines = ["ClusterName=prop", "DefMemPerCPU=100"];
  const groups = rng.int(1, 4);
  const names: string[] = [];
  for (let g = 0; g < groups; g++) {
    const sockets = rng.pick([1, 2]);
    const cores = rng.pick([2, 4]);
    const threads = rng.pick([1, 2]);
    const gres = rng.pick(["", "", "gpu:a100:4", "gpu:h100:8", "gpu:a100:2,gpu:h100:2", "nvme:2"]);
    const feature = rng.pick(["", "ib", "ib,fast", "fast"]);
    const count = rng.int(1, 4);
    const name = `x${g}n[1-${count}]`;
    names.push(name);
    lines.push([
      `NodeName=${name} CPUs=${sockets * cores * threads} Sockets=${sockets} CoresPerSocket=${cores} ThreadsPerCore=${threads}`,
      `RealMemory=${rng.pick([2000, 8000, 16000])}`, `Weight=${rng.int(1, 3)}`, `TmpDisk=${rng.pick([0, 500])}`,
      gres ? `Gres=${gres}` : "", feature ? `Feature=${feature}` : "",
    ].filter(Boolean).join(" "));
  }
  if (lines.some((l) => l.includes("nvme"))) lines.splice(1, 0, "GresTypes=gpu,nvme");
  lines.push(`PartitionName=all Nodes=${names.join(",")} Default=YES MaxTime=INFINITE`);
  lines.push(`PartitionName=some Nodes=${names[names.length - 1]} MaxTime=INFINITE`);
  return `${lines.join("\n")}\n`;
}

function randomAsk(rng: Rng): Partial<JobSpecP> {
  const ask: Partial<JobSpecP> = { ntasks: rng.int(1, 12) };
  if (rng.next() < 0.4) ask.nodesMin = rng.int(1, 4);
  if (rng.next() < 0.3) ask.cpusPerTask = rng.int(1, 4);
  if (rng.next() < 0.3) ask.gpusPerNode = rng.pick(["1", "a100:2", "h100:1", "4"]);
  if (rng.next() < 0.2) ask.constraint = rng.pick(["ib", "fast", "ib&fast"]);
  if (rng.next() < 0.2) ask.exclusive = true;
  if (rng.next() < 0.15) ask.contiguous = true;
  if (rng.next() < 0.2) ask.memPerNodeMib = rng.pick([1000, 9000, 20000]);
  if (rng.next() < 0.1) ask.tmpMib = rng.pick([100, 1000]);
  if (rng.next() < 0.1) ask.gresPerNode = [{ name: "nvme", type: "", count: 1 }];
  return ask;
}

describe("ever views (seeded)", () => {
  it("give every 'ever' fit the scheduler's full views give, on busy clusters, as nodes change", () => {
    const seeds = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: 120 }, (_, i) => i + 1);
    let started = 0;
    let fits = 0;
    let misses = 0;
    for (const seed of seeds) {
      const rng = createRng(seed);
      const c = cluster(randomConf(rng));
      for (let round = 0; round < 4; round++) {
        // busy: random jobs started by the scheduler itself
        for (let j = 0; j < rng.int(0, 6); j++) c.run(submit(spec(randomAsk(rng)), 10 + round, ALICE));
        const r = schedule(c.state, 20 + round);
        if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: 20 + round, decisions: r.decisions });
        started += r.decisions.length;
        // and now and then an administrator's feature change, in place
        if (rng.next() < 0.3) {
          const node = rng.pick([...c.state.nodes.keys()]);
          c.run({ v: 1, type: "updateNode", at: 30, nodes: [node], state: "", reason: "", by: { uid: 0, gid: 0, user: "root", group: "root" }, features: rng.pick(["ib", "fast", "ib,fast", ""]) });
        }
        for (const p of c.state.partitions) {
          const where = `SEED=${seed} round ${round} partition ${p.info.name}`;
          const ever = everViews(c.state, p.nodeNames);
          const full = fullViews(c.state, p.nodeNames);
          expect(ever.map(configured), where).toEqual(full.map(configured));
          expect(viewTotals(ever), where).toEqual({
            cpus: full.reduce((n, v) => n + v.cpus, 0), maxCpus: Math.max(0, ...full.map((v) => v.cpus)),
            maxMemMiB: Math.max(0, ...full.map((v) => v.memMiB)), maxTmpDiskMib: Math.max(0, ...full.map((v) => v.tmpDiskMib ?? 0)),
          });
          for (let k = 0; k < 8; k++) {
            const ask = randomAsk(rng);
            const req = buildRequest(spec(ask), c.state.config, expand);
            if (typeof req === "string") continue;
            const fit = fitJob(req, ever, "ever");
            expect(fit, `${where} ask ${JSON.stringify(ask)}`).toEqual(fitJob(req, full, "ever"));
            // the kept answer (asked twice: the second comes from the table)
            expect(fitsEver(req, ever), `${where} ask ${JSON.stringify(ask)}`).toBe(fit !== undefined);
            expect(fitsEver(req, ever), `${where} ask ${JSON.stringify(ask)} (kept)`).toBe(fit !== undefined);
            if (fit === undefined) misses++;
            else fits++;
          }
        }
      }
    }
    // the generated cases are worth something only if clusters got busy and asks both fit and failed
    if (!process.env.SEED) expect({ started: started > 200, fits: fits > 500, misses: misses > 200 }).toEqual({ started: true, fits: true, misses: true });
  });
});

describe("ever views kept between calls", () => {
  it("follow a node's configuration changed in place, and its place in the cluster", () => {
    const c = cluster();
    const names = c.state.partitions[0]?.nodeNames ?? [];
    const before = everViews(c.state, names);
    expect(everViews(c.state, names)[0]).toBe(before[0]); // unchanged: the kept view itself
    const n1 = c.state.nodes.get("n1");
    if (n1 === undefined) throw new Error("n1");
    n1.info.features = "ib";
    n1.info.cpus = 2;
    const wide = buildRequest(spec({ ntasks: 2, constraint: "ib" }), c.state.config, expand);
    if (typeof wide === "string") throw new Error(wide);
    expect(fitsEver(wide, before)).toBe(false); // no node has ib yet
    const again = everViews(c.state, names);
    expect(again).not.toBe(before); // a changed view: a new array, so no kept answer applies to it
    expect(fitsEver(wide, again)).toBe(true);
    const after = again.find((v) => v.name === "n1");
    expect(after?.features).toEqual(["ib"]);
    expect(after?.cpus).toBe(2);
    // a node removed from the cluster's order shifts the others' places (what --contiguous reads)
    c.state.nodes.delete("n1");
    const shifted = everViews(c.state, names);
    expect(shifted.map((v) => v.name)).not.toContain("n1");
    expect(shifted.map((v) => v.order)).toEqual(shifted.map((_, i) => i));
  });

  it("are frozen: a caller that wrote to one would throw", () => {
    const c = cluster();
    const v = everViews(c.state, ["g1"])[0] as NodeView;
    expect(() => {
      v.freeCpus = 0;
    }).toThrow(TypeError);
    expect(() => v.freeGpus.push(1)).toThrow(TypeError);
    expect(() => v.features.push("x")).toThrow(TypeError);
  });
});
