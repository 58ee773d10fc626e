/**
 * @module ctld/snapshotter
 * The replica's side of the snapshot worker (snapshot-work.ts), a child process
 * (roles/snapshot-worker.ts) or a Worker thread (snapshot-worker.ts): it hands the worker every
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
import { serialize } from "bun:jsc";
import { readdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { BuiltSnapshot } from "../raft/driver/api.ts";
import type { Fingerprint, FromWorker, ToWorker } from "./snapshot-work.ts";

type NetworkTopology = ClusterState["topology"];

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

/** One end of the worker, whichever it is. */
interface WorkerEnd {
  post(m: ToWorker): void;
  stop(): void;
}

interface WorkerEvents {
  message(m: FromWorker): void;
  failed(why: string): void;
}

function threadEnd(on: WorkerEvents): WorkerEnd {
  const worker = new Worker(workerUrl());
  worker.onmessage = (event: MessageEvent<FromWorker>) => on.message(event.data);
  worker.onerror = (event) => on.failed(String(event.message ?? event));
  // Unref'd: a replica that stops must not be kept alive by its snapshot thread.
  worker.unref();
  return { post: (m) => worker.postMessage(m), stop: () => worker.terminate() };
}

/** The state part of the worker's base image, beside the log: a file per base (installed or taken). */
const BASE_PREFIX = "snapshot-worker-base.";

/**
 * The worker as a child process, one per image (`command` runs roles/snapshot-worker.ts), nice'd
 * by the command. Its own process: building a 100k-job state (~1.5 s of CPU and ~300 MB of fresh
 * memory, then freed) is scheduled after the replica's own work (nice applies to all of a
 * process's threads, where a Worker thread shares the replica's collector and allocator threads),
 * and its memory is returned when it exits instead of staying resident in the replica between
 * images (issue 16). The base it starts from is a file here (`dir`), never held by the replica:
 * an installed image is written to one (a large IPC message would stall the replica while it is
 * serialized); an image taken leaves its state part as the next one's base. So is the init
 * message (the configuration: 2 MB and ~110 ms to serialize at 10k distinct node lines), once;
 * each process reads it (its path is the command's last argument).
 */
function processEnd(command: readonly string[], dir: string, on: WorkerEvents): WorkerEnd {
  for (const name of readdirSync(dir)) if (name.startsWith(BASE_PREFIX)) rmSync(join(dir, name), { force: true });
  const initFile = join(dir, "snapshot-worker-init");
  let init = false;
  let base: { file: string; index: number } | undefined;
  let files = 0;
  let running: { kill(): void } | undefined;
  let stopped = false;
  const newBaseFile = (): string => join(dir, `${BASE_PREFIX}${++files}`);
  const setBase = (next: { file: string; index: number }): void => {
    if (base !== undefined && base.file !== next.file) rmSync(base.file, { force: true });
    base = next;
  };
  const snapshot = (m: Extract<ToWorker, { t: "snapshot" }>): void => {
    if (!init) throw new Error("snapshot worker used before init");
    const baseFile = newBaseFile();
    let answered = false;
    const child = Bun.spawn([...command, initFile], {
      stdio: ["ignore", "inherit", "inherit"],
      serialization: "advanced",
      ipc: (raw) => {
        const a = raw as FromWorker;
        answered = true;
        // Its state part is the next base unless an installed image came meanwhile (newer).
        if (a.file !== undefined && (base === undefined || m.index > base.index)) setBase({ file: baseFile, index: m.index });
        else rmSync(baseFile, { force: true });
        child.kill();
        on.message(a);
      },
      onExit: (_p, code, signal) => {
        if (running === child) running = undefined;
        if (!answered && !stopped) on.failed(`the snapshot worker process ended before answering (${signal === null ? `exit ${code}` : `signal ${signal}`})`);
      },
    });
    running = child;
    // A replica that stops must not be kept alive by its worker; the worker ends when the channel closes.
    child.unref();
    child.send({ ...m, ...(base === undefined ? {} : { base }), baseFile });
  };
  return {
    post(m) {
      if (m.t === "init") {
        writeFileSync(initFile, new Uint8Array(serialize(m)), { mode: 0o600 });
        init = true;
      } else if (m.t === "restore") {
        const file = newBaseFile();
        writeFileSync(file, m.image, { mode: 0o600 });
        setBase({ file, index: m.index });
      } else snapshot(m);
    },
    stop() {
      stopped = true;
      running?.kill();
    },
  };
}

const fingerprintOf = (s: ClusterState): Fingerprint => ({ appliedIndex: s.appliedIndex, nextJobId: s.nextJobId, jobs: s.jobs.size });
const sameFingerprint = (a: Fingerprint, b: Fingerprint): boolean => a.appliedIndex === b.appliedIndex && a.nextJobId === b.nextJobId && a.jobs === b.jobs;

/**
 * Start the worker with the inputs the replica's own state was built from (`state` must
 * still be that configuration-only state: call this before anything is restored or applied)
 * and the path of the replica's Raft log (`logPath`, raft/storage-sqlite.ts).
 */
export function startSnapshotter(
  conf: ParsedConf, topology: NetworkTopology, state: ClusterState, log: { warn(o: object): void },
  opts: { logPath: string; archivePath?: string; process?: readonly string[] },
): Snapshotter {
  let worker: WorkerEnd | undefined;
  let seq = 0;
  const waiting = new Map<number, Waiting>();
  /** The index of the last snapshot the replica installed (restored). */
  let restoredAt = 0;

  const fail = (why: string): void => {
    if (worker === undefined) return;
    log.warn({ message: "snapshot worker stopped: snapshots are taken on the controller's own thread from now on", why });
    worker.stop();
    worker = undefined;
    for (const w of waiting.values()) w.reject(new Error(`snapshot worker stopped: ${why}`));
    waiting.clear();
  };
  const post = (m: ToWorker): void => {
    try {
      worker?.post(m);
    } catch (error) {
      fail(String(error));
    }
  };

  try {
    const events: WorkerEvents = {
      message(m) {
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
      },
      failed: (why) => fail(why),
    };
    worker = opts.process === undefined ? threadEnd(events) : processEnd(opts.process, dirname(opts.logPath), events);
    post({ t: "init", conf, topology, logPath: opts.logPath, ...(opts.archivePath === undefined ? {} : { archivePath: opts.archivePath }) });
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
      w?.stop();
      for (const x of waiting.values()) x.reject(new Error("controller stopping"));
      waiting.clear();
    },
  };
}
