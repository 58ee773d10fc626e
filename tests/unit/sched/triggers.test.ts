/**
 * strigger in the replicated state: set/clear through apply() with Slurm's permissions and
 * refusals, node edges pulling triggers, the due check (fini, time with a negative offset,
 * idle), firing (purged unless PERM, once per event), and the snapshot keeping the table.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { dueTriggers, type TriggerSpec } from "../../../src/sched/model/triggers.ts";
import type { Command, Requester } from "../../../src/sched/model/commands.ts";
import { triggerView, triggerArgv } from "../../../src/ctld/trigger-run.ts";
import { ALICE, ROOT, cluster, spec, submit } from "./builders.ts";

const BOB: Requester = { uid: 1001, gid: 1001, user: "bob", group: "bob" };

const setCmd = (s: Partial<TriggerSpec>, by: Requester = ROOT, at = 50, slurmUid = 0): Command => ({
  v: 1, type: "trigger", at, action: "set", by, slurmUid,
  spec: { resType: "node", resId: "*", types: ["down"], offsetSec: 0, perm: false, program: "/bin/true", ...s },
});
const clearCmd = (selector: { id?: number; jobId?: number; uid?: number }, by: Requester = ROOT): Command => ({
  v: 1, type: "trigger", at: 60, action: "clear", selector, by, slurmUid: 0,
});

function runningJob(by: Requester = ALICE, timeLimitMin = 10) {
  const c = cluster();
  const [id] = c.run(submit(spec({ timeLimitMin }), 10, by)).ids;
  c.run({ v: 1, type: "startJobs", at: 100, decisions: schedule(c.state, 100).decisions });
  return { c, id: id ?? 0 };
}

describe("strigger --set / --clear through apply()", () => {
  it("numbers triggers from 1 and refuses an exact duplicate (a different flag or program is not one)", () => {
    const c = cluster();
    expect(c.run(setCmd({})).ids).toEqual([1]);
    expect(c.run(setCmd({})).error).toBe("Duplicate event trigger");
    expect(c.run(setCmd({ perm: true })).ids).toEqual([2]);
    expect(c.run(setCmd({ program: "/bin/echo" })).ids).toEqual([3]);
    expect(c.state.triggers.list.map((t) => t.id)).toEqual([1, 2, 3]);
  });

  it("lets only root or the controller's user set node triggers; a job's owner may set its job's", () => {
    const { c, id } = runningJob(ALICE);
    expect(c.run(setCmd({}, ALICE)).error).toBe("Access/permission denied");
    expect(c.run(setCmd({}, ALICE, 50, ALICE.uid)).ids).toEqual([1]); // spurctld runs as alice
    expect(c.run(setCmd({ resType: "job", resId: String(id), types: ["fini"] }, ALICE)).ids).toEqual([2]);
    expect(c.run(setCmd({ resType: "job", resId: String(id), types: ["fini"] }, BOB)).error).toBe("Access/permission denied");
    // a controller not running as root runs programs only as itself: nobody else may set one
    expect(c.run(setCmd({ resType: "job", resId: String(id), types: ["time"] }, ALICE, 50, 999)).error).toBe("Access/permission denied");
  });

  it("answers Slurm's words for an unknown or finished job", () => {
    const { c, id } = runningJob();
    expect(c.run(setCmd({ resType: "job", resId: "999", types: ["fini"] })).error).toBe("Invalid job id specified");
    c.run({ v: 1, type: "jobEnded", at: 200, jobId: id, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect(c.run(setCmd({ resType: "job", resId: String(id), types: ["fini"] })).error).toBe("Job/step already completing or completed");
  });

  it("clears by id, job or user; another user's trigger is refused; none matching is ESRCH", () => {
    const { c, id } = runningJob(ALICE);
    c.run(setCmd({ resType: "job", resId: String(id), types: ["fini"] }, ALICE));
    c.run(setCmd({ resType: "job", resId: String(id), types: ["time"] }));
    c.run(setCmd({}));
    expect(c.run(clearCmd({ id: 99 })).error).toBe("No such process");
    expect(c.run(clearCmd({ id: 3 }, ALICE)).error).toBe("Access/permission denied");
    expect(c.run(clearCmd({ jobId: id }, ALICE)).error).toBe("Access/permission denied"); // trigger 2 is root's
    expect(c.state.triggers.list.map((t) => t.id)).toEqual([2, 3]); // alice's own one went
    expect(c.run(clearCmd({ uid: 0 })).error).toBe("");
    expect(c.state.triggers.list).toEqual([]);
  });
});

describe("trigger events", () => {
  it("a node going down pulls --down triggers on * and on that node, with the nodes as the argument", () => {
    const c = cluster();
    c.run(setCmd({}));
    c.run(setCmd({ resId: "n[2-3]" }));
    c.run(setCmd({ resId: "n4" }));
    c.run({ v: 1, type: "nodeFail", at: 70, node: "n2", reason: "Not responding" });
    expect(c.state.triggers.list.map((t) => t.pulled)).toEqual([{ at: 70, arg: "n2" }, { at: 70, arg: "n2" }, undefined]);
    const due = dueTriggers(c.state.triggers, triggerView(c.state), 70);
    expect(due.map((d) => [d.id, d.arg])).toEqual([[1, "n2"], [2, "n2"]]);
    const fired = c.run({ v: 1, type: "triggersFired", at: 70, fired: due });
    expect(fired.events.map((e) => (e.type === "runTrigger" ? [e.trigger.id, e.arg] : e.type))).toEqual([[1, "n2"], [2, "n2"]]);
    expect(c.state.triggers.list.map((t) => t.id)).toEqual([3]); // purged: not PERM
  });

  it("up and drained come from the node's flags; a PERM trigger stays and fires again at the next event", () => {
    const c = cluster();
    c.run(setCmd({ types: ["up"], perm: true }));
    c.run(setCmd({ types: ["drained"] }));
    const down = (at: number, state = "DOWN"): Command => ({ v: 1, type: "updateNode", at, nodes: ["n1"], state, reason: "x", by: ROOT });
    c.run(down(80));
    expect(dueTriggers(c.state.triggers, triggerView(c.state), 80)).toEqual([]);
    c.run(down(81, "RESUME"));
    let due = dueTriggers(c.state.triggers, triggerView(c.state), 81);
    expect(due.map((d) => [d.id, d.arg])).toEqual([[1, "n1"]]);
    c.run({ v: 1, type: "triggersFired", at: 81, fired: due });
    expect(c.run({ v: 1, type: "triggersFired", at: 81, fired: due }).events).toEqual([]); // a repeated command runs nothing twice
    c.run(down(90, "DRAIN"));
    c.run(down(91));
    c.run(down(92, "RESUME"));
    due = dueTriggers(c.state.triggers, triggerView(c.state), 92);
    expect(due.map((d) => [d.id, d.arg, d.eventAt])).toEqual([[1, "n1", 92], [2, "n1", 90]]);
  });

  it("a job's --down trigger fires when a node it holds goes down, with the job id", () => {
    const { c, id } = runningJob();
    const node = c.state.jobs.get(id)?.info.alloc[0]?.node ?? "";
    c.run(setCmd({ resType: "job", resId: String(id), types: ["down"] }));
    c.run({ v: 1, type: "nodeFail", at: 150, node, reason: "Not responding" });
    expect(dueTriggers(c.state.triggers, triggerView(c.state), 150).map((d) => d.arg)).toEqual([String(id)]);
  });

  it("--fini is due when the job ended (plus the offset), --time before the limit by a negative offset", () => {
    const { c, id } = runningJob(ROOT, 10);
    c.run(setCmd({ resType: "job", resId: String(id), types: ["fini"], offsetSec: 30 }));
    c.run(setCmd({ resType: "job", resId: String(id), types: ["time"], offsetSec: -300 }));
    const due = (now: number) => dueTriggers(c.state.triggers, triggerView(c.state), now).map((d) => d.id);
    expect(due(100 + 600 - 301)).toEqual([]);
    expect(due(100 + 600 - 300)).toEqual([2]);
    c.run({ v: 1, type: "jobEnded", at: 500, jobId: id, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    expect(due(529)).toEqual([]);
    expect(due(530)).toEqual([1]);
  });

  it("--idle waits for a node idle --offset seconds", () => {
    const c = cluster();
    c.run(setCmd({ resId: "n1", types: ["idle"], offsetSec: 600 }));
    const idleSince = c.state.nodes.get("n1")?.info.lastBusyTime ?? 0;
    expect(dueTriggers(c.state.triggers, triggerView(c.state), idleSince + 599)).toEqual([]);
    expect(dueTriggers(c.state.triggers, triggerView(c.state), idleSince + 600).map((d) => d.arg)).toEqual(["n1"]);
  });

  it("runs the program's own words, then the event's argument", () => {
    expect(triggerArgv("/tmp/x.sh a1 a2", "27")).toEqual(["/tmp/x.sh", "a1", "a2", "27"]);
  });
});
