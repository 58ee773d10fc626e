/**
 * @module raft/snapshot
 * The controller's state at an applied index as a SQLite file image, and back. The image is
 * an ordinary SQLite database (tables jobs, nodes, parts, meta), so an operator can open a
 * snapshot with any sqlite3 shell. Restore = start from the state the configuration builds
 * (every replica reads the same spur.conf), overwrite what the log changes from the image,
 * then replay the log tail through apply(). What the log changes is every ClusterState
 * field but the configuration (CONFIG_FIELDS): jobs and nodes get tables of their own, every
 * other field (partitions, counters, accounting, reservations, and any field added later)
 * goes into `parts` as JSON that keeps Maps and Sets, so a new field cannot be forgotten.
 * Failure policy: an image from another schema version is refused, never half-loaded.
 */
import { Database } from "bun:sqlite";
import type { ClusterState, JobRecord, NodeRecord } from "../sched/model/types.ts";
import { assert } from "../lib/assert.ts";

const SNAPSHOT_SCHEMA = 2;

/** Fields built from spur.conf/topology.conf on every replica, never from the log. */
const CONFIG_FIELDS: ReadonlySet<string> = new Set(["config", "topology"]);
/** Fields with tables of their own. */
const TABLE_FIELDS: ReadonlySet<string> = new Set(["jobs", "nodes"]);

interface Meta {
  schema: number;
  raftIndex: number;
}

/** JSON that keeps Maps and Sets (tagged), for the `parts` rows. */
export const encodePart = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) => {
    if (v instanceof Map) return { $map: [...v] };
    if (v instanceof Set) return { $set: [...v] };
    return v;
  });
export const decodePart = (text: string): unknown =>
  JSON.parse(text, (_key, v: unknown) => {
    if (v !== null && typeof v === "object" && !Array.isArray(v)) {
      const o = v as { $map?: [unknown, unknown][]; $set?: unknown[] };
      if (o.$map !== undefined && Object.keys(o).length === 1) return new Map(o.$map);
      if (o.$set !== undefined && Object.keys(o).length === 1) return new Set(o.$set);
    }
    return v;
  });

/** The log-derived fields that go into `parts`. */
export function partFields(state: ClusterState): string[] {
  return Object.keys(state).filter((k) => !CONFIG_FIELDS.has(k) && !TABLE_FIELDS.has(k)).sort();
}

type NodeRow = Omit<NodeRecord, "gpuByJob"> & { gpuByJob: [number, number[]][] };

/** Serialise `state` (as of Raft index `raftIndex`) into the bytes of a SQLite file. */
export function encodeSnapshot(state: ClusterState, raftIndex: number): Uint8Array {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE jobs (id INTEGER PRIMARY KEY, record TEXT NOT NULL)");
    db.exec("CREATE TABLE nodes (name TEXT PRIMARY KEY, record TEXT NOT NULL)");
    db.exec("CREATE TABLE parts (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const meta: Meta = { schema: SNAPSHOT_SCHEMA, raftIndex };
    const insertPart = db.query<unknown, [string, string]>("INSERT INTO parts (key, value) VALUES (?, ?)");
    const insertJob = db.query<unknown, [number, string]>("INSERT INTO jobs (id, record) VALUES (?, ?)");
    const insertNode = db.query<unknown, [string, string]>("INSERT INTO nodes (name, record) VALUES (?, ?)");
    db.transaction(() => {
      db.query("INSERT INTO meta (key, value) VALUES ('state', ?)").run(JSON.stringify(meta));
      for (const key of partFields(state)) insertPart.run(key, encodePart((state as unknown as Record<string, unknown>)[key]));
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
    const target = state as unknown as Record<string, unknown>;
    for (const row of db.query<{ key: string; value: string }, []>("SELECT key, value FROM parts").iterate()) {
      assert(!CONFIG_FIELDS.has(row.key) && !TABLE_FIELDS.has(row.key), `snapshot part ${row.key} is log-derived`);
      target[row.key] = decodePart(row.value);
    }
  });
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
