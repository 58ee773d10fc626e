/**
 * @module tests/unit/raft/apply-failure
 * Issue 14 part 2: a committed entry that the application cannot apply must not wedge
 * the cluster. Three in-process replicas run Spur's real apply() over their own
 * ClusterState; the log gets an entry whose application throws (a planted poison, as a
 * bug would), a Spur command apply() refuses (APPLY_FAILED) and the array-cancel race.
 * Every replica skips the same entries, goes on, and ends with an equal state; a
 * replica restarted over its stored log replays past them to the same state. On simulated
 * time (driver-world.ts: SEED=n replays a run).
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { type RaftDriver, createRaftDriver } from "../../../src/raft/driver.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import type { Message } from "../../../src/raft/core/index.ts";
import { APPLY_FAILED, apply, type ApplyResult } from "../../../src/sched/model/apply.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { canonical } from "../../sim/controller/canonical.ts";
import { type World, createWorld } from "./driver-world.ts";

interface Replica {
  id: number;
  driver: RaftDriver;
  state: ClusterState;
  storage: MemoryStorage;
  /** Log indexes the driver reported as skipped (onEntrySkipped: the controller counts them for sdiag). */
  skipped: number[];
}

const POISON = { poison: true };

function replica(w: World, id: number, storage: MemoryStorage, deliver: (m: Message[]) => void): Replica {
  const r: Replica = { id, storage, skipped: [], state: cluster(undefined, false).state, driver: undefined as unknown as RaftDriver };
  r.driver = createRaftDriver(
    {
      id, storage, rng: createRng(w.seed * 31 + id), send: deliver, clock: w.clock,
      // The poison throws before it changes anything, as apply()'s validate-then-mutate rule makes every Spur command do.
      applyCommand: (c) => {
        if ((c as typeof POISON).poison) throw new Error("planted: this entry cannot be applied");
        return apply(r.state, c as Command);
      },
      restore: () => undefined,
      takeSnapshot: () => new Uint8Array(),
      onServing: () => undefined,
      onEntrySkipped: (index) => r.skipped.push(index),
    },
    { tickMs: 5, snapshotEveryEntries: 1_000_000 },
  );
  return r;
}

const cancel = (ids: string[], at: number): Command => ({
  v: 1, type: "cancel", at, signal: 0, batchOnly: false, by: ROOT,
  filter: { jobIds: ids, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" },
});

describe("raft driver: a committed entry that cannot be applied", () => {
  it("is skipped on every replica; the replicas go on, agree, and a restart replays past it", async () => {
    const w = createWorld(41);
    const ids = [1, 2, 3];
    const replicas: Replica[] = [];
    const deliver = (msgs: Message[]) => {
      for (const m of msgs) w.clock.setTimeout(() => replicas.find((r) => r.id === m.to)?.driver.receive([m]), w.rng.int(1, 3));
    };
    for (const id of ids) replicas.push(replica(w, id, MemoryStorage.bootstrap(ids), deliver));
    for (const r of replicas) r.driver.start();
    try {
      await w.until(() => replicas.some((r) => r.driver.isServing()), 5000);
      const leader = replicas.find((r) => r.driver.isServing()) as Replica;
      const propose = (c: unknown) => w.settle(leader.driver.propose(c) as Promise<ApplyResult>);
      for (const node of leader.state.nodes.values()) await propose({ v: 1, type: "registerNode", at: 1, node: { ...node.info }, runningJobIds: [] });
      const [arrayId] = (await propose(submit(spec({ array: "0-3" }), 10))).ids;
      // The race of issue 14: a pass computed before the cancel, committed after it.
      const pass = schedule(leader.state, 10);
      await propose(cancel([`${arrayId}_0`, `${arrayId}_1`], 11));
      const started = await propose({ v: 1, type: "startJobs", at: 12, decisions: pass.decisions });
      expect(started.ids.length).toBe(2);
      await expect(propose(POISON)).rejects.toThrow(/could not be applied/);
      const refused = await propose({ v: 1, type: "submit", at: 13, spec: null, by: ROOT, priority: 0 } as unknown as Command);
      expect(refused.errorCode).toBe(APPLY_FAILED);
      const after = await propose(submit(spec(), 14));
      expect(after.error).toBe("");
      const last = leader.driver.status().lastIndex;
      await w.until(() => replicas.every((r) => r.driver.status().applied >= last), 5000);
      const texts = replicas.map((r) => canonical(r.state));
      expect(new Set(texts).size).toBe(1);
      expect(replicas.map((r) => r.driver.applyFailures())).toEqual([1, 1, 1]);
      expect(new Set(replicas.map((r) => JSON.stringify(r.skipped))).size).toBe(1);
      expect(leader.skipped.length).toBe(1);
      // Restart one replica over its stored log, with a fresh state: it replays past both bad entries.
      const old = replicas.find((r) => r !== leader) as Replica;
      old.driver.stop();
      const again = replica(w, old.id, old.storage, deliver);
      replicas[replicas.indexOf(old)] = again;
      again.driver.start();
      await w.until(() => again.state.appliedIndex === leader.state.appliedIndex, 5000);
      expect(canonical(again.state)).toBe(canonical(leader.state));
      expect(again.driver.applyFailures()).toBe(1);
    } finally {
      for (const r of replicas) r.driver.stop();
    }
  });
});
