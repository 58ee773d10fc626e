/**
 * @module ctld/snapshot-worker
 * A Worker thread that keeps its own copy of the controller's state by applying the same
 * committed entries, in the same order, through the same apply() as the replica (what makes
 * replicas equal makes this copy equal), and encodes snapshots of it on request: a
 * 100k-job snapshot costs the replica's event loop nothing but the messages that feed this
 * thread. The copy is built exactly as the replica builds its own: createState(spur.conf),
 * the topology, then the same snapshot image restored. Protocol: snapshotter.ts.
 * Failure policy: an entry that cannot be decoded or applied is skipped, as the driver skips
 * it (the same entry fails the same way on every copy); an error answers the request it
 * belongs to and leaves the copy as it was.
 */
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import { decodeCommand } from "../raft/driver.ts";
import { encodeSnapshot, restoreSnapshot } from "./state-snapshot.ts";
import { wrapSnapshot } from "../raft/snapshot-peers.ts";
import { apply } from "../sched/model/apply.ts";
import { restoreReconfigured } from "../sched/model/apply-reconfigure.ts";
import type { Command } from "../sched/model/commands.ts";
import { createState } from "../sched/model/state.ts";
import type { ClusterState } from "../sched/model/types.ts";

type NetworkTopology = ClusterState["topology"];

declare const self: Worker;

export type ToWorker =
  | { t: "init"; conf: ParsedConf; topology: NetworkTopology }
  | { t: "restore"; image: Uint8Array; index: number }
  | { t: "apply"; entries: { index: number; data: Uint8Array }[]; upTo: number }
  /** `addresses`: the controllers' addresses, carried in front of the image (raft/snapshot-peers.ts). */
  | { t: "snapshot"; id: number; index: number; addresses: [number, string][] };

/** What a snapshot answer carries besides the image: the replica checks its copy was equal. */
export interface Fingerprint {
  appliedIndex: number;
  nextJobId: number;
  jobs: number;
}

export type FromWorker = { t: "snapshot"; id: number; image?: Uint8Array; error?: string; fingerprint?: Fingerprint; encodeMs?: number };

let state: ClusterState | undefined;
/** The Raft index this copy is at. */
let index = 0;

function handle(m: ToWorker): void {
  if (m.t === "init") {
    const made = createState(m.conf);
    if (!made.ok) throw new Error(made.error.message);
    state = made.value;
    state.topology = m.topology;
    return;
  }
  const s = state;
  if (s === undefined) throw new Error("snapshot worker used before init");
  if (m.t === "restore") {
    restoreSnapshot(s, m.image);
    restoreReconfigured(s);
    index = m.index;
  } else if (m.t === "apply") {
    for (const e of m.entries) {
      try {
        apply(s, decodeCommand(e.data) as Command);
      } catch {
        // skipped, as the driver skips it (skipFailedEntry)
      }
    }
    index = m.upTo;
  } else {
    answer(s, m);
  }
}

function answer(s: ClusterState, m: { id: number; index: number; addresses: [number, string][] }): void {
  if (m.index !== index) {
    postMessage({ t: "snapshot", id: m.id, error: `snapshot asked at ${m.index}, this copy is at ${index}` } satisfies FromWorker);
    return;
  }
  const started = performance.now();
  const image = wrapSnapshot(new Map(m.addresses), encodeSnapshot(s, m.index));
  const reply: FromWorker = {
    t: "snapshot", id: m.id, image, encodeMs: performance.now() - started,
    fingerprint: { appliedIndex: s.appliedIndex, nextJobId: s.nextJobId, jobs: s.jobs.size },
  };
  // Transferred, not copied: the image leaves this thread.
  postMessage(reply, [image.buffer as ArrayBuffer]);
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
