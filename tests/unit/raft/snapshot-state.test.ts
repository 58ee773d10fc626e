/**
 * @module tests/unit/raft/snapshot-state
 * Controller state -> snapshot image -> state: a restored replica that replays the same log
 * tail through apply() ends exactly where one that applied everything ends, key order
 * included; format-5 images say their state types version, hold a job a line, and are refused
 * whole when their rows do not match their header; format-2 images (SQLite, written
 * by earlier versions) still restore (format 3: tests/unit/ctld/state-upgrade.test.ts); other
 * bytes are refused.
 */
import { describe, expect, it } from "vitest";
import { Database } from "bun:sqlite";
import { SNAPSHOT_FORMAT, encodePart, encodeSnapshot, encodeSqliteSnapshot, restoreSnapshot, snapshotIndex } from "../../../src/ctld/state-snapshot.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { STATE_TYPES_VERSION } from "../../../src/sched/model/state-types.ts";
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
    // A versioned text header says what follows.
    const header = JSON.parse(new TextDecoder().decode(image.subarray(0, 200)).split("\n")[1] ?? "") as { format: number; jobs: number };
    expect(header).toMatchObject({ format: SNAPSHOT_FORMAT, state: STATE_TYPES_VERSION, jobs: 6 });
    expect(SNAPSHOT_FORMAT).toBe(5);

    const restored = cluster(undefined, false);
    expect(restoreSnapshot(restored.state, image)).toBe(42);
    expect(comparable(restored.state)).toBe(comparable(full.state));
    // Key order too: JSON of the state (and listings built from it) follow it.
    expect(JSON.stringify([...restored.state.jobs.values()])).toBe(JSON.stringify([...full.state.jobs.values()]));
    const tail = [submit(spec(), 30), { v: 1 as const, type: "jobEnded" as const, at: 31, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "" }];
    for (const c of tail) {
      full.run(c);
      restored.run(c);
    }
    expect(comparable(restored.state)).toBe(comparable(full.state));
    expect(restored.state.nextJobId).toBe(8);
  });

  it("restores a format-2 (SQLite) image written by an earlier version", () => {
    const full = cluster();
    for (let i = 0; i < 3; i++) full.run(submit(spec(), 10 + i));
    const old = encodeSqliteSnapshot(full.state, 9);
    expect(snapshotIndex(old)).toBe(9);
    const restored = cluster(undefined, false);
    expect(restoreSnapshot(restored.state, old)).toBe(9);
    expect(comparable(restored.state)).toBe(comparable(full.state));
  });

  it("refuses a newer format, and bytes that are no snapshot", () => {
    const image = encodeSnapshot(cluster().state, 3);
    const text = new TextDecoder().decode(image.subarray(0, 100));
    const newer = new TextEncoder().encode(text.replace(`"format":${SNAPSHOT_FORMAT}`, `"format":${SNAPSHOT_FORMAT + 1}`).split("\n").slice(0, 2).join("\n") + "\n");
    expect(() => restoreSnapshot(cluster(undefined, false).state, newer)).toThrow(`format ${SNAPSHOT_FORMAT + 1}`);
    // records of a state types version this controller does not know yet are refused too
    const newerState = new TextEncoder().encode(text.replace(`"state":${STATE_TYPES_VERSION}`, `"state":${STATE_TYPES_VERSION + 1}`).split("\n").slice(0, 2).join("\n") + "\n");
    expect(() => restoreSnapshot(cluster(undefined, false).state, newerState)).toThrow(`state types version ${STATE_TYPES_VERSION + 1}`);
    expect(() => restoreSnapshot(cluster(undefined, false).state, new TextEncoder().encode("hello"))).toThrow(/not a Spur snapshot/);
  });

  it("refuses an image that is not a snapshot", () => {
    const db = new Database(":memory:");
    db.exec("CREATE TABLE meta (key TEXT, value TEXT)");
    const bytes = db.serialize();
    db.close();
    expect(() => restoreSnapshot(cluster(undefined, false).state, bytes)).toThrow(/state row/);
  });

  it("restores an image without jobs, and refuses one whose job lines do not match its header, leaving the state alone", () => {
    const empty = cluster(undefined, false);
    expect(restoreSnapshot(empty.state, encodeSnapshot(cluster().state, 4))).toBe(4);
    expect(empty.state.jobs.size).toBe(0);

    const full = cluster();
    for (let i = 0; i < 3; i++) full.run(submit(spec(), 10 + i));
    const image = encodeSnapshot(full.state, 7);
    const headerEnd = image.indexOf(10, image.indexOf(10) + 1) + 1;
    const body = new TextDecoder().decode(Bun.zstdDecompressSync(image.subarray(headerEnd)));
    expect(body.split("\n")).toHaveLength(3 + 3); // parts, nodes, job table, a line per job
    const lost = body.slice(0, body.lastIndexOf("\n")); // the last job's line gone
    const damaged = new Uint8Array([...image.subarray(0, headerEnd), ...Bun.zstdCompressSync(new TextEncoder().encode(lost))]);
    const target = cluster();
    target.run(submit(spec(), 5));
    const before = comparable(target.state);
    expect(() => restoreSnapshot(target.state, damaged)).toThrow(/records its header counts/);
    expect(comparable(target.state)).toBe(before);
  });
});
