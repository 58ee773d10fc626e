/**
 * Single-controller restart (issue 14 part 2): the local log is replayed through apply();
 * an entry apply() cannot apply is skipped, logged with its index, and the replay goes on
 * to the same state the controller had before it stopped.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openLogStore } from "../../../src/ctld/log-store.ts";
import { replayLog } from "../../../src/ctld/replay.ts";
import { APPLY_FAILED, apply } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { canonical } from "../../sim/controller/canonical.ts";

describe("single-controller replay", () => {
  it("replays past an entry apply() refuses and past the array-cancel race, to the same state", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-replay-"));
    try {
      const log = openLogStore(join(dir, "state-log.sqlite"));
      const live = cluster(undefined, false);
      const run = (c: Command) => {
        log.append(c);
        return apply(live.state, c);
      };
      for (const node of [...live.state.nodes.values()]) run({ v: 1, type: "registerNode", at: 1, node: { ...node.info }, runningJobIds: [] });
      const [id] = run(submit(spec({ array: "0-3" }))).ids;
      const pass = schedule(live.state, 10);
      run({
        v: 1, type: "cancel", at: 11, signal: 0, batchOnly: false, by: ROOT,
        filter: { jobIds: [`${id}_0`], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" },
      });
      run({ v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
      const bad = run({ v: 1, type: "submit", at: 13, spec: null, by: ROOT, priority: 0 } as unknown as Command);
      expect(bad.errorCode).toBe(APPLY_FAILED);
      const badIndex = log.lastIndex();
      run({ v: 2, type: "fromTheFuture", at: 14 } as unknown as Command);
      run(submit(spec(), 15));
      log.close();
      const reopened = openLogStore(join(dir, "state-log.sqlite"));
      const fresh = cluster(undefined, false);
      const warnings: object[] = [];
      const out = replayLog(fresh.state, reopened.entries(), (o) => warnings.push(o));
      reopened.close();
      expect(out.failed).toEqual([badIndex, badIndex + 1]);
      expect(warnings.length).toBe(2);
      expect(canonical(fresh.state)).toBe(canonical(live.state));
      expect([...fresh.state.jobs.values()].filter((j) => j.info.state === "RUNNING").length).toBe(3);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
