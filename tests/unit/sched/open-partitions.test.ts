/**
 * The main pass's early stop (plan/open-partitions.ts) with jobs of several partitions: a list is
 * closed once each partition it names is blocked, so one `-p a,b` job does not keep the pass
 * examining the whole queue.
 */
import { describe, expect, it } from "vitest";
import { OpenPartitions } from "../../../src/sched/plan/open-partitions.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { cluster, spec, submit } from "./builders.ts";

describe("OpenPartitions", () => {
  it("closes a partition when blocked or when its last job is taken", () => {
    const open = new OpenPartitions(new Map([["a", 2], ["b", 1]]));
    open.take("b");
    expect(open.allClosed()).toBe(false);
    open.take("a");
    open.block("a");
    expect(open.closed("a")).toBe(true);
    expect(open.allClosed()).toBe(true);
  });

  it("closes a list only once every partition it names is blocked", () => {
    const open = new OpenPartitions(new Map([["a", 1], ["a,b", 3]]));
    open.block("a");
    expect(open.closed("a,b")).toBe(false);
    expect(open.allClosed()).toBe(false);
    open.block("b");
    expect(open.closed("a,b")).toBe(true);
    expect(open.allClosed()).toBe(true);
    // blocking again changes nothing
    open.block("b");
    expect(open.allClosed()).toBe(true);
  });

  it("a list whose jobs are all taken no longer keeps the pass open", () => {
    const open = new OpenPartitions(new Map([["a,b", 1]]));
    open.take("a,b");
    expect(open.allClosed()).toBe(true);
  });
});

describe("early stop with a job of several partitions in the queue", () => {
  it("stops once both partitions are blocked, as without the list (sched/builtin)", () => {
    const c = cluster();
    // fill debug and gpu, then queue: one list job and many single-partition jobs behind it
    c.run(submit(spec({ partition: "debug", nodesMin: 6, exclusive: true, timeLimitMin: 60 })));
    c.run({ v: 1, type: "startJobs", at: 10, decisions: schedule(c.state, 10).decisions });
    c.run(submit(spec({ partition: "debug,gpu", timeLimitMin: 10 }), 11));
    for (let i = 0; i < 50; i++) c.run(submit(spec({ partition: "debug", timeLimitMin: 10 }), 12 + i));
    const builtin = { ...c.state.config.sched, schedulerType: "sched/builtin" as const };
    const r = schedule(c.state, 100, builtin);
    expect(r.decisions).toHaveLength(0);
    // the list job blocks debug and gpu: nothing behind it is examined
    expect(r.stats.mainExamined).toBe(1);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reasons.get(3)).toBe("Priority");
  });
});
