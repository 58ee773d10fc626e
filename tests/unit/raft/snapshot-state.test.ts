/**
 * @module tests/unit/raft/snapshot-state
 * Controller state -> SQLite image -> state: a restored replica that replays the same log
 * tail through apply() ends exactly where one that applied everything ends.
 */
import { describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { encodePart, encodeSnapshot, restoreSnapshot, snapshotIndex } from "../../../src/raft/snapshot.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

/** Every field but the configuration, Maps and Sets included: a field the snapshot forgets shows here. */
const comparable = (s: ClusterState) => {
  const { config: _config, topology: _topology, ...logged } = s;
  return encodePart(logged);
};

describe("controller snapshot", () => {
  it("restores jobs, GPU allocations and counters, then replays a tail to the same state", () => {
    const full = cluster();
    for (let i = 0; i < 6; i++) full.run(submit(spec({ gresPerNode: i % 2 ? [{ name: "gpu", type: "", count: 2 }] : [] }), 10 + i));
    const r = schedule(full.state, 20);
    full.run({ v: 1, type: "startJobs", at: 20, decisions: r.decisions });
    // Accounting records and reservations are log-derived state too.
    const root = { uid: 0, gid: 0, user: "root", group: "root" };
    full.run({ v: 1, type: "acct", at: 21, by: root, request: { action: "add", entity: "account", names: ["physics"], where: {}, set: { fairshare: "5" } } });
    full.run({ v: 1, type: "reservation", at: 22, action: "create", name: "maint", fields: { nodes: "n1", starttime: "100", duration: "60", users: "root" }, by: root });
    expect(full.state.acct.accounts.has("physics")).toBe(true);
    expect(full.state.reservations.has("maint")).toBe(true);
    const image = encodeSnapshot(full.state, 42);
    expect(snapshotIndex(image)).toBe(42);
    // The image is a plain SQLite database.
    const db = Database.deserialize(image);
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs").get()?.n).toBe(6);
    db.close();

    const restored = cluster(undefined, false);
    expect(restoreSnapshot(restored.state, image)).toBe(42);
    expect(comparable(restored.state)).toBe(comparable(full.state));
    const tail = [submit(spec(), 30), { v: 1 as const, type: "jobEnded" as const, at: 31, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "" }];
    for (const c of tail) {
      full.run(c);
      restored.run(c);
    }
    expect(comparable(restored.state)).toBe(comparable(full.state));
    expect(restored.state.nextJobId).toBe(8);
  });

  it("refuses an image that is not a snapshot", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE meta (key TEXT, value TEXT)");
    const bytes = db.serialize();
    db.close();
    expect(() => restoreSnapshot(cluster(undefined, false).state, bytes)).toThrow(/state row/);
  });
});
