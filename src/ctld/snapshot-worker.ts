/**
 * @module ctld/snapshot-worker
 * A Worker thread that encodes the controller's snapshots off the replica's thread: a
 * 100k-job snapshot costs the replica's event loop nothing but the messages that feed this
 * thread. Between snapshots it holds no state, only the last image (a few bytes a job) and
 * the committed entries since; asked for an image, it builds the state exactly as a replica
 * restoring does (createState(spur.conf), the topology, the image restored, the entries
 * applied through the same apply(): what makes replicas equal makes this copy equal),
 * encodes it, keeps that image as its new base and drops the state. Keeping a live copy
 * instead doubled the controller's memory (issue 16). Entries past FOLD_BYTES_DEFAULT are folded
 * into a new base at once. Each image carries the replica's job archive in front (read from its
 * file here, not through the replica's thread). Protocol: snapshotter.ts.
 * Failure policy: an entry that cannot be decoded or applied is skipped, as the driver skips
 * it (the same entry fails the same way on every copy); an error (a base that cannot be
 * restored, an encoding that fails) answers the request it belongs to, and the replica then
 * gives this thread up (snapshotter.ts).
 */
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import { decodeCommand } from "../raft/driver.ts";
import { encodeSnapshot, restoreSnapshot } from "./state-snapshot.ts";
import { wrapSnapshot } from "../raft/snapshot-peers.ts";
import { openJobArchive, withArchive } from "./job-archive.ts";
import { apply } from "../sched/model/apply.ts";
import { restoreReconfigured } from "../sched/model/apply-reconfigure.ts";
import type { Command } from "../sched/model/commands.ts";
import { createState } from "../sched/model/state.ts";
import type { ClusterState } from "../sched/model/types.ts";

type NetworkTopology = ClusterState["topology"];

declare const self: Worker;

export type ToWorker =
  /**
   * `foldBytes`: FOLD_BYTES unless given (tests fold small logs). `archivePath`: the replica's job
   * archive (job-archive.ts), whose rows each image carries in front of the state.
   */
  | { t: "init"; conf: ParsedConf; topology: NetworkTopology; foldBytes?: number; archivePath?: string }
  | { t: "restore"; image: Uint8Array; index: number }
  /** Entry k's command is data[ends[k-1], ends[k]) (from 0 for the first), at Raft index indexes[k]. */
  | { t: "apply"; data: Uint8Array; indexes: number[]; ends: number[]; upTo: number }
  /** `addresses`: the controllers' addresses, carried in front of the image (raft/snapshot-peers.ts). */
  | { t: "snapshot"; id: number; index: number; addresses: [number, string][] };

/** What a snapshot answer carries besides the image: the replica checks its copy was equal. */
export interface Fingerprint {
  appliedIndex: number;
  nextJobId: number;
  jobs: number;
}

export type FromWorker = { t: "snapshot"; id: number; image?: Uint8Array; error?: string; fingerprint?: Fingerprint; encodeMs?: number };

/**
 * Past this many bytes of entries waiting, they are folded into a new base image at once, so
 * that what this thread holds stays small even when snapshots are far apart.
 */
const FOLD_BYTES_DEFAULT = 32 * 2 ** 20;
/**
 * ...or past this many bytes a job of the last image, when that is more: a fold restores and
 * encodes every job, so with a fixed budget its cost per entry grew with the state (at 77k
 * jobs, every 32 MiB of 1.5 KB submissions meant ~1.5 s of this thread's time); in proportion
 * to the jobs, it stays constant, for at most this much memory a job.
 */
const FOLD_BYTES_PER_JOB = 512;

let conf: { conf: ParsedConf; topology: NetworkTopology } | undefined;
let foldBytes = FOLD_BYTES_DEFAULT;
/** Jobs in the state the last fold or snapshot built (0 until one did). */
let jobsAtBase = 0;
let archivePath: string | undefined;
/** The last image this thread restored or took, and the Raft index it is at (none: the configuration's state at 0). */
let base: { image: Uint8Array; index: number } | undefined;
/** Committed entries since `base`, in order, as the driver stored them. */
let pending: { index: number; data: Uint8Array }[] = [];
let pendingBytes = 0;
/** The Raft index the entries received reach. */
let index = 0;

/** `b` on a buffer of its own: a view kept for long must not hold the whole message's buffer. */
const own = (b: Uint8Array): Uint8Array => (b.byteOffset === 0 && b.byteLength === b.buffer.byteLength ? b : b.slice());

/** The state at `index`: the configuration's, then the base image, then the entries since, as the replica built its own. */
function rebuild(c: { conf: ParsedConf; topology: NetworkTopology }): ClusterState {
  const made = createState(c.conf);
  if (!made.ok) throw new Error(made.error.message);
  const s = made.value;
  s.topology = c.topology;
  if (base !== undefined) {
    restoreSnapshot(s, base.image);
    restoreReconfigured(s);
  }
  for (const e of pending) {
    try {
      apply(s, decodeCommand(e.data) as Command);
    } catch {
      // skipped, as the driver skips it (skipFailedEntry)
    }
  }
  return s;
}

/** Encode the state at `index` and make that image the new base (the state itself is dropped). */
function fold(c: { conf: ParsedConf; topology: NetworkTopology }): { state: ClusterState; image: Uint8Array; encodeMs: number } {
  const s = rebuild(c);
  const started = performance.now();
  const image = encodeSnapshot(s, index);
  base = { image, index };
  pending = [];
  pendingBytes = 0;
  jobsAtBase = s.jobs.size;
  return { state: s, image, encodeMs: performance.now() - started };
}

function handle(m: ToWorker): void {
  if (m.t === "init") {
    conf = { conf: m.conf, topology: m.topology };
    foldBytes = m.foldBytes ?? FOLD_BYTES_DEFAULT;
    archivePath = m.archivePath;
    return;
  }
  const c = conf;
  if (c === undefined) throw new Error("snapshot worker used before init");
  if (m.t === "restore") {
    base = { image: own(m.image), index: m.index };
    pending = [];
    pendingBytes = 0;
    index = m.index;
  } else if (m.t === "apply") {
    // views of the batch's buffer, which holds nothing but these commands
    let from = 0;
    m.indexes.forEach((at, k) => {
      const to = m.ends[k] as number;
      pending.push({ index: at, data: m.data.subarray(from, to) });
      from = to;
    });
    pendingBytes += m.data.length;
    index = m.upTo;
    if (pendingBytes > Math.max(foldBytes, jobsAtBase * FOLD_BYTES_PER_JOB)) fold(c);
  } else {
    answer(c, m);
  }
}

function answer(c: { conf: ParsedConf; topology: NetworkTopology }, m: { id: number; index: number; addresses: [number, string][] }): void {
  if (m.index !== index) {
    postMessage({ t: "snapshot", id: m.id, error: `snapshot asked at ${m.index}, this copy is at ${index}` } satisfies FromWorker);
    return;
  }
  const { state: s, image: inner, encodeMs } = fold(c);
  const image = wrapSnapshot(new Map(m.addresses), archivePath === undefined ? inner : withArchive(archiveRows(archivePath), inner));
  const reply: FromWorker = {
    t: "snapshot", id: m.id, image, encodeMs,
    fingerprint: { appliedIndex: s.appliedIndex, nextJobId: s.nextJobId, jobs: s.jobs.size },
  };
  // Transferred, not copied: the image leaves this thread (a copy: `base` keeps the inner image).
  postMessage(reply, [image.buffer as ArrayBuffer]);
  // The state just built is garbage now: collect it before it is counted against the process for long.
  Bun.gc(true);
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

self.onmessage = (event: MessageEvent<ToWorker>) => {
  try {
    handle(event.data);
  } catch (error) {
    const m = event.data;
    const why = String((error as Error).stack ?? error);
    postMessage({ t: "snapshot", id: m.t === "snapshot" ? m.id : -1, error: why } satisfies FromWorker);
  }
};
