/**
 * @module tests/unit/ctld/snapshotter
 * The snapshot worker (a real Worker thread) keeps its own copy of the controller's state
 * from the committed entries and answers an image equal to one the replica would take
 * itself at that index, while the replica has moved on; restored images carry over; a
 * copy that differs from the replica's is caught, and the worker is given up.
 */
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { startSnapshotter } from "../../../src/ctld/snapshotter.ts";
import type { Entry } from "../../../src/raft/core/index.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import { unwrapSnapshot } from "../../../src/raft/snapshot-peers.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

describe("snapshot worker", () => {
  it("answers the image of its own copy at the asked index while the replica goes on", async () => {
    index = 0;
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog);
    try {
      const first = Array.from({ length: 20 }, (_, i) => commit(state, submit(spec({ name: `a${i}` }), 10 + i)));
      s.committed([...first, { index: ++index, term: 1, type: "conf-change", data: new Uint8Array(0) }]);
      const at = index;
      const expected = encodeSnapshot(state, at);
      const taking = s.take(at, new Map([[1, "h:1:2"]]));
      // The replica applies more before the answer comes: the image must not see them.
      s.committed([commit(state, submit(spec({ name: "later" }), 50))]);
      const answer = await taking;
      const { addresses, image } = unwrapSnapshot(answer?.image ?? new Uint8Array(0));
      expect(addresses.get(1)).toBe("h:1:2");
      const fromWorker = fresh();
      const fromReplica = fresh();
      expect(restoreSnapshot(fromWorker, image)).toBe(at);
      restoreSnapshot(fromReplica, expected);
      expect(JSON.stringify([...fromWorker.jobs.values()])).toBe(JSON.stringify([...fromReplica.jobs.values()]));
      expect(fromWorker.jobs.size).toBe(20);
      expect(s.alive()).toBe(true);
    } finally {
      s.stop();
    }
  });

  it("carries the replica's job archive in front of the image: a replica installing it gets the purged jobs' rows", async () => {
    index = 0;
    const dir = mkdtempSync(join(tmpdir(), "snap-archive-"));
    const archive = openJobArchive(join(dir, "job-archive.sqlite"));
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog, { archivePath: join(dir, "job-archive.sqlite") });
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
      s.committed(entries);
      const answer = await s.take(index, new Map());
      const { rows, stateImage } = splitArchive(unwrapSnapshot(answer?.image ?? new Uint8Array(0)).image);
      const follower = fresh();
      expect(restoreSnapshot(follower, stateImage)).toBe(index);
      expect([...follower.jobs.keys()]).toEqual([2]);
      const followerArchive = openJobArchive(join(dir, "follower.sqlite"));
      expect(followerArchive.importRows(rows ?? new Uint8Array(0))).toBe(1);
      const all = { jobIds: [], windowStart: 0, windowEnd: 0 };
      expect(followerArchive.list(all)).toEqual(archive.list(all));
      expect(followerArchive.list(all).map((j) => [j.jobId, j.state])).toEqual([[1, "CANCELLED"]]);
      followerArchive.close();
    } finally {
      s.stop();
      archive.close();
    }
  });

  it("starts from a restored image like the replica does", async () => {
    index = 0;
    const base = fresh();
    for (let i = 0; i < 5; i++) commit(base, submit(spec(), 10 + i));
    const image = encodeSnapshot(base, index);
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog);
    try {
      restoreSnapshot(state, image);
      s.restored(image, index);
      s.committed([commit(state, submit(spec({ name: "after" }), 30))]);
      const answer = await s.take(index, new Map());
      const copy = fresh();
      restoreSnapshot(copy, unwrapSnapshot(answer?.image ?? new Uint8Array(0)).image);
      expect([...copy.jobs.values()].map((j) => j.spec.name)).toEqual([...state.jobs.values()].map((j) => j.spec.name));
    } finally {
      s.stop();
    }
  });

  /** The jobs of an answered image, as JSON (what a replica restoring it would hold). */
  const jobsOf = (answer: { image: Uint8Array } | undefined): string => {
    const copy = fresh();
    restoreSnapshot(copy, unwrapSnapshot(answer?.image ?? new Uint8Array(0)).image);
    return JSON.stringify([...copy.jobs.entries()]);
  };
  const replicaJobs = (state: ClusterState): string => {
    const copy = fresh();
    restoreSnapshot(copy, encodeSnapshot(state, index));
    return JSON.stringify([...copy.jobs.entries()]);
  };

  it("builds each snapshot from its last image and the entries since (no copy of the state kept between)", async () => {
    index = 0;
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog);
    try {
      s.committed(Array.from({ length: 10 }, (_, i) => commit(state, submit(spec({ name: `a${i}` }), 10 + i))));
      expect(jobsOf(await s.take(index, new Map()))).toBe(replicaJobs(state));
      // after the first image: changes to jobs that image holds, and new ones
      s.committed([
        commit(state, { v: 1, type: "cancel", at: 40, filter: { jobIds: ["3"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 0, batchOnly: false, by: ROOT }),
        ...Array.from({ length: 5 }, (_, i) => commit(state, submit(spec({ name: `b${i}` }), 50 + i))),
      ]);
      const second = await s.take(index, new Map());
      expect(jobsOf(second)).toBe(replicaJobs(state));
      expect(s.alive()).toBe(true);
    } finally {
      s.stop();
    }
  });

  it("folds a long run of entries into a new image before it is asked, and answers the same", async () => {
    index = 0;
    const state = fresh();
    // a fold after every few entries: the answer comes from images folded while entries arrived
    const s = startSnapshotter(conf, state.topology, state, noLog, { foldBytes: 2000 });
    try {
      for (let batch = 0; batch < 6; batch++) {
        s.committed(Array.from({ length: 4 }, (_, i) => commit(state, submit(spec({ name: `f${batch}-${i}`, comment: "x".repeat(100) }), 10 + batch * 4 + i))));
      }
      expect(jobsOf(await s.take(index, new Map()))).toBe(replicaJobs(state));
      expect(s.alive()).toBe(true);
    } finally {
      s.stop();
    }
  });

  it("gives the worker up when its copy differs from the replica's", async () => {
    index = 0;
    const state = fresh();
    const s = startSnapshotter(conf, state.topology, state, noLog);
    try {
      commit(state, submit(spec(), 10)); // applied here, never fed to the worker
      await expect(s.take(index, new Map())).rejects.toThrow(/differs|copy is at/);
      expect(s.alive()).toBe(false);
      expect(s.take(index, new Map())).toBeUndefined();
    } finally {
      s.stop();
    }
  });
});
