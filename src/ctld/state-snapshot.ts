/**
 * @module ctld/state-snapshot
 * The controller's state at an applied index as bytes, and back. Format 5 (written now):
 * a text header (MAGIC, then one JSON line: format, the STATE_TYPES_VERSION of the records,
 * Raft index, counts) and a zstd-compressed body of JSON lines: the `parts` (every
 * ClusterState field but the configuration, jobs and nodes, as JSON that keeps Maps and Sets,
 * so a new field cannot be forgotten), then the nodes as shape rows (ctld/snapshot-shapes.ts:
 * each record stored as its differences from a reference record of the same key list), then
 * the jobs' shape table, then one line per job row. About 2 KB of JSON a job becomes tens of
 * bytes on disk; a job a line lets a restore parse and decode one job at a time, so the parsed
 * rows of 100k jobs (~60 MB) are never all alive at once (fewer fresh pages to fault in, less
 * for the collector). Format 4 (the same with all job rows in one JSON document after the
 * nodes), format 3 (as 4 without the state version: records shaped as the wire was, state
 * types version 1) and format 2 (an SQLite image: tables jobs, nodes, parts, meta), written
 * before, are still read; older records are brought to today's shapes by ctld/state-upgrade.ts.
 * Restore = start from the state the configuration builds (every replica reads the same
 * spur.conf), overwrite what the log changes from the image, then replay the log tail
 * through apply().
 * Failure policy: an image of an unknown format or version is refused, never half-loaded.
 */
import { Database } from "bun:sqlite";
import type { ClusterState, JobRecord, NodeRecord } from "../sched/model/types.ts";
import { assert } from "../lib/assert.ts";
import { type Row, ShapeDecoder, ShapeEncoder, type ShapeTable } from "./snapshot-shapes.ts";
import { STATE_TYPES_VERSION } from "../sched/model/state-types.ts";
import { checkStateVersion, upgradeRecords } from "./state-upgrade.ts";
import { internInfo, internJob, internJobFields, internSpec } from "../sched/model/intern.ts";

/** The SQLite image format, still restored (no longer written). */
const SNAPSHOT_SCHEMA = 2;
/** The format written now (see the module comment). */
export const SNAPSHOT_FORMAT = 5;
/** Format 4: as 5, with the job rows in one JSON document ({table, rows}). Still restored. */
const FORMAT_ROWS_IN_ONE_DOCUMENT = 4;
/** Format 3: as 4, without the state types version (its records are version 1). Still restored. */
const FORMAT_BEFORE_STATE_TYPES = 3;
const MAGIC = "SPUR-SNAPSHOT\n";
const SQLITE_MAGIC = "SQLite format 3\0";
const JOB_NESTED = ["info", "spec"] as const;
const NODE_NESTED = ["info"] as const;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

interface Header {
  format: number;
  /** The STATE_TYPES_VERSION of the records (format 4; a format-3 header has none: 1). */
  state?: number;
  raftIndex: number;
  jobs: number;
  nodes: number;
}

interface Rows<K> {
  table: ShapeTable;
  rows: [K, Row][];
}

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

/** Serialise `state` (as of Raft index `raftIndex`) into a format-5 image. */
export function encodeSnapshot(state: ClusterState, raftIndex: number): Uint8Array {
  const fields = state as unknown as Record<string, unknown>;
  const parts = partFields(state).map((key) => `${JSON.stringify(key)}:${encodePart(fields[key])}`);
  const nodeCoder = new ShapeEncoder(NODE_NESTED);
  const nodes: Rows<string> = { table: nodeCoder.table, rows: [] };
  for (const [name, node] of state.nodes) {
    const row: NodeRow = { ...node, gpuByJob: [...node.gpuByJob] };
    nodes.rows.push([name, nodeCoder.encode(row as unknown as Record<string, unknown>)]);
  }
  const jobCoder = new ShapeEncoder(JOB_NESTED);
  const jobLines: string[] = [];
  for (const [id, job] of state.jobs) jobLines.push(JSON.stringify([id, jobCoder.encode(job as unknown as Record<string, unknown>)]));
  // JSON text never holds a raw newline: the lines are split on them when read. The table
  // is complete once every job is encoded.
  const rows = jobLines.length === 0 ? "" : `\n${jobLines.join("\n")}`;
  const body = Bun.zstdCompressSync(encoder.encode(`{${parts.join(",")}}\n${JSON.stringify(nodes)}\n${JSON.stringify(jobCoder.table)}${rows}`));
  const header: Header = { format: SNAPSHOT_FORMAT, state: STATE_TYPES_VERSION, raftIndex, jobs: state.jobs.size, nodes: state.nodes.size };
  const head = encoder.encode(`${MAGIC}${JSON.stringify(header)}\n`);
  const out = new Uint8Array(head.length + body.length);
  out.set(head, 0);
  out.set(body, head.length);
  return out;
}

const startsWith = (bytes: Uint8Array, text: string): boolean => bytes.length >= text.length && decoder.decode(bytes.subarray(0, text.length)) === text;

/** The format-5 (4, 3) header and where the body starts; undefined for an SQLite image. */
function readHeader(bytes: Uint8Array): { header: Header; bodyAt: number } | undefined {
  if (!startsWith(bytes, MAGIC)) return undefined;
  const end = bytes.indexOf(10, MAGIC.length);
  if (end < 0) throw new Error("snapshot header has no end");
  const header = JSON.parse(decoder.decode(bytes.subarray(MAGIC.length, end))) as Header;
  if (header.format !== SNAPSHOT_FORMAT && header.format !== FORMAT_ROWS_IN_ONE_DOCUMENT && header.format !== FORMAT_BEFORE_STATE_TYPES) {
    throw new Error(`snapshot format ${header.format}, this spurctld reads ${SNAPSHOT_FORMAT} (and ${FORMAT_ROWS_IN_ONE_DOCUMENT}, ${FORMAT_BEFORE_STATE_TYPES}, 2)`);
  }
  const version = header.format === FORMAT_BEFORE_STATE_TYPES ? 1 : (header.state ?? 0);
  checkStateVersion(version);
  return { header: { ...header, state: version }, bodyAt: end + 1 };
}

/** The Raft index an image was taken at (cheap: reads the header only). */
export function snapshotIndex(bytes: Uint8Array): number {
  const framed = readHeader(bytes);
  if (framed !== undefined) return framed.header.raftIndex;
  return readMeta(bytes, () => undefined).raftIndex;
}

/**
 * Overwrite the log-derived parts of `state` (built from the configuration) with the image.
 * Returns the Raft index the image was taken at.
 */
export function restoreSnapshot(state: ClusterState, bytes: Uint8Array): number {
  const framed = readHeader(bytes);
  if (framed === undefined) {
    if (!startsWith(bytes, SQLITE_MAGIC)) throw new Error("not a Spur snapshot (unknown format)");
    return restoreSqlite(state, bytes);
  }
  const text = decoder.decode(Bun.zstdDecompressSync(bytes.subarray(framed.bodyAt)));
  const first = text.indexOf("\n");
  const second = text.indexOf("\n", first + 1);
  assert(first > 0 && second > first, "snapshot body has its parts");
  const parts = decodePart(text.slice(0, first)) as Record<string, unknown>;
  const nodes = JSON.parse(text.slice(first + 1, second)) as Rows<string>;
  const jobs = jobRowsOf(text, second + 1, framed.header.format);
  const version = framed.header.state ?? 1;
  // Parsed, every job has its own copy of each string and environment (sched/model/intern.ts).
  // Records of today's version are interned as the table: each reference once, each job's few
  // differences; decoding then shares the references' values (frozen ones are not copied).
  const current = version === STATE_TYPES_VERSION;
  if (current) internReferences(jobs.table);
  const jobDecoder = new ShapeDecoder(jobs.table, JOB_NESTED);
  const restoredJobs: [number, JobRecord][] = [];
  jobs.forEach(([id, row]) => {
    if (current) internDifferences(row);
    restoredJobs.push([id, jobDecoder.decode(row) as unknown as JobRecord]);
  });
  assert(restoredJobs.length === framed.header.jobs && nodes.rows.length === framed.header.nodes, "snapshot holds the records its header counts");
  const nodeDecoder = new ShapeDecoder(nodes.table, NODE_NESTED);
  const restoredNodes: NodeRecord[] = [];
  for (const [name, row] of nodes.rows) {
    const r = nodeDecoder.decode(row) as unknown as NodeRow;
    const node: NodeRecord = { ...r, gpuByJob: new Map(r.gpuByJob) };
    restoredNodes.push(node);
    state.nodes.set(name, node);
  }
  state.jobs.clear();
  for (const [id, job] of restoredJobs) state.jobs.set(id, job);
  upgradeRecords(version, state.jobs.values(), restoredNodes);
  // an upgrade may write new values: intern the upgraded records whole
  if (!current) for (const job of state.jobs.values()) internJob(job);
  const target = state as unknown as Record<string, unknown>;
  for (const [key, value] of Object.entries(parts)) {
    assert(!CONFIG_FIELDS.has(key) && !TABLE_FIELDS.has(key), `snapshot part ${key} is log-derived`);
    target[key] = value;
  }
  return framed.header.raftIndex;
}

/** The job rows of a body from `at`: the shape table, and a walk over the rows in order. */
function jobRowsOf(text: string, at: number, format: number): { table: ShapeTable; forEach(visit: (row: [number, Row]) => void): void } {
  if (format < SNAPSHOT_FORMAT) {
    const jobs = JSON.parse(text.slice(at)) as Rows<number>;
    return { table: jobs.table, forEach: (visit) => jobs.rows.forEach(visit) };
  }
  const tableEnd = lineEnd(text, at);
  return {
    table: JSON.parse(text.slice(at, tableEnd)) as ShapeTable,
    forEach(visit) {
      // one row parsed, decoded and dropped at a time
      for (let from = tableEnd + 1; from < text.length; ) {
        const end = lineEnd(text, from);
        visit(JSON.parse(text.slice(from, end)) as [number, Row]);
        from = end + 1;
      }
    },
  };
}

function lineEnd(text: string, from: number): number {
  const end = text.indexOf("\n", from);
  return end < 0 ? text.length : end;
}

/**
 * The job shapes' references with shared strings, environments and empty lists
 * (sched/model/intern.ts), in place; internDifferences does each row's differences. About 130
 * fields a job, of which a row holds a handful; interning decoded jobs whole took ~2 µs a job.
 */
function internReferences(table: ShapeTable): void {
  const [infoTable, specTable] = table.nested as [ShapeTable, ShapeTable];
  for (const ref of table.refs) internJobFields(ref as Partial<JobRecord>);
  for (const ref of infoTable.refs) internInfo(ref as Partial<JobRecord["info"]>);
  for (const ref of specTable.refs) internSpec(ref as Partial<JobRecord["spec"]>);
}

function internDifferences(row: Row): void {
  internJobFields(row[1] as Partial<JobRecord>);
  internInfo((row[2] as Row)[1] as Partial<JobRecord["info"]>);
  internSpec((row[3] as Row)[1] as Partial<JobRecord["spec"]>);
}

/** Format 2: the SQLite image earlier versions wrote. */
function restoreSqlite(state: ClusterState, bytes: Uint8Array): number {
  const meta = readMeta(bytes, (db) => {
    state.jobs.clear();
    for (const row of db.query<{ id: number; record: string }, []>("SELECT id, record FROM jobs ORDER BY id").iterate()) {
      state.jobs.set(row.id, JSON.parse(row.record) as JobRecord);
    }
    const restoredNodes: NodeRecord[] = [];
    for (const row of db.query<{ name: string; record: string }, []>("SELECT name, record FROM nodes").iterate()) {
      const r = JSON.parse(row.record) as NodeRow;
      const node: NodeRecord = { ...r, gpuByJob: new Map(r.gpuByJob) };
      restoredNodes.push(node);
      state.nodes.set(row.name, node);
    }
    upgradeRecords(1, state.jobs.values(), restoredNodes);
    const target = state as unknown as Record<string, unknown>;
    for (const row of db.query<{ key: string; value: string }, []>("SELECT key, value FROM parts").iterate()) {
      assert(!CONFIG_FIELDS.has(row.key) && !TABLE_FIELDS.has(row.key), `snapshot part ${row.key} is log-derived`);
      target[row.key] = decodePart(row.value);
    }
  });
  return meta.raftIndex;
}

/** Format 2 written as it was (tests of the upgrade path: a replica restores what an older one wrote). */
export function encodeSqliteSnapshot(state: ClusterState, raftIndex: number): Uint8Array {
  const db = new Database(":memory:");
  try {
    db.exec("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec("CREATE TABLE jobs (id INTEGER PRIMARY KEY, record TEXT NOT NULL)");
    db.exec("CREATE TABLE nodes (name TEXT PRIMARY KEY, record TEXT NOT NULL)");
    db.exec("CREATE TABLE parts (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    const meta: Meta = { schema: SNAPSHOT_SCHEMA, raftIndex };
    db.transaction(() => {
      db.query("INSERT INTO meta (key, value) VALUES ('state', ?)").run(JSON.stringify(meta));
      for (const key of partFields(state)) db.query("INSERT INTO parts (key, value) VALUES (?, ?)").run(key, encodePart((state as unknown as Record<string, unknown>)[key]));
      for (const [id, job] of state.jobs) db.query("INSERT INTO jobs (id, record) VALUES (?, ?)").run(id, JSON.stringify(job));
      for (const [name, node] of state.nodes) db.query("INSERT INTO nodes (name, record) VALUES (?, ?)").run(name, JSON.stringify({ ...node, gpuByJob: [...node.gpuByJob] }));
    })();
    return db.serialize();
  } finally {
    db.close();
  }
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
