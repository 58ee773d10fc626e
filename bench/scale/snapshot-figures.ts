/**
 * @module bench/scale/snapshot-figures
 * A replica's snapshot at `jobs` held jobs, in process, done as spurctld does it: the
 * snapshot worker (ctld/snapshotter.ts; a nice'd process, as spurctld starts it, or with
 * SNAPSHOT_WORKER=thread a Worker thread) fed the same
 * committed entries, asked for an image at the applied index, and the image written into the Raft log's SQLite file with the log
 * compacted behind it. Figures:
 *  - snapshot_block_ms: the replica thread's time for the snapshot (the request, then the
 *    write and the compaction of the 20k entries since the previous one), and snapshot_loop_lag_max_ms: the longest the event loop was late
 *    (1 ms probe) while the worker encoded;
 *  - snapshot_encode_ms: the worker's time (off the replica's thread);
 *  - snapshot_bytes_per_job: the image's size on disk per job;
 *  - restore_ms: restoring the image into a fresh state in this process, which still holds
 *    the state it was taken from (a follower sent a leader's image has its own: its heap is
 *    as large, and the collector as busy);
 *  - restore_fresh_ms: the same in a new process (what a restarting replica does).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseConf } from "../../src/compat/conf/slurm-conf.ts";
import { startSnapshotter } from "../../src/ctld/snapshotter.ts";
import { snapshotWorkerCommand } from "../../src/roles/spurctld-replicated.ts";
import type { Entry } from "../../src/raft/core/index.ts";
import { restoreSnapshot } from "../../src/ctld/state-snapshot.ts";
import { unwrapSnapshot } from "../../src/raft/snapshot-peers.ts";
import { SqliteStorage } from "../../src/raft/storage-sqlite.ts";
import type { BuiltSnapshot } from "../../src/raft/driver/api.ts";
import { apply } from "../../src/sched/model/apply.ts";
import type { Command } from "../../src/sched/model/commands.ts";
import { emptyJobSpec } from "../../src/sched/model/records.ts";
import { createState } from "../../src/sched/model/state.ts";
import type { ClusterState } from "../../src/sched/model/types.ts";
import { round } from "./replica-cluster.ts";

const CONF = "ClusterName=b\nNodeName=n[1-64] CPUs=64 RealMemory=256000\nPartitionName=p Nodes=n[1-64] Default=YES MaxTime=INFINITE\n";
const conf = (() => {
  const parsed = parseConf(CONF);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
})();

export function freshState(): ClusterState {
  const made = createState(conf);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

const by = { uid: 0, gid: 0, user: "root", group: "root" };
const submitOf = (i: number): Command => ({ v: 1, type: "submit", at: 1000 + i, spec: { ...emptyJobSpec(), name: `j${i}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true }, by, priority: 0 });

/** A state with `jobs` submitted (held) jobs. */
export function filledState(jobs: number): ClusterState {
  const state = freshState();
  for (let i = 0; i < jobs; i++) apply(state, submitOf(i));
  return state;
}

/** Longest lateness of a 1 ms timer while `work` runs. */
async function loopLagMax<T>(work: Promise<T>): Promise<{ value: T; lagMaxMs: number }> {
  let lagMaxMs = 0;
  let last = performance.now();
  const probe = setInterval(() => {
    const now = performance.now();
    lagMaxMs = Math.max(lagMaxMs, now - last - 1);
    last = now;
  }, 1);
  try {
    return { value: await work, lagMaxMs };
  } finally {
    clearInterval(probe);
  }
}

/** spurctld's default SpurRaftSnapshotEntries. */
const SNAPSHOT_EVERY = 20_000;

/** The worker's answer as a file name (it writes every image to a file beside the log). */
function fileOf(answer: BuiltSnapshot | undefined): string {
  if (answer === undefined) throw new Error("snapshot worker not running");
  if (!("file" in answer)) throw new Error("the snapshot worker answered an image, not a file");
  return answer.file;
}

async function record(storage: SqliteStorage, answer: BuiltSnapshot | undefined, index: number): Promise<void> {
  const file = fileOf(answer);
  storage.atomically(() => {
    storage.recordSnapshotFile(index, { voters: [1], learners: [] }, file);
    storage.compact(index - 2000);
  });
}

export async function snapshotFigures(jobs: number, emit: (o: object) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-snap-"));
  const state = freshState();
  const storage = SqliteStorage.bootstrap(join(dir, "raft.sqlite"), [1]);
  const snapshotter = startSnapshotter(conf, state.topology, state, { warn: (o) => console.error(JSON.stringify(o)) }, {
    logPath: join(dir, "raft.sqlite"), ...(process.env.SNAPSHOT_WORKER === "thread" ? {} : { process: snapshotWorkerCommand() }),
  });
  try {
    const enc = new TextEncoder();
    let batch: Entry[] = [];
    let index = storage.lastIndex();
    for (let i = 0; i < jobs; i++) {
      const command = submitOf(i);
      apply(state, command);
      batch.push({ index: ++index, term: 1, type: "normal", data: enc.encode(JSON.stringify({ p: `b${i}`, c: command })) });
      if (batch.length === 1000 || i === jobs - 1) {
        storage.atomically(() => storage.append(batch));
        batch = [];
        // As a replica would have: a snapshot every SNAPSHOT_EVERY entries, so that the one
        // measured compacts what one interval leaves (not the whole fill).
        if (jobs - i - 1 === SNAPSHOT_EVERY) await record(storage, await snapshotter.take(index, new Map()), index);
      }
    }
    let t = performance.now();
    const asking = snapshotter.take(index, new Map([[1, "127.0.0.1:1:2"]]));
    let blockMs = performance.now() - t;
    if (asking === undefined) throw new Error("snapshot worker not running");
    const { value: answer, lagMaxMs } = await loopLagMax(asking);
    const askMs = blockMs;
    t = performance.now();
    let writeMs = 0;
    storage.atomically(() => {
      storage.recordSnapshotFile(index, { voters: [1], learners: [] }, fileOf(answer));
      writeMs = performance.now() - t;
      storage.compact(index - 2000);
    }, false); // as the driver writes it (recordSnapshot)
    const compactMs = performance.now() - t - writeMs;
    blockMs += performance.now() - t;
    if (process.env.DEBUG) console.error({ askMs, writeMs, compactMs });
    emit({ metric: "snapshot_block_ms", value: round(blockMs), unit: "ms", jobs: state.jobs.size, goal: 50, note: "replica thread: request + write + compaction" });
    emit({ metric: "snapshot_loop_lag_max_ms", value: round(lagMaxMs), unit: "ms", jobs: state.jobs.size, note: "1 ms timer on the replica thread while the worker encoded" });
    emit({ metric: "snapshot_encode_ms", value: round(answer.encodeMs), unit: "ms", jobs: state.jobs.size, note: "in the snapshot worker, off the replica's thread" });
    emit({ metric: "snapshot_bytes_per_job", value: round(answer.bytes / state.jobs.size), unit: "bytes", jobs: state.jobs.size, total_bytes: answer.bytes, goal: 1024 });
    const fresh = freshState();
    const { image } = unwrapSnapshot(storage.snapshot().data);
    t = performance.now();
    restoreSnapshot(fresh, image);
    emit({ metric: "restore_ms", value: round(performance.now() - t), unit: "ms", jobs: fresh.jobs.size, goal: 1000, note: "in the process that holds the state" });
    const path = join(dir, "image");
    writeFileSync(path, image);
    const child = Bun.spawnSync([process.execPath, import.meta.path, "--restore", path], { stderr: "inherit" });
    if (child.exitCode !== 0) throw new Error(`restore in a new process exited ${child.exitCode}`);
    const restarted = JSON.parse(child.stdout.toString()) as { ms: number; jobs: number; minflt: number; sys_ms: number; user_ms: number };
    emit({
      metric: "restore_fresh_ms",
      value: round(restarted.ms),
      unit: "ms",
      jobs: restarted.jobs,
      goal: 1000,
      minor_faults: restarted.minflt,
      sys_ms: round(restarted.sys_ms),
      user_ms: round(restarted.user_ms),
      note: "in a new process, as a restarting replica; first-touch page faults cost ~11 µs each on this VM",
    });
  } finally {
    snapshotter.stop();
    storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `--restore PATH`: restore the image at PATH into a fresh state; print its time, minor page faults and CPU. */
if (import.meta.main && process.argv[2] === "--restore") {
  const image = readFileSync(process.argv[3] as string);
  const fresh = freshState();
  const faults = process.resourceUsage().minorPageFault;
  const cpu = process.cpuUsage();
  const t = performance.now();
  restoreSnapshot(fresh, image);
  const ms = performance.now() - t;
  const used = process.cpuUsage(cpu);
  console.log(JSON.stringify({ ms, jobs: fresh.jobs.size, minflt: process.resourceUsage().minorPageFault - faults, sys_ms: used.system / 1000, user_ms: used.user / 1000 }));
}
