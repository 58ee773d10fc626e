/**
 * Jobs share what they repeat (sched/model/intern.ts): two jobs submitted from the same
 * environment hold one (frozen) environment object and one instance of each repeated string,
 * as they do once restored from a snapshot or after an update; and nothing reads differently:
 * the records equal what was submitted, an update of one job leaves the other as it was.
 */
import { describe, expect, it } from "vitest";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { decodeCommand } from "../../../src/raft/driver/api.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";

const CONF = "ClusterName=i\nDefMemPerCPU=100\nNodeName=c[1-2] CPUs=4 RealMemory=1600\nPartitionName=main Nodes=ALL Default=YES MaxTime=INFINITE\n";

/** A submit as a replica gets it: decoded from the log entry's JSON (every string its own copy). */
function fromLog(s: JobSpecP, at: number): Command {
  return decodeCommand(new TextEncoder().encode(JSON.stringify({ p: "", c: submit(s, at, ALICE) }))) as Command;
}

const ENV = { HOME: "/home/alice", PATH: "/usr/bin:/bin", PROJECT: "/home/alice/proj/data" };
const SCRIPT = "#!/bin/sh\nsrun hostname\n";

describe("jobs share repeated strings and environments", () => {
  it("two jobs from one shell hold one environment and one copy of each string; the records read as submitted", () => {
    const c = cluster(CONF);
    const s = spec({ ntasks: 1, hold: true, env: ENV, script: SCRIPT, workDir: "/home/alice/proj", stdOut: "/home/alice/proj/out-%j.txt" });
    c.run(fromLog(s, 10));
    c.run(fromLog(s, 11));
    const [a, b] = [c.state.jobs.get(1), c.state.jobs.get(2)];
    if (a === undefined || b === undefined) throw new Error("both jobs submitted");
    expect(a.spec.env).toEqual(ENV);
    expect(a.spec.env).toBe(b.spec.env);
    expect(Object.isFrozen(a.spec.env)).toBe(true);
    expect(a.spec.script).toBe(SCRIPT);
    // equal strings are equal whatever their instance: what the interning changes is only visible to memory
    expect(a.spec).toEqual({ ...b.spec, name: a.spec.name });
    expect(a.info.workDir).toBe("/home/alice/proj");

    // an update works on a copy and leaves the other job's (shared) environment as it was
    c.run({ v: 1, type: "updateJob", at: 12, jobIds: ["1"], action: "update", fields: { comment: "moved" }, by: ROOT });
    expect(c.state.jobs.get(1)?.info.comment).toBe("moved");
    expect(c.state.jobs.get(2)?.info.comment).toBe("");
    expect(c.state.jobs.get(1)?.spec.env).toBe(b.spec.env);
    expect(b.spec.env).toEqual(ENV);
  });

  it("environments alike but for one variable in the middle (or its order) stay apart", () => {
    const c = cluster(CONF);
    // the same count, first and last variables: only a full comparison tells them apart
    const base = { HOME: "/home/alice", PATH: "/usr/bin:/bin", LANG: "C.UTF-8", PROJECT: "/home/alice/proj" };
    const middle = { ...base, PATH: "/opt/bin:/usr/bin" };
    const reordered = { HOME: base.HOME, LANG: base.LANG, PATH: base.PATH, PROJECT: base.PROJECT };
    for (const [k, env] of [base, middle, reordered, base].entries()) c.run(fromLog(spec({ ntasks: 1, hold: true, env }), 10 + k));
    const env = (id: number) => c.state.jobs.get(id)?.spec.env;
    expect([env(1), env(2), env(3)]).toEqual([base, middle, reordered]);
    expect(Object.keys(env(3) ?? {})).toEqual(["HOME", "LANG", "PATH", "PROJECT"]);
    expect(env(2)).not.toBe(env(1));
    expect(env(4)).toBe(env(1));
  });

  it("pending jobs share one frozen empty list; starting one gives it its own", () => {
    const c = cluster(CONF);
    c.run(fromLog(spec({ ntasks: 1, env: ENV }), 10));
    c.run(fromLog(spec({ ntasks: 1, env: ENV }), 11));
    const [a, b] = [c.state.jobs.get(1), c.state.jobs.get(2)];
    if (a === undefined || b === undefined) throw new Error("both jobs submitted");
    expect(a.info.alloc).toBe(b.info.alloc);
    expect(Object.isFrozen(a.info.alloc)).toBe(true);
    expect(a.info.steps).toBe(b.info.steps);
    expect(Object.isFrozen(a.info.steps)).toBe(true);
    c.run({ v: 1, type: "startJobs", at: 20, decisions: schedule(c.state, 20).decisions });
    expect([a.info.state, b.info.state]).toEqual(["RUNNING", "RUNNING"]);
    expect(a.info.alloc.map((s) => s.cpus)).toEqual([1]);
    expect(b.info.alloc.map((s) => s.cpus)).toEqual([1]);
    // a step gives its job a list of its own; the other keeps the shared empty one, and the next step joins the first
    c.run({ v: 1, type: "stepCreate", at: 21, jobId: 1, name: "s0", alloc: a.info.alloc, ntasks: 1 });
    c.run({ v: 1, type: "stepCreate", at: 22, jobId: 1, name: "s1", alloc: a.info.alloc, ntasks: 1 });
    expect(a.info.steps.map((s) => s.name)).toEqual(["s0", "s1"]);
    expect(b.info.steps).toEqual([]);
    expect(Object.isFrozen(b.info.steps)).toBe(true);
  });

  it("jobs without an environment share one frozen empty one", () => {
    const c = cluster(CONF);
    c.run(fromLog(spec({ ntasks: 1, hold: true, env: {} }), 10));
    c.run(fromLog(spec({ ntasks: 1, hold: true, env: {} }), 11));
    const [a, b] = [c.state.jobs.get(1)?.spec.env, c.state.jobs.get(2)?.spec.env];
    expect(a).toEqual({});
    expect(a).toBe(b);
    expect(Object.isFrozen(a)).toBe(true);
  });

  it("a restored snapshot's jobs equal the originals and share their environments", () => {
    const c = cluster(CONF);
    const s = spec({ ntasks: 1, hold: true, env: ENV, script: SCRIPT });
    c.run(fromLog(s, 10));
    c.run(fromLog({ ...s, env: { ...ENV, EXTRA: "1" } }, 11));
    c.run(fromLog(s, 12));
    const image = encodeSnapshot(c.state, 3);
    const restored = cluster(CONF, false);
    restoreSnapshot(restored.state, image);
    for (const id of [1, 2, 3]) expect(restored.state.jobs.get(id)).toEqual(c.state.jobs.get(id));
    const env = (id: number) => restored.state.jobs.get(id)?.spec.env;
    expect(env(1)).toBe(env(3));
    expect(env(2)).not.toBe(env(1));
    expect(env(2)).toEqual({ ...ENV, EXTRA: "1" });
  });
});
