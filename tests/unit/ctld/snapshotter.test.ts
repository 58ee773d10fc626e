/**
 * @module tests/unit/ctld/snapshotter
 * The snapshot worker (a real Worker thread) builds its copy of the controller's state from
 * its last image and the entries after it, read from the replica's Raft log file (a real
 * SqliteStorage the test writes as the driver does), and answers an image equal to one the
 * replica would take itself at that index, while the replica has moved on; restored images
 * carry over; a copy that differs from the replica's, or a log that lacks the entries after
 * the worker's image, is caught, and the worker is given up.
 */
import { afterAll, describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { startSnapshotter, type Snapshotter } from "../../../src/ctld/snapshotter.ts";
import { createSnapshotWork, type FromWorker } from "../../../src/ctld/snapshot-work.ts";
import type { Entry } from "../../../src/raft/core/index.ts";
import { SqliteStorage } from "../../../src/raft/storage-sqlite.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import { unwrapSnapshot } from "../../../src/raft/snapshot-peers.ts";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { BuiltSnapshot } from "../../../src/raft/driver/api.ts";
import { openJobArchive, splitArchive } from "../../../src/ctld/job-archive.ts";
import { apply } from "../../../src/sched/model/apply.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { createState } from "../../../src/sched/model/state.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { CONF, ROOT, spec, submit } from "../sched/builders.ts";

const conf = (() => {
  const parsed = parseConf(CONF);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
})();
const fresh = (): ClusterState => {
  const made = createState(conf);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
};
const enc = new TextEncoder();
let index = 0;
/** A committed entry as the driver stores it (envelope {p, c}), applied to `state` as the replica would. */
const commit = (state: ClusterState, command: Command): Entry => {
  apply(state, command);
  return { index: ++index, term: 1, type: "normal", data: enc.encode(JSON.stringify({ p: `t${index}`, c: command })) };
};
const noLog = { warn: () => undefined };
/** A replica's Raft log file in a fresh directory, starting after `index` (as SqliteStorage.bootstrap leaves none: tests count from 0). */
const logDirs: string[] = [];
afterAll(() => {
  for (const dir of logDirs) rmSync(dir, { recursive: true, force: true });
});
const newLog = (): { dir: string; path: string; storage: SqliteStorage } => {
  index = 0;
  const dir = mkdtempSync(join(tmpdir(), "snap-log-"));
  logDirs.push(dir);
  const path = join(dir, "raft.sqlite");
  return { dir, path, storage: new SqliteStorage(path) };
};
/** The image of a worker's answer: it wrote it to a file beside the log. */
const imageOf = (answer: BuiltSnapshot | undefined, logPath: string): Uint8Array => {
  if (answer === undefined || !("file" in answer)) throw new Error("no image file in the answer");
  const image = new Uint8Array(readFileSync(join(dirname(logPath), answer.file)));
  expect(image.length).toBe(answer.bytes);
  return image;
};
/** Persist entries as the driver does before it applies them (one write transaction). */
const persist = (storage: SqliteStorage, entries: Entry[]): void => storage.atomically(() => storage.append(entries));

type Mode = "process" | "thread";
/** The worker as a child process runs this program from source, as the replica's selfExec() would. */
const modeOpts = (mode: Mode): { process?: string[] } =>
  mode === "process" ? { process: [process.execPath, new URL("../../../src/main.ts", import.meta.url).pathname, "snapshot-worker"] } : {};

/** A worker over a fresh log and a configuration-only state, stopped (and the log closed) after `body`. */
async function withWorker(mode: Mode, body: (w: { log: ReturnType<typeof newLog>; state: ClusterState; s: Snapshotter }) => Promise<void>): Promise<void> {
  const log = newLog();
  const state = fresh();
  const s = startSnapshotter(conf, state.topology, state, noLog, { ...modeOpts(mode), logPath: log.path });
  try {
    await body({ log, state, s });
  } finally {
    s.stop();
    log.storage.close();
  }
}

const jobsOf = (answer: BuiltSnapshot | undefined, logPath: string): string => {
  const copy = fresh();
  restoreSnapshot(copy, unwrapSnapshot(imageOf(answer, logPath)).image);
  return JSON.stringify([...copy.jobs.entries()]);
};
const replicaJobs = (state: ClusterState): string => {
  const copy = fresh();
  restoreSnapshot(copy, encodeSnapshot(state, index));
  return JSON.stringify([...copy.jobs.entries()]);
};

describe.each<Mode>(["process", "thread"])("snapshot worker as a %s", (mode) => {
  it("answers the image of its own copy at the asked index while the replica goes on", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      const first = Array.from({ length: 20 }, (_, i) => commit(state, submit(spec({ name: `a${i}` }), 10 + i)));
      persist(log.storage, [...first, { index: ++index, term: 1, type: "conf-change", data: new Uint8Array(0) }]);
      const at = index;
      const expected = encodeSnapshot(state, at);
      const taking = s.take(at, new Map([[1, "h:1:2"]]));
      // The replica writes and applies more before the answer comes: the image must not see them.
      persist(log.storage, [commit(state, submit(spec({ name: "later" }), 50))]);
      const answer = await taking;
      const { addresses, image } = unwrapSnapshot(imageOf(answer, log.path));
      expect(addresses.get(1)).toBe("h:1:2");
      const fromWorker = fresh();
      const fromReplica = fresh();
      expect(restoreSnapshot(fromWorker, image)).toBe(at);
      restoreSnapshot(fromReplica, expected);
      expect(JSON.stringify([...fromWorker.jobs.values()])).toBe(JSON.stringify([...fromReplica.jobs.values()]));
      expect(fromWorker.jobs.size).toBe(20);
      expect(s.alive()).toBe(true);
    });
  });

  it("carries the replica's job archive in front of the image: a replica installing it gets the purged jobs' rows", async () => {
    const log = newLog();
    const archive = openJobArchive(join(log.dir, "job-archive.sqlite"));
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog, { ...modeOpts(mode), logPath: log.path, archivePath: join(log.dir, "job-archive.sqlite") });
    try {
      const entries = [commit(state, submit(spec({ name: "gone" }), 10)), commit(state, submit(spec({ name: "stays" }), 11))];
      const cancel: Command = { v: 1, type: "cancel", at: 12, filter: { jobIds: ["1"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 9, batchOnly: false, by: ROOT };
      entries.push(commit(state, cancel));
      // The replica applies the purge and archives what it returns, in the same turn (apply-committed.ts).
      const purge: Command = { v: 1, type: "purgeJobs", at: 12 + state.config.minJobAgeSec, jobIds: [1] };
      const result = apply(state, purge);
      expect(result.purged?.map((j) => j.info.jobId)).toEqual([1]);
      archive.put(result.purged ?? []);
      entries.push({ index: ++index, term: 1, type: "normal", data: enc.encode(JSON.stringify({ p: `t${index}`, c: purge })) });
      persist(log.storage, entries);
      const answer = await s.take(index, new Map());
      const { rows, stateImage } = splitArchive(unwrapSnapshot(imageOf(answer, log.path)).image);
      const follower = fresh();
      expect(restoreSnapshot(follower, stateImage)).toBe(index);
      expect([...follower.jobs.keys()]).toEqual([2]);
      const followerArchive = openJobArchive(join(log.dir, "follower.sqlite"));
      expect(followerArchive.importRows(rows ?? new Uint8Array(0))).toBe(1);
      const all = { jobIds: [], windowStart: 0, windowEnd: 0 };
      expect(followerArchive.list(all)).toEqual(archive.list(all));
      expect(followerArchive.list(all).map((j) => [j.jobId, j.state])).toEqual([[1, "CANCELLED"]]);
      followerArchive.close();
    } finally {
      s.stop();
      archive.close();
      log.storage.close();
    }
  });

  it("starts from a restored image like the replica does, and reads only the entries after it", async () => {
    const log = newLog();
    const base = fresh();
    for (let i = 0; i < 5; i++) commit(base, submit(spec(), 10 + i));
    const image = encodeSnapshot(base, index);
    // The replica installed the image: its log starts after it.
    log.storage.atomically(() => log.storage.applySnapshot({ meta: { index, term: 1, confState: { voters: [1], learners: [] } }, data: image }));
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog, { ...modeOpts(mode), logPath: log.path });
    try {
      restoreSnapshot(state, image);
      s.restored(image, index);
      persist(log.storage, [commit(state, submit(spec({ name: "after" }), 30))]);
      const answer = await s.take(index, new Map());
      const copy = fresh();
      restoreSnapshot(copy, unwrapSnapshot(imageOf(answer, log.path)).image);
      expect([...copy.jobs.values()].map((j) => j.spec.name)).toEqual([...state.jobs.values()].map((j) => j.spec.name));
      expect(copy.jobs.size).toBe(6);
    } finally {
      s.stop();
      log.storage.close();
    }
  });

  /** The jobs of an answered image, as JSON (what a replica restoring it would hold). */
  it("builds each snapshot from its last image and the log's entries since, the log compacted below that image as the replica does", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      // more than a log segment (SEGMENT_ENTRIES), so the read crosses tables and compaction drops one
      const many = Array.from({ length: 4200 }, (_, i) => commit(state, submit(spec({ name: `a${i}` }), 10 + i)));
      persist(log.storage, many);
      const first = await s.take(index, new Map());
      expect(jobsOf(first, log.path)).toBe(replicaJobs(state));
      log.storage.atomically(() => {
        if (first === undefined || !("file" in first)) throw new Error("no image file");
        log.storage.recordSnapshotFile(index, { voters: [1], learners: [] }, first.file);
        log.storage.compact(index);
      });
      // after the first image: changes to jobs that image holds, and new ones
      persist(log.storage, [
        commit(state, { v: 1, type: "cancel", at: 40, filter: { jobIds: ["3"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 0, batchOnly: false, by: ROOT }),
        ...Array.from({ length: 5 }, (_, i) => commit(state, submit(spec({ name: `b${i}` }), 5000 + i))),
      ]);
      const second = await s.take(index, new Map());
      expect(jobsOf(second, log.path)).toBe(replicaJobs(state));
      expect(s.alive()).toBe(true);
    });
  });

  it("keeps the worker when an image cannot be written (a full disk): that request fails, a later one writes it", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      persist(log.storage, [commit(state, submit(spec(), 10)), commit(state, submit(spec(), 11))]);
      // a directory where the image's file is to be written: the write fails as a full disk's would
      const blocker = `${log.path}.snap-${index}.tmp`;
      mkdirSync(blocker);
      await expect(s.take(index, new Map())).rejects.toThrow(/cannot write the image/);
      expect(s.alive()).toBe(true);
      rmSync(blocker, { recursive: true });
      expect(jobsOf(await s.take(index, new Map()), log.path)).toBe(replicaJobs(state));
    });
  });

  it("gives the worker up when the log lacks an entry the replica applied", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      persist(log.storage, [commit(state, submit(spec(), 10))]);
      commit(state, submit(spec(), 11)); // applied here, never written to the log
      await expect(s.take(index, new Map())).rejects.toThrow(/log ends at 1, before the asked 2/);
      expect(s.alive()).toBe(false);
      expect(s.take(index, new Map())).toBeUndefined();
    });
  });

  it("keeps the worker when the log it read was dropped by a snapshot the replica installed since it asked", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      persist(log.storage, [commit(state, submit(spec(), 10))]);
      const asked = index + 1;
      commit(state, submit(spec(), 11)); // on its way when the leader's snapshot came instead
      const taking = s.take(asked, new Map());
      // the leader's snapshot at a later index: the replica's log restarts after it
      const leader = fresh();
      for (let i = 0; i < 3; i++) commit(leader, submit(spec({ name: `l${i}` }), 20 + i));
      const image = encodeSnapshot(leader, index);
      log.storage.atomically(() => log.storage.applySnapshot({ meta: { index, term: 1, confState: { voters: [1], learners: [] } }, data: image }));
      restoreSnapshot(state, image);
      s.restored(image, index);
      await expect(taking).rejects.toThrow(/the log (ends at|has)/);
      expect(s.alive()).toBe(true);
      // the next image builds on the installed one
      persist(log.storage, [commit(state, submit(spec({ name: "after" }), 40))]);
      expect(jobsOf(await s.take(index, new Map()), log.path)).toBe(replicaJobs(state));
      expect(s.alive()).toBe(true);
    });
  });

  it("gives the worker up when its copy differs from the replica's", async () => {
    await withWorker(mode, async ({ log, state, s }) => {
      const written = commit(fresh(), submit(spec(), 10)); // in the log, never applied by the replica
      persist(log.storage, [written]);
      await expect(s.take(index, new Map())).rejects.toThrow(/differs/);
      expect(s.alive()).toBe(false);
    });
  });
});

/** This process's children running the snapshot worker role (pid list), read from /proc. */
const workerChildren = (): number[] =>
  readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map(Number).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("snapshot-worker");
    } catch {
      return false; // ended meanwhile
    }
  });
const until = async (what: string, ok: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 25));
  if (!ok()) throw new Error(`timed out waiting: ${what}`);
};
const baseFiles = (dir: string): string[] => readdirSync(dir).filter((n) => n.startsWith("snapshot-worker-base."));

describe("snapshot worker as a process, one per image", () => {
  it("ends after each answer and leaves one base file, the last image's", async () => {
    await withWorker("process", async ({ log, state, s }) => {
      persist(log.storage, [commit(state, submit(spec(), 10))]);
      await s.take(index, new Map());
      persist(log.storage, [commit(state, submit(spec(), 11))]);
      expect(jobsOf(await s.take(index, new Map()), log.path)).toBe(replicaJobs(state));
      await until("the worker process ended", () => workerChildren().length === 0);
      expect(baseFiles(log.dir)).toHaveLength(1);
      s.restored(encodeSnapshot(state, index), index);
      expect(baseFiles(log.dir)).toHaveLength(1); // the installed image replaced it
    });
  });

  it("gives the worker up when its process dies before answering", async () => {
    await withWorker("process", async ({ log, state, s }) => {
      persist(log.storage, Array.from({ length: 3000 }, (_, i) => commit(state, submit(spec({ name: `k${i}` }), 10 + i))));
      const taking = s.take(index, new Map());
      await until("the worker process started", () => workerChildren().length === 1);
      for (const pid of workerChildren()) process.kill(pid, "SIGKILL");
      await expect(taking).rejects.toThrow(/ended before answering \(signal SIGKILL\)/);
      expect(s.alive()).toBe(false);
    });
  });
});

describe("snapshot work", () => {
  it("checks its replica is still there before it writes an image's files, and writes none when not", () => {
    const log = newLog();
    const state = fresh();
    try {
      persist(log.storage, [commit(state, submit(spec(), 10))]);
      const replies: FromWorker[] = [];
      const work = createSnapshotWork((m) => replies.push(m), () => {
        throw new Error("replica gone");
      });
      work({ t: "init", conf, topology: state.topology, logPath: log.path });
      const baseFile = join(log.dir, "snapshot-worker-base.1");
      work({ t: "snapshot", id: 1, index, addresses: [], baseFile });
      expect(replies).toHaveLength(1);
      expect(replies[0]?.error).toMatch(/replica gone/);
      expect(readdirSync(log.dir).filter((n) => n.startsWith("raft.sqlite.snap-") || n.startsWith("snapshot-worker-base."))).toEqual([]);
    } finally {
      log.storage.close();
    }
  });
});
