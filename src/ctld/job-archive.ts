/**
 * @module ctld/job-archive
 * The accounting archive of one replica: the records of jobs purged from the controller's
 * memory after MinJobAge (sched/model/apply-purge.ts), in SQLite beside the log (WAL,
 * synchronous=FULL: a row is on disk before the replica goes on, and so before any snapshot
 * taken after the purge). sacct, sreport and the REST slurmdb endpoints read them through
 * ListJobs (views.ts) together with the live jobs. A row is the job's record as the state last
 * held it (JobInfoState with its steps, as JSON), keyed by job id: writing it again (a restart
 * replaying the log, a snapshot's rows imported) is an idempotent upsert, and every replica
 * writes the same rows (apply() is deterministic).
 * A Raft snapshot carries the rows (exportRows/importRows, framed by withArchive/splitArchive)
 * since a replica that installs one never applies the purges before it.
 * Failure policy: a write that fails throws; the caller logs it (the purge itself stands).
 */
import { Database } from "bun:sqlite";
import type { JobInfoP, JobRecord } from "../sched/model/types.ts";

export interface ArchiveQuery {
  /** Ids named (a job, an array's id, a het job's leader); empty: all. */
  jobIds: readonly number[];
  /** Epoch seconds, 0 = unbounded: jobs that ended before windowStart or were submitted after windowEnd are left out. */
  windowStart: number;
  windowEnd: number;
}

export interface JobArchive {
  /** Upsert these records, all in one transaction. */
  put(jobs: readonly JobRecord[]): void;
  /** Rows matching `q`, by job id. */
  list(q: ArchiveQuery): JobInfoP[];
  has(jobId: number): boolean;
  count(): number;
  /** Every row, in compressed frames (a snapshot's archive section); empty: no rows. */
  exportRows(): Uint8Array;
  /** Upsert the rows of exportRows' output; returns how many. */
  importRows(bytes: Uint8Array): number;
  close(): void;
}

const SCHEMA_VERSION = 1;
/** The archive's file name in the state folder (a replica's own folder). */
export const ARCHIVE_FILE = "job-archive.sqlite";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `readonly`: a reader beside the writer (the snapshot worker). */
export function openJobArchive(path: string, opts: { readonly?: boolean } = {}): JobArchive {
  const db = opts.readonly === true ? new Database(path, { readonly: true }) : new Database(path, { create: true });
  // sacct's reads are rare and the file stays in the OS page cache: a small cache of its own (not SQLite's 2 MiB).
  db.exec("PRAGMA cache_size = -512");
  if (opts.readonly !== true) {
    db.exec("PRAGMA journal_mode = WAL");
    db.exec("PRAGMA synchronous = FULL");
    db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
    db.exec(
      "CREATE TABLE IF NOT EXISTS jobs (id INTEGER PRIMARY KEY, array_job_id INTEGER NOT NULL, het_job_id INTEGER NOT NULL, submit_time REAL NOT NULL, end_time REAL NOT NULL, info TEXT NOT NULL)",
    );
    db.exec("CREATE INDEX IF NOT EXISTS jobs_array ON jobs (array_job_id)");
    db.exec("CREATE INDEX IF NOT EXISTS jobs_het ON jobs (het_job_id)");
    db.exec("CREATE INDEX IF NOT EXISTS jobs_end ON jobs (end_time)");
    const version = db.query<{ value: string }, []>("SELECT value FROM meta WHERE key = 'schema'").get();
    if (version === null) db.query("INSERT INTO meta (key, value) VALUES ('schema', ?)").run(String(SCHEMA_VERSION));
    else if (Number(version.value) !== SCHEMA_VERSION) throw new Error(`job archive ${path} has schema ${version.value}, this spurctld reads ${SCHEMA_VERSION}`);
  }
  const upsert = opts.readonly === true
    ? undefined
    : db.query<unknown, [number, number, number, number, number, string]>(
      "INSERT OR REPLACE INTO jobs (id, array_job_id, het_job_id, submit_time, end_time, info) VALUES (?, ?, ?, ?, ?, ?)",
    );
  const putInfos = db.transaction((infos: readonly JobInfoP[]) => {
    for (const info of infos) upsert?.run(info.jobId, info.arrayJobId, info.hetJobId ?? 0, info.submitTime, info.endTime, JSON.stringify(info));
  });
  const putAll = (infos: readonly JobInfoP[]): void => {
    if (upsert === undefined) throw new Error("job archive opened read-only");
    putInfos(infos);
  };

  return {
    put: (jobs) => putAll(jobs.map((j) => j.info)),
    list(q) {
      const where: string[] = [];
      const args: number[] = [];
      if (q.jobIds.length > 0) {
        const marks = q.jobIds.map(() => "?").join(",");
        // Each by its own index (an OR of the three would scan the table).
        where.push(`id IN (SELECT id FROM jobs WHERE id IN (${marks}) UNION SELECT id FROM jobs WHERE array_job_id IN (${marks}) UNION SELECT id FROM jobs WHERE het_job_id IN (${marks}))`);
        args.push(...q.jobIds, ...q.jobIds, ...q.jobIds);
      }
      if (q.windowStart > 0) {
        where.push("NOT (end_time > 0 AND end_time < ?)");
        args.push(q.windowStart);
      }
      if (q.windowEnd > 0) {
        where.push("submit_time <= ?");
        args.push(q.windowEnd);
      }
      const sql = `SELECT info FROM jobs${where.length > 0 ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY id`;
      return db.query<{ info: string }, number[]>(sql).all(...args).map((r) => JSON.parse(r.info) as JobInfoP);
    },
    has: (jobId) => db.query<{ n: number }, [number]>("SELECT count(*) AS n FROM jobs WHERE id = ?").get(jobId)?.n === 1,
    count: () => db.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs").get()?.n ?? 0,
    exportRows() {
      // In frames of EXPORT_ROWS_PER_FRAME rows, so that the text never holds the whole archive
      // (1M jobs: about 2 GB of JSON) at once, only its compressed frames.
      const frames: Uint8Array[] = [];
      let lines: string[] = [];
      const flush = (): void => {
        if (lines.length > 0) frames.push(frame(Bun.zstdCompressSync(encoder.encode(lines.join("\n")))));
        lines = [];
      };
      for (const r of db.query<{ info: string }, []>("SELECT info FROM jobs ORDER BY id").iterate()) {
        lines.push(r.info);
        if (lines.length >= EXPORT_ROWS_PER_FRAME) flush();
      }
      flush();
      return concat(frames);
    },
    importRows(bytes) {
      let count = 0;
      for (let at = 0; at < bytes.length; ) {
        if (at + 4 > bytes.length) throw new Error("archive rows: a frame is cut short");
        const length = new DataView(bytes.buffer, bytes.byteOffset + at, 4).getUint32(0);
        if (at + 4 + length > bytes.length) throw new Error("archive rows: a frame is cut short");
        const text = decoder.decode(Bun.zstdDecompressSync(bytes.subarray(at + 4, at + 4 + length)));
        const infos = text.split("\n").map((line) => JSON.parse(line) as JobInfoP);
        putAll(infos);
        count += infos.length;
        at += 4 + length;
      }
      return count;
    },
    close: () => db.close(),
  };
}

/** Rows per compressed frame of exportRows (a few MB of JSON). */
const EXPORT_ROWS_PER_FRAME = 2000;

/** A 4-byte big-endian length, then the bytes. */
function frame(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length);
  out.set(bytes, 4);
  return out;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const MAGIC = "SPUR-ARCHIVE-1\n";

/** A snapshot image with the archive's rows in front: MAGIC, one JSON line {bytes}, the rows, the state image. */
export function withArchive(rows: Uint8Array, stateImage: Uint8Array): Uint8Array {
  const head = encoder.encode(`${MAGIC}${JSON.stringify({ bytes: rows.length })}\n`);
  const out = new Uint8Array(head.length + rows.length + stateImage.length);
  out.set(head, 0);
  out.set(rows, head.length);
  out.set(stateImage, head.length + rows.length);
  return out;
}

/** The archive rows (none in an image written without them) and the state image. */
export function splitArchive(image: Uint8Array): { rows?: Uint8Array; stateImage: Uint8Array } {
  const magic = encoder.encode(MAGIC);
  if (image.length < magic.length || !magic.every((b, i) => image[i] === b)) return { stateImage: image };
  const end = image.indexOf(10, magic.length);
  if (end < 0) throw new Error("snapshot archive header has no end");
  const { bytes } = JSON.parse(decoder.decode(image.subarray(magic.length, end))) as { bytes: number };
  const at = end + 1;
  if (!Number.isInteger(bytes) || bytes < 0 || at + bytes > image.length) throw new Error("snapshot archive section is cut short");
  return { rows: image.subarray(at, at + bytes), stateImage: image.subarray(at + bytes) };
}
