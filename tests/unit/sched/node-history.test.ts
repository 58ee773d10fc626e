/**
 * Node history (sreport's Down): the spans a node spends DOWN or drained, opened and closed by
 * the commands that change its state (scontrol update, a node found silent, a registration
 * after that), split when DOWN becomes DRAIN, bounded per node; and what sreport makes of
 * them (the node's TRES times the overlap with the window, from its registration on).
 */
import { describe, expect, it } from "vitest";
import { MAX_SPANS, noteNodeService } from "../../../src/sched/model/node-history.ts";
import type { NodeRecord } from "../../../src/sched/model/types.ts";
import { downCharges } from "../../../src/compat/format/sreport-down.ts";
import { clusterUsage } from "../../../src/compat/format/sreport.ts";
import { ROOT, cluster } from "./builders.ts";
import { makeJob, makeNode } from "../sacct-scontrol/helpers.ts";

const update = (nodes: string[], state: string, at: number) => ({ v: 1 as const, type: "updateNode" as const, at, nodes, state, reason: "x", by: ROOT });

describe("node history in apply()", () => {
  it("drain, down, resume: one span per state, closed at the resume", () => {
    const c = cluster();
    c.run(update(["n1"], "DRAIN", 100));
    c.run(update(["n1"], "DOWN", 160));
    c.run(update(["n1"], "RESUME", 400));
    c.run(update(["n2"], "DOWN", 500));
    expect(c.state.nodes.get("n1")?.downSpans).toEqual([
      { start: 100, end: 160, state: "DRAIN", reason: "x" }, { start: 160, end: 400, state: "DOWN", reason: "x" },
    ]);
    expect(c.state.nodes.get("n2")?.downSpans).toEqual([{ start: 500, state: "DOWN", reason: "x" }]);
    expect(c.state.nodes.get("n3")?.downSpans).toBeUndefined();
  });

  it("a node found silent is DOWN until it registers again", () => {
    const c = cluster();
    c.run({ v: 1, type: "nodeFail", at: 300, node: "n3", reason: "Not responding" });
    const info = c.state.nodes.get("n3")!.info;
    c.run({ v: 1, type: "registerNode", at: 420, node: { ...info, state: "IDLE" } } as never);
    expect(c.state.nodes.get("n3")?.downSpans).toEqual([{ start: 300, end: 420, state: "DOWN", reason: "Not responding" }]);
  });

  it("keeps at most MAX_SPANS per node, the newest", () => {
    const node = { info: { reason: "r" }, drain: false, down: false } as unknown as NodeRecord;
    for (let i = 0; i < MAX_SPANS + 5; i++) {
      node.drain = true;
      noteNodeService(node, i * 10);
      node.drain = false;
      noteNodeService(node, i * 10 + 5);
    }
    expect(node.downSpans?.length).toBe(MAX_SPANS);
    expect(node.downSpans?.[0]?.start).toBe(50);
  });
});

describe("sreport's Down from the spans", () => {
  const nodes = [makeNode({ name: "n1", cpus: 4, firstRegisteredTime: 1000 }), makeNode({ name: "n2", cpus: 8, gpuCount: 2 })];
  const w = { start: 0, end: 3600 };

  it("charges each node's TRES for the part of its span inside the window and after its registration", () => {
    const spans = [
      { node: "n1", start: 500, end: 1600 }, // counts from n1's registration at 1000: 600 s x 4
      { node: "n2", start: 3000, end: 0 }, // still out at now=3300: 300 s x 8
      { node: "gone", start: 0, end: 3600 },
    ];
    const down = (tres: string, list = spans, now = 3300) => downCharges(nodes, list, [], tres, w, now).down;
    expect(down("cpu")).toBe(600 * 4 + 300 * 8);
    expect(down("gres/gpu")).toBe(300 * 2);
    expect(down("cpu", [{ node: "n2", start: 4000, end: 5000 }], 6000)).toBe(0);
  });

  it("a node down inside a reservation: Down (PLND Down in a MAINT one), taken off the reservation's time", () => {
    const resv = (name: string, flags: string[]) => ({
      name, startTime: 2000, endTime: 3000, nodes: "n2", nodeCount: 1, coreCount: 8, users: ["root"], accounts: [], flags, partition: "", state: "ACTIVE",
    });
    const span = [{ node: "n2", start: 2500, end: 3500 }];
    // 500 s of the span inside the reservation, 500 s after it
    expect(downCharges(nodes, span, [resv("r", [])], "cpu", w, 3600)).toEqual({ down: 8000, plannedDown: 0, resvAllocatedCut: 4000, resvPlannedDownCut: 0 });
    expect(downCharges(nodes, span, [resv("m", ["MAINT"])], "cpu", w, 3600)).toEqual({ down: 4000, plannedDown: 4000, resvAllocatedCut: 0, resvPlannedDownCut: 4000 });
    expect(downCharges(nodes, span, [resv("m", ["MAINT"])], "gres/gpu", w, 3600)).toEqual({ down: 1000, plannedDown: 1000, resvAllocatedCut: 0, resvPlannedDownCut: 0 });
  });

  it("as 22.05's rollup, a reservation holding the node later in the same hour adds the gap to Down (oracle: 5488, not 1920)", () => {
    const maint = { name: "m", startTime: 1432, endTime: 1612, nodes: "n2", nodeCount: 1, coreCount: 8, users: ["root"], accounts: [], flags: ["MAINT"], partition: "", state: "INACTIVE" };
    // drained 100-460, the MAINT reservation from 1432: Down counts 100-1432
    expect(downCharges(nodes, [{ node: "n2", start: 100, end: 460 }], [maint], "cpu", w, 3600).down).toBe((1432 - 100) * 8);
    // in the next hour the reservation is not there: only the span
    expect(downCharges(nodes, [{ node: "n2", start: 100, end: 460 }], [{ ...maint, startTime: 3700, endTime: 3800 }], "cpu", { start: 0, end: 7200 }, 7200).down).toBe(360 * 8);
  });

  it("fits the figures as slurmdbd's rollup does: Down cut first, then PLND Down; Planned beyond the rest is Over Comm", () => {
    const hour = { start: 1000, end: 4600 };
    const job = makeJob({ jobId: 1, numCpus: 2, startTime: 1000, endTime: 4600, eligibleTime: 1000 });
    const waiting = makeJob({ jobId: 2, numCpus: 4, state: "PENDING", eligibleTime: 1000 });
    const maint = { allocated: 0, plannedDown: 1000, names: new Set<string>() };
    // 4 CPUs x 3600 s = 14400: 7200 allocated, 6000 down fits, PLND Down gets the 1200 left, Planned none
    const tight = clusterUsage("c", [job, waiting], 4, hour, 4600, undefined, "cpu", maint, undefined, 6000);
    expect([tight.allocated, tight.down, tight.plannedDown, tight.planned, tight.over, tight.idle]).toEqual([7200, 6000, 1000, 200, 14200, 0]);
    const more = clusterUsage("c", [job], 4, hour, 4600, undefined, "cpu", maint, undefined, 9000);
    expect([more.allocated, more.down, more.plannedDown, more.idle]).toEqual([7200, 7200, 0, 0]);
  });
});
