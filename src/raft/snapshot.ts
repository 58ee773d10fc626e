/**
 * @module raft/snapshot
 * The controller's state at an applied index as a SQLite file image, and back. The image is
 * an ordinary SQLite database (tables jobs, nodes, meta), so an operator can open a
 * snapshot with any sqlite3 shell. Restore = start from the state the configuration builds
 * (every replica reads the same spur.conf), overwrite what the log changes (jobs, node
 * records, partitions, counters) from the image, then replay the log tail through apply().
 * Failure policy: an image from another schema version is refused, never half-loaded.
 */
import { Database } from "bun:sqlite";
import type { ClusterState, JobRecord, NodeRecord, PartitionRecord } from "../sched/model/types.ts";
import { assert } from "../lib/assert.ts";

const SNAPSHOT_SCHEMA = 1;

interface Meta {
  schema: number;
  raftIndex: number;
  nextJobId: number;
  nextSequence: number;
  appliedIndex: number;
  partitions: PartitionRecord[];
}

type NodeRow = Omit<NodeRecord, "gpuByJob"> & { gpuByJob: [number, number[]][] };

/** Serialise `state` (as of Raft index `raftIndex`) into the bytes of a SQLite file. */
export function encodeSnapshot(state: ClusterState, raftIndex: number): Uint8Array {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE jobs (id INTEGER PRIMARY KEY, record TEXT NOT NULL)");
    db.exec("CREATE TABLE nodes (name TEXT PRIMARY KEY, record TEXT NOT NULL)");
    const meta: Meta = {
      schema: SNAPSHOT_SCHEMA, raftIndex, nextJobId: state.nextJobId, nextSequence: state.nextSequence,
      appliedIndex: state.appliedIndex, partitions: state.partitions,
    };
    const insertJob = db.query<unknown, [number, string]>("INSERT INTO jobs (id, record) VALUES (?, ?)");
    const insertNode = db.query<unknown, [string, string]>("INSERT INTO nodes (name, record) VALUES (?, ?)");
    db.transaction(() => {
      db.query("INSERT INTO meta (key, value) VALUES ('state', ?)").run(JSON.stringify(meta));
      for (const [id, job] of state.jobs) insertJob.run(id, JSON.stringify(job));
      for (const [name, node] of state.nodes) {
        const row: NodeRow = { ...node, gpuByJob: [...node.gpuByJob] };
        insertNode.run(name, JSON.stringify(row));
      }
    })();
    return db.serialize();
  } finally {
    db.close();
  }
}

/** The Raft index an image was taken at (cheap: reads the meta row only). */
export function snapshotIndex(bytes: Uint8Array): number {
  return readMeta(bytes, () => undefined).raftIndex;
}

/**
 * Overwrite the log-derived parts of `state` (built from the configuration) with the image.
 * Returns the Raft index the image was taken at.
 */
export function restoreSnapshot(state: ClusterState, bytes: Uint8Array): number {
  const meta = readMeta(bytes, (db) => {
    state.jobs.clear();
    for (const row of db.query<{ id: number; record: string }, []>("SELECT id, record FROM jobs ORDER BY id").iterate()) {
      state.jobs.set(row.id, JSON.parse(row.record) as JobRecord);
    }
    for (const row of db.query<{ name: string; record: string }, []>("SELECT name, record FROM nodes").iterate()) {
      const r = JSON.parse(row.record) as NodeRow;
      state.nodes.set(row.name, { ...r, gpuByJob: new Map(r.gpuByJob) });
    }
  });
  state.nextJobId = meta.nextJobId;
  state.nextSequence = meta.nextSequence;
  state.appliedIndex = meta.appliedIndex;
  state.partitions = meta.partitions;
  return meta.raftIndex;
}

function readMeta(bytes: Uint8Array, each: (db: Database) => void): Meta {
  const db = Database.deserialize(bytes);
  try {
    const row = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'state'").get();
    assert(row !== null, "snapshot image has a state row");
    const meta = JSON.parse(row.value) as Meta;
    if (meta.schema !== SNAPSHOT_SCHEMA) throw new Error(`snapshot schema ${meta.schema}, this spurctld reads ${SNAPSHOT_SCHEMA}`);
    each(db);
    return meta;
  } finally {
    db.close();
  }
}
