/**
 * @module sim/controller/run
 * One seeded run of the controller simulation (issue 14 part 2). User, admin and agent
 * commands (generate.ts) are committed one per step; the scheduler runs on a snapshot
 * of the state as it was, and its commands (startJobs, deadlineExpired,
 * dependencyNeverSatisfied, preempt, and what the clock made due: timeLimitReached,
 * signalBeforeEnd) are committed only some steps later and not in the order
 * they were made: that is the race between a pass and the commands committed before
 * its decisions. Every command goes through the same apply() as the controller, after a
 * JSON round trip as through the log. After every step: apply did not throw nor answer
 * APPLY_FAILED, and the invariants hold (invariants.ts); a replica applying the same log
 * from the start in lockstep is compared every few commands (canonical text), and every
 * SNAPSHOT_EVERY commands that replica is replaced by one restored from a snapshot of it
 * (ctld/state-snapshot.ts), which must carry on identically; at the
 * end a full replay from scratch must give the same state too. The leader's purges of jobs
 * past MinJobAge (sched/model/apply-purge.ts) are committed late like the pass's commands;
 * each replica keeps an archive of the records they return (a model of ctld/job-archive.ts:
 * an upsert by job id), and the restored replica starts with an empty one filled from the
 * snapshot's rows, as a follower that installs a snapshot does: the archives must stay equal.
 * Any failure throws with `SEED=<n>`; `SEED=n` in the environment replays exactly.
 */
import { createRng } from "../../../src/lib/rng.ts";
import { APPLY_FAILED, apply, type ApplyResult } from "../../../src/sched/model/apply.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";
import { canonical as canonicalText } from "./canonical.ts";
import { userCommand } from "./generate.ts";
import { checkInvariants } from "./invariants.ts";
import { confFor, freshState } from "./world.ts";
import { planPreemption } from "../../../src/sched/plan/preempt.ts";
import { dueCommands } from "../../../src/sched/model/due.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import { restoreReconfigured } from "../../../src/sched/model/apply-reconfigure.ts";
import { purgeCandidates } from "../../../src/sched/model/apply-purge.ts";
import { splitArchive, withArchive } from "../../../src/ctld/job-archive.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface SimStats {
  steps: number;
  commands: number;
  passes: number;
  decisions: number;
  /** Start decisions apply() rejected as stale (the race happened and was handled). */
  staleRejected: number;
  /** Of which for an array task no longer pending (the crash). */
  staleArrayTask: number;
  jobs: number;
  /** Preemption plans made (committed late like the decisions). */
  preemptions: number;
  /** Jobs purged after MinJobAge (archived), and the most rows a snapshot carried. */
  purged?: number;
  archivedAtSnapshot?: number;
}

/** Commands between two comparisons of the lockstep replica with the live state. */
const COMPARE_EVERY = 8;
/** Commands between two snapshot-and-restore of the lockstep replica. */
const SNAPSHOT_EVERY = 48;

interface Delayed {
  due: number;
  command: Command;
}

export function runSeed(seed: number, steps: number): SimStats {
  const rng = createRng(seed);
  const conf = confFor(seed);
  const live = freshState(conf);
  let replica = freshState(conf);
  const liveArchive: Archive = new Map();
  let replicaArchive: Archive = new Map();
  const log: string[] = [];
  const stats: SimStats = { steps: 0, commands: 0, passes: 0, decisions: 0, staleRejected: 0, staleArrayTask: 0, jobs: 0, preemptions: 0 };
  let step = 0;
  const fail = (message: string): never => {
    const tail = log.slice(-6).map((t) => `  ${t.slice(0, 300)}`).join("\n");
    throw new Error(`SEED=${seed} step ${step}: ${message}\nlast commands:\n${tail}`);
  };
  const commit = (command: Command): void => {
    const text = JSON.stringify(command);
    log.push(text);
    stats.commands++;
    const before = live.nextJobId;
    let result: ApplyResult | undefined;
    try {
      result = apply(live, JSON.parse(text) as Command);
    } catch (error) {
      fail(`apply threw: ${String((error as Error).stack ?? error)}`);
    }
    if (result?.errorCode === APPLY_FAILED) fail(`apply failed: ${result.error}`);
    archivePurged(liveArchive, result);
    for (const item of result?.items ?? []) {
      if (!item.error.startsWith("stale ")) continue;
      stats.staleRejected++;
      if (item.error.includes("array task")) stats.staleArrayTask++;
    }
    archivePurged(replicaArchive, apply(replica, JSON.parse(text) as Command));
    if (stats.commands % SNAPSHOT_EVERY === 0) {
      // As a replica restarting from its snapshot: config from the file, the rest from the image,
      // the archive's rows too (it never applies the purges before the image).
      const image = withArchive(encoder.encode(archiveText(replicaArchive)), encodeSnapshot(replica, stats.commands));
      const { rows, stateImage } = splitArchive(image);
      const restored = freshState(conf);
      restoreSnapshot(restored, stateImage);
      restoreReconfigured(restored);
      if (canonical(restored) !== canonical(replica)) fail(`a replica restored from a snapshot differs ${firstDifference(canonical(replica), canonical(restored))}`);
      replica = restored;
      replicaArchive = new Map(JSON.parse(decoder.decode(rows)) as [number, string][]);
      stats.archivedAtSnapshot = Math.max(stats.archivedAtSnapshot ?? 0, replicaArchive.size);
    }
    const broken = checkInvariants(live, before);
    if (broken !== "") fail(`invariant: ${broken}`);
    // Canonical text is the costly part of a step: compared every few commands (a divergence stays).
    if (stats.commands % COMPARE_EVERY === 0 && canonical(live) !== canonical(replica)) {
      fail(`a replica applying the same log differs ${firstDifference(canonical(live), canonical(replica))}`);
    }
    if (stats.commands % COMPARE_EVERY === 0 && archiveText(liveArchive) !== archiveText(replicaArchive)) fail("the replicas' archives differ");
  };
  let now = 100;
  for (const node of [...live.nodes.values()]) commit({ v: 1, type: "registerNode", at: now, node: { ...structuredClone(node.info), addr: "127.0.0.1" }, runningJobIds: [] });
  const delayed: Delayed[] = [];
  for (step = 0; step < steps; step++) {
    stats.steps++;
    now += rng.int(0, 3);
    const r = rng.next();
    if (r < 0.25) {
      // A pass on the state as it is now (schedule() reads, never writes); its commands commit some steps later.
      const pass = schedule(live, now);
      stats.passes++;
      stats.decisions += pass.decisions.length;
      const later = (command: Command) => delayed.push({ due: step + rng.int(0, 6), command });
      if (pass.decisions.length > 0) later({ v: 1, type: "startJobs", at: now, decisions: pass.decisions });
      if (pass.expired.length > 0) later({ v: 1, type: "deadlineExpired", at: now, jobIds: pass.expired });
      if (pass.invalidDeps.length > 0) later({ v: 1, type: "dependencyNeverSatisfied", at: now, jobIds: pass.invalidDeps });
      // What the clock made due (time limits, --signal), made on the same state and committed late too.
      for (const command of dueCommands(live, now, () => 0)) later(command);
      const purge = purgeCandidates(live, now);
      if (purge.length > 0) later({ v: 1, type: "purgeJobs", at: now, jobIds: purge });
      const preemption = planPreemption(live, pass.reasons, pass.priorities);
      if (preemption !== undefined) {
        stats.preemptions++;
        later({ v: 1, type: "preempt", at: now, ...preemption });
      }
    } else if (r < 0.45 && delayed.length > 0) {
      // One delayed command, due or not, in no particular order.
      const due = delayed.filter((d) => d.due <= step);
      const pick = rng.pick(due.length > 0 && rng.next() < 0.7 ? due : delayed);
      delayed.splice(delayed.indexOf(pick), 1);
      commit(pick.command);
    } else {
      const command = userCommand(rng, live, now);
      if (command !== undefined) commit(command);
    }
  }
  for (const d of delayed) commit(d.command);
  const again = freshState(conf);
  const againArchive: Archive = new Map();
  for (const text of log) archivePurged(againArchive, apply(again, JSON.parse(text) as Command));
  if (canonical(again) !== canonical(live)) fail("replaying the whole log from the start gives a different state");
  if (archiveText(againArchive) !== archiveText(liveArchive)) fail("replaying the whole log from the start gives a different archive");
  stats.jobs = live.jobs.size;
  stats.purged = liveArchive.size;
  return stats;
}

/** Replicas are compared field by field whatever order their optional parts were added in. */
const canonical = (state: ClusterState): string => canonicalText(state, { byName: true });

/** A replica's archive of purged jobs: job id → the record's info as JSON (ctld/job-archive.ts upserts by id). */
type Archive = Map<number, string>;

function archivePurged(archive: Archive, result: ApplyResult | undefined): void {
  for (const job of result?.purged ?? []) archive.set(job.info.jobId, JSON.stringify(job.info));
}

const archiveText = (archive: Archive): string => JSON.stringify([...archive].sort((a, b) => a[0] - b[0]));

/** Where two canonical texts first differ, with some context (what a failing seed needs to show). */
function firstDifference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `at character ${i}:\n  live:    ...${a.slice(Math.max(0, i - 120), i + 80)}\n  replica: ...${b.slice(Math.max(0, i - 120), i + 80)}`;
}

export type { ClusterState };
