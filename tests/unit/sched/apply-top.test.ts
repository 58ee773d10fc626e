/**
 * `scontrol top JOB_LIST` (sched/model/apply-top.ts). The expectations are the 22.05 oracle's
 * answers to the same sequence: root's jobs, pending on --begin=now+1hour (so only nice tells
 * them apart: a..d with nice 0,10,20,5 showed priorities 11156,11146,11136,11151), the nice
 * values squeue showed after each `scontrol top`.
 */
import { describe, expect, it } from "vitest";
import { ALICE, CONF, ROOT, cluster, spec, submit } from "./builders.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";
import { explainPriority, priorityContext } from "../../../src/sched/plan/priority.ts";

const MULTIFACTOR = `${CONF}PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\nPriorityWeightJobSize=1000\nPriorityWeightPartition=1000\n`;
const AT = 100;

const top = (list: string, by: Requester = ROOT, at = AT) =>
  ({ v: 1 as const, type: "updateJob" as const, at, jobIds: list.split(","), action: "top", fields: {}, by });

function setup(nices: number[], partition = "debug", conf = MULTIFACTOR) {
  const c = cluster(conf);
  const ids = nices.map((nice) => c.run(submit(spec({ nice, beginTime: AT + 3600, partition }))).ids[0] as number);
  const add = (nice: number, over: Partial<ReturnType<typeof spec>> = {}) =>
    c.run(submit(spec({ nice, beginTime: AT + 3600, partition, ...over }))).ids[0] as number;
  const nice = (...jobs: number[]) => jobs.map((id) => c.state.jobs.get(id)!.info.nice);
  const prio = (id: number) => explainPriority(c.state.jobs.get(id)!, priorityContext(c.state, AT, c.state.config.sched)).priority;
  return { c, ids, add, nice, prio };
}

describe("scontrol top", () => {
  it("gives the listed jobs the top priorities and takes them from the user's other jobs, as 22.05", () => {
    const { c, ids, nice, prio } = setup([0, 10, 20, 5]);
    const [a, b, cc, d] = ids as [number, number, number, number];
    const sum = () => ids.reduce((s, id) => s + prio(id), 0);
    const before = sum();
    expect(c.run(top(`${cc}`)).items).toEqual([{ id: `${cc}`, error: "", errorCode: 0 }]);
    expect(nice(a, b, cc, d)).toEqual([6, 17, 0, 12]);
    expect(sum()).toBe(before);
    // the shown priority follows the nice at once
    expect(c.state.jobs.get(a)!.info.priority).toBe(prio(a));
    c.run(top(`${b},${a}`));
    expect(nice(a, b, cc, d)).toEqual([6, 0, 8, 21]);
    // a job below the listed ones gives too
    c.run(top(`${cc}`));
    expect(nice(a, b, cc, d)).toEqual([8, 3, 0, 24]);
    // a listed job may lose priority to take its slot
    c.run(top(`${d},${cc}`));
    expect(nice(a, b, cc, d)).toEqual([18, 14, 3, 0]);
    expect(sum()).toBe(before);
  });

  it("takes the group from the first listed job; equal top slots go down by one", () => {
    const { c, ids, add, nice } = setup([18, 14, 3, 0]);
    const [a, b, cc, d] = ids as [number, number, number, number];
    const e = add(0, { partition: "gpu" });
    // e first: no other job of its partition, nothing changes
    c.run(top(`${e},${a}`));
    expect(nice(a, b, cc, d, e)).toEqual([18, 14, 3, 0, 0]);
    c.run(top(`${a},${e}`));
    expect(nice(a, b, cc, d, e)).toEqual([0, 19, 9, 6, 1]);
    const f = add(0);
    c.run(top(`${b},${cc}`));
    expect(nice(a, b, cc, d, e, f)).toEqual([9, 0, 1, 15, 1, 9]);
  });

  it("gives back what the listed jobs lost, to the last jobs by id (C's remainder)", () => {
    const { c, ids, nice } = setup([8, 10, 11, 5, 0, 0]);
    const [a, b, cc, d, f, g] = ids as [number, number, number, number, number, number];
    c.run(top(`${f},${g}`));
    expect(nice(a, b, cc, d, f, g)).toEqual([8, 10, 11, 4, 0, 1]);
  });

  it("refuses unknown ids, held or started jobs alone, and users who are not operators", () => {
    const { c, ids, add, nice } = setup([0, 10, 20]);
    const [a, b, cc] = ids as [number, number, number];
    const held = add(0, { hold: true });
    expect(c.run(top(`${cc},999`)).items).toEqual([{ id: `${cc},999`, error: "Invalid job id specified", errorCode: 2017 }]);
    expect(nice(a, b, cc)).toEqual([0, 10, 20]);
    expect(c.run(top(`${held}`)).items[0]?.error).toBe("Job is in held state, pending scheduler release");
    expect(c.run(top(`${cc}`, ALICE)).items[0]?.error).toBe("Access/permission denied");
    expect(c.run(top("999", ALICE)).items[0]?.error).toBe("Access/permission denied");
    c.state.jobs.get(a)!.info.state = "RUNNING";
    expect(c.run(top(`${a}`)).items[0]?.error).toBe("Job is no longer pending execution");
    // in a longer list they are passed over
    expect(c.run(top(`${a},${held},${cc}`)).items[0]?.error).toBe("");
    expect(nice(b, cc)).toEqual([20, 10]);
  });

  it("under priority/basic moves the stored priority with the nice", () => {
    const { c, ids, nice } = setup([0, 10], "debug", CONF);
    const [a, b] = ids as [number, number];
    const pa = c.state.jobs.get(a)!.info.priority;
    const pb = c.state.jobs.get(b)!.info.priority;
    c.run(top(`${b}`));
    expect(c.state.jobs.get(b)!.info.priority).toBe(pa);
    expect(c.state.jobs.get(a)!.info.priority).toBe(pb);
    expect(nice(a, b)).toEqual([pa - pb, 10 - (pa - pb)]);
  });
});
