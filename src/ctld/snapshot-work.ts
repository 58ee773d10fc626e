/**
 * @module ctld/snapshot-work
 * What the snapshot worker does, wherever it runs (a child process, ctld/snapshot-process
 * via roles/snapshot-worker.ts; or a Worker thread, ctld/snapshot-worker.ts): between
 * snapshots it holds no state, only the last image (a few bytes a job); asked for an image at
 * index I, it builds the state exactly as a replica restoring does (createState(spur.conf), the
 * topology, the image restored, then the committed entries after it applied through the same
 * apply(): what makes replicas equal makes this copy equal), encodes it, keeps that image as its
 * new base and drops the state. The entries are read from the replica's own Raft log file (a
 * read-only connection; raft/storage-sqlite-segments.ts readLogRows): the replica has written
 * every entry it applied before it asks. Before, each committed entry was posted here and kept
 * until the next image (up to 32 MiB, or 512 bytes a job, then folded into a new image at the
 * cost of a restore and an encode of every job): ~50 MiB of a replica's memory at 50k jobs and
 * ~0.1 ms of CPU a submission on every replica. Keeping a live copy of the state instead
 * doubled the controller's memory (issue 16). Each image carries the replica's job archive in
 * front (read from its file here, not through the replica's thread), and is written to a file
 * beside the log and fsynced here (raft/snapshot-file.ts): the replica records only its name.
 * Protocol: snapshotter.ts.
 * Failure policy: an entry that cannot be decoded or applied is skipped, as the driver skips
 * it (the same entry fails the same way on every copy); an error (a base that cannot be
 * restored, a log that does not hold the entries after the base, an encoding that fails)
 * answers the request it belongs to, and the replica then gives the worker up (snapshotter.ts).
 */
import { Database } from "bun:sqlite";
import { readFileSync, writeFileSync } from "node:fs";
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import { decodeCommand } from "../raft/driver.ts";
import { NORMAL_ENTRY, readLogRows } from "../raft/storage-sqlite-segments.ts";
import { writeSnapshotFile } from "../raft/snapshot-file.ts";
import { encodeSnapshot, restoreSnapshot } from "./state-snapshot.ts";
import { wrapSnapshot } from "../raft/snapshot-peers.ts";
import { openJobArchive, withArchive } from "./job-archive.ts";
import { apply } from "../sched/model/apply.ts";
import { restoreReconfigured } from "../sched/model/apply-reconfigure.ts";
import type { Command } from "../sched/model/commands.ts";
import { createState } from "../sched/model/state.ts";
import type { ClusterState } from "../sched/model/types.ts";

type NetworkTopology = ClusterState["topology"];

export type ToWorker =
  /**
   * `logPath`: the replica's Raft log (raft/storage-sqlite.ts), read here for the entries after
   * the base. `archivePath`: the replica's job archive (job-archive.ts), whose rows each image
   * carries in front of the state.
   */
  | { t: "init"; conf: ParsedConf; topology: NetworkTopology; logPath: string; archivePath?: string }
  | { t: "restore"; image: Uint8Array; index: number }
  /**
   * `addresses`: the controllers' addresses, carried in front of the image (raft/snapshot-peers.ts).
   * A worker process (one per image) is told its base instead of keeping it: `base`, the state
   * image to start from and its index (none: the configuration's state at 0), and `baseFile`,
   * where to write the new image's state part as the next one's base (before the image itself).
   */
  | { t: "snapshot"; id: number; index: number; addresses: [number, string][]; base?: { file: string; index: number }; baseFile?: string };

/** What a snapshot answer carries besides the image: the replica checks its copy was equal. */
export interface Fingerprint {
  appliedIndex: number;
  nextJobId: number;
  jobs: number;
}

/**
 * `file`: the image's file beside the log (its name), `bytes` its size; `writeMs`: writing and fsyncing it.
 * `writeFailed`: the image was built but could not be written (a full disk): this request fails, the worker stays.
 */
export type FromWorker = {
  t: "snapshot"; id: number; file?: string; bytes?: number; error?: string; fingerprint?: Fingerprint; encodeMs?: number; writeMs?: number;
  writeFailed?: boolean;
};

type Inputs = { conf: ParsedConf; topology: NetworkTopology; logPath: string };
type Image = { image: Uint8Array; index: number };

/** `b` on a buffer of its own: a view kept for long must not hold the whole message's buffer. */
const own = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

/** The state at `upTo`: the configuration's, then the base image, then the log's entries since, as the replica built its own. */
function rebuild(c: Inputs, base: Image | undefined, log: Database, upTo: number): ClusterState {
  const made = createState(c.conf);
  if (!made.ok) throw new Error(made.error.message);
  const s = made.value;
  s.topology = c.topology;
  const from = base?.index ?? 0;
  if (base !== undefined) {
    restoreSnapshot(s, base.image);
    restoreReconfigured(s);
  }
  let next = from + 1;
  for (const row of readLogRows(log, from, upTo)) {
    if (row.idx !== next) throw new Error(`the log has ${row.idx} where ${next} was expected (base ${from}, asked ${upTo})`);
    next++;
    if (row.type !== NORMAL_ENTRY || row.data === null || row.data.length === 0) continue;
    try {
      apply(s, decodeCommand(row.data) as Command);
    } catch {
      // skipped, as the driver skips it (skipFailedEntry)
    }
  }
  if (next !== upTo + 1) throw new Error(`the log ends at ${next - 1}, before the asked ${upTo} (base ${from})`);
  return s;
}

/**
 * The archive's rows as they are now: the replica wrote the rows of every purge up to the image's
 * index before it asked for the image (later ones too, perhaps: harmless, see job-archive.ts).
 */
function archiveRows(path: string): Uint8Array {
  const archive = openJobArchive(path, { readonly: true });
  try {
    return archive.exportRows();
  } finally {
    archive.close();
  }
}

/**
 * The worker's message handler: each snapshot request is answered through `reply`, an error
 * too (a request that throws is answered with its error; an init or restore that throws, with id -1).
 * `beforeWrite` runs before an image's files are written (a worker process whose replica died
 * while it built ends there, leaving nothing beside a log that a new replica may own by then).
 */
export function createSnapshotWork(reply: (m: FromWorker) => void, beforeWrite: () => void = () => undefined): (m: ToWorker) => void {
  let inputs: Inputs | undefined;
  let archivePath: string | undefined;
  /** The replica's log, opened read-only at the first image asked. */
  let log: Database | undefined;
  /** The last image this worker restored or took, and the Raft index it is at (none: the configuration's state at 0). */
  let base: Image | undefined;

  const answer = (c: Inputs, m: Extract<ToWorker, { t: "snapshot" }>): void => {
    if (m.base !== undefined) base = { image: new Uint8Array(readFileSync(m.base.file)), index: m.base.index };
    log ??= new Database(c.logPath, { readonly: true });
    const s = rebuild(c, base, log, m.index);
    const started = performance.now();
    const inner = encodeSnapshot(s, m.index);
    const encodeMs = performance.now() - started;
    base = { image: inner, index: m.index };
    const image = wrapSnapshot(new Map(m.addresses), archivePath === undefined ? inner : withArchive(archiveRows(archivePath), inner));
    beforeWrite();
    const written = performance.now();
    let file: string;
    try {
      if (m.baseFile !== undefined) writeFileSync(m.baseFile, inner, { mode: 0o600 }); // as the image files (job scripts, environments)
      file = writeSnapshotFile(c.logPath, m.index, image);
    } catch (error) {
      // its copy is right (`base` moved on); only the disk refused: the replica asks again later
      return reply({ t: "snapshot", id: m.id, error: `cannot write the image: ${String(error)}`, writeFailed: true });
    }
    reply({
      t: "snapshot", id: m.id, file, bytes: image.length, encodeMs, writeMs: performance.now() - written,
      fingerprint: { appliedIndex: s.appliedIndex, nextJobId: s.nextJobId, jobs: s.jobs.size },
    });
  };

  const handle = (m: ToWorker): void => {
    if (m.t === "init") {
      inputs = { conf: m.conf, topology: m.topology, logPath: m.logPath };
      archivePath = m.archivePath;
      return;
    }
    if (inputs === undefined) throw new Error("snapshot worker used before init");
    if (m.t === "restore") base = { image: own(m.image), index: m.index };
    else answer(inputs, m);
  };

  return (m) => {
    try {
      handle(m);
    } catch (error) {
      reply({ t: "snapshot", id: m.t === "snapshot" ? m.id : -1, error: String((error as Error).stack ?? error) });
    }
  };
}
