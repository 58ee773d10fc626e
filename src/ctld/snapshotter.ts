/**
 * @module ctld/snapshotter
 * The replica's side of the snapshot worker (snapshot-worker.ts): it hands the worker every
 * installed snapshot and asks it for an image at an index the replica has just applied; the
 * worker reads the entries since its last image from the replica's Raft log file, which holds
 * every applied entry by then (the driver persists a Ready before applying it). Messages are
 * ordered, so an installed image reaches the worker before any later request. The worker writes
 * each image to a file beside the log (raft/snapshot-file.ts) and answers with its name. Each
 * answer carries the worker's fingerprint of its copy (applied commands, next job id, job count),
 * checked against the replica's own at that index.
 * Failure policy: a worker that fails (cannot start, throws, answers with an error or with a
 * fingerprint that differs) is stopped for good and `take` answers undefined from
 * then on: the driver then takes snapshots on its own thread, slower but right. An error
 * answering an index the replica has since passed by installing a snapshot (which drops the
 * log the worker reads) only fails that request.
 */
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { BuiltSnapshot } from "../raft/driver/api.ts";

type NetworkTopology = ClusterState["topology"];
import type { Fingerprint, FromWorker, ToWorker } from "./snapshot-worker.ts";

export interface Snapshotter {
  /** The replica replaced its state with a snapshot image taken at `index`. */
  restored(image: Uint8Array, index: number): void;
  /**
   * An image at `index` (the replica's applied index right now), with the controllers'
   * `addresses` in front (raft/snapshot-peers.ts); undefined when the worker is gone.
   */
  take(index: number, addresses: ReadonlyMap<number, string>): Promise<BuiltSnapshot> | undefined;
  /** Whether the worker is up (false: snapshots fall back to the replica's thread). */
  alive(): boolean;
  stop(): void;
}

interface Waiting {
  resolve(v: BuiltSnapshot): void;
  reject(e: Error): void;
  expected: Fingerprint;
  /** The index the image was asked at. */
  index: number;
}

/**
 * Where the worker's code is: beside this file when running from source; in the compiled
 * binary, an entry of its own (scripts/build-binary.ts) under the bundle's root, which is src/.
 */
function workerUrl(): string {
  if (Bun.main.startsWith("/$bunfs/")) return "/$bunfs/root/ctld/snapshot-worker.ts";
  return new URL("./snapshot-worker.ts", import.meta.url).href;
}

const fingerprintOf = (s: ClusterState): Fingerprint => ({ appliedIndex: s.appliedIndex, nextJobId: s.nextJobId, jobs: s.jobs.size });
const sameFingerprint = (a: Fingerprint, b: Fingerprint): boolean => a.appliedIndex === b.appliedIndex && a.nextJobId === b.nextJobId && a.jobs === b.jobs;

/**
 * Start the worker with the inputs the replica's own state was built from (`state` must
 * still be that configuration-only state: call this before anything is restored or applied)
 * and the path of the replica's Raft log (`logPath`, raft/storage-sqlite.ts).
 */
export function startSnapshotter(
  conf: ParsedConf, topology: NetworkTopology, state: ClusterState, log: { warn(o: object): void }, opts: { logPath: string; archivePath?: string },
): Snapshotter {
  let worker: Worker | undefined;
  let seq = 0;
  const waiting = new Map<number, Waiting>();
  /** The index of the last snapshot the replica installed (restored). */
  let restoredAt = 0;

  const fail = (why: string): void => {
    if (worker === undefined) return;
    log.warn({ message: "snapshot worker stopped: snapshots are taken on the controller's own thread from now on", why });
    worker.terminate();
    worker = undefined;
    for (const w of waiting.values()) w.reject(new Error(`snapshot worker stopped: ${why}`));
    waiting.clear();
  };
  const post = (m: ToWorker, transfer: ArrayBuffer[] = []): void => {
    try {
      worker?.postMessage(m, transfer);
    } catch (error) {
      fail(String(error));
    }
  };

  try {
    worker = new Worker(workerUrl());
    worker.onmessage = (event: MessageEvent<FromWorker>) => {
      const m = event.data;
      const w = waiting.get(m.id);
      if (w === undefined) return fail(m.error ?? `answer to an unknown request ${m.id}`);
      waiting.delete(m.id);
      if (m.file === undefined || m.fingerprint === undefined) {
        const why = m.error ?? "no image";
        w.reject(new Error(why));
        // built but not written (a full disk): the worker's copy is whole; the driver retries later
        if (m.writeFailed === true) return;
        // Overtaken by a snapshot the replica installed since it asked: installing dropped the log
        // the worker was reading (the driver has no use for that image any more). The worker is
        // whole: its base is the installed image from the next message on.
        if (restoredAt >= w.index) return;
        // Its copy is not where the replica is (or encoding failed): nothing it answers can be trusted.
        return fail(why);
      }
      if (!sameFingerprint(m.fingerprint, w.expected)) {
        const why = `its copy differs (${JSON.stringify(m.fingerprint)}, replica ${JSON.stringify(w.expected)})`;
        w.reject(new Error(why));
        return fail(why);
      }
      w.resolve({ file: m.file, bytes: m.bytes ?? 0, encodeMs: m.encodeMs ?? 0 });
    };
    worker.onerror = (event) => fail(String(event.message ?? event));
    // Unref'd: a replica that stops must not be kept alive by its snapshot thread.
    worker.unref();
    post({ t: "init", conf, topology, ...opts });
  } catch (error) {
    fail(String(error));
  }

  return {
    restored(image, index) {
      restoredAt = Math.max(restoredAt, index);
      post({ t: "restore", image, index });
    },
    take(index, addresses) {
      if (worker === undefined) return undefined;
      const id = ++seq;
      const expected = fingerprintOf(state);
      const answer = new Promise<BuiltSnapshot>((resolve, reject) => waiting.set(id, { resolve, reject, expected, index }));
      post({ t: "snapshot", id, index, addresses: [...addresses] });
      return answer;
    },
    alive: () => worker !== undefined,
    stop() {
      const w = worker;
      worker = undefined;
      w?.terminate();
      for (const x of waiting.values()) x.reject(new Error("controller stopping"));
      waiting.clear();
    },
  };
}
