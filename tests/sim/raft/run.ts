/**
 * @module sim/raft/run
 * One seeded simulation run: a fault phase (everything in faults.ts), then heal (network
 * whole, every server restarted) and demand liveness (a leader within K ticks), convergence
 * (every member applies everything) and the end checks: no acknowledged write lost, and the
 * client history linearizable. Any failure throws with `SEED=<n>` so it replays exactly.
 */
import { createRng } from "../../../src/lib/rng.ts";
import { Cluster, type ClusterParams } from "./cluster.ts";
import { clientTraffic, drawRates, injectFaults } from "./faults.ts";

export interface SimOptions {
  replicaCount?: number;
  faultTicks?: number;
  /** K: after healing, a leader must be recognised by every live voter within this many ticks. */
  healTicksMax?: number;
  convergeTicksMax?: number;
  trace?: boolean;
}

export interface SimResult {
  seed: number;
  replicaCount: number;
  ticks: number;
  events: number;
  messages: number;
  maxTerm: number;
  commitIndex: number;
  writesInvoked: number;
  writesAcked: number;
  readsAnswered: number;
  leaderAfterHealTicks: number;
  stats: Cluster["stats"];
}

export const ELECTION_TICKS = 6;

function setup(seed: number, opts: SimOptions): { params: ClusterParams; faultTicks: number } {
  const rng = createRng((seed ^ 0x5bd1e995) >>> 0);
  const replicaCount = opts.replicaCount ?? (rng.next() < 0.6 ? 3 : 5);
  const params: ClusterParams = {
    seed,
    replicaCount,
    raft: {
      electionTicks: ELECTION_TICKS,
      heartbeatTicks: 1,
      // Small limits so windows fill, messages split and snapshots take several chunks.
      maxSizePerMsg: rng.next() < 0.3 ? 1 : rng.int(8, 64),
      maxInflightMsgs: rng.int(1, 8),
      snapshotChunkBytes: rng.int(16, 128),
    },
    policy: { snapshotEveryEntries: rng.int(4, 30), trailingEntries: rng.int(0, 6) },
    eventsPerTickMax: 20_000,
    tickRateSpread: rng.next() < 0.5 ? 0.2 : 0.7,
    trace: opts.trace ?? false,
  };
  return { params, faultTicks: opts.faultTicks ?? rng.int(60, 140) };
}

export function runSeed(seed: number, opts: SimOptions = {}): SimResult {
  const { params, faultTicks } = setup(seed, opts);
  const c = new Cluster(params);
  const rates = drawRates(c.rng, params.replicaCount, ELECTION_TICKS);
  c.net.faults = { dropRate: rates.dropRate, duplicateRate: rates.duplicateRate, delayTicksMax: rates.delayTicksMax };
  let leaderAfterHealTicks = -1;
  try {
    for (let t = 0; t < faultTicks; t++) {
      injectFaults(c, rates);
      clientTraffic(c, rates);
      c.tick();
    }
    heal(c);
    leaderAfterHealTicks = awaitLeader(c, opts.healTicksMax ?? 25 * ELECTION_TICKS);
    converge(c, opts.convergeTicksMax ?? 60 * ELECTION_TICKS);
    finalChecks(c);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const trace = c.trace.length > 0 ? `\n--- last events ---\n${c.trace.slice(-(Number(process.env.TRACE_LINES) || 120)).join("\n")}\n${describe(c)}` : "";
    throw new Error(`SEED=${seed} ${message}${trace}`, { cause: e });
  }
  const l = c.leader();
  return {
    seed,
    replicaCount: params.replicaCount,
    ticks: c.nowTick,
    events: c.events,
    messages: c.net.sent,
    maxTerm: l?.node.basicStatus().term ?? 0,
    commitIndex: l?.node.basicStatus().commit ?? 0,
    writesInvoked: c.history.writes.size,
    writesAcked: c.history.ackedWrites().length,
    readsAnswered: [...c.history.reads.values()].filter((r) => r.answeredAt !== undefined).length,
    leaderAfterHealTicks,
    stats: c.stats,
  };
}

function heal(c: Cluster): void {
  c.log("heal all: network whole, lossless, every server up");
  c.net.heal();
  c.net.faults = { dropRate: 0, duplicateRate: 0, delayTicksMax: Math.min(1, c.net.faults.delayTicksMax) };
  for (const rep of c.replicas) {
    rep.paused = false;
    if (!rep.live && !rep.retired) c.restart(rep);
  }
}

/** Ticks until one leader is recognised by every live voter of its configuration. */
function awaitLeader(c: Cluster, ticksMax: number): number {
  for (let t = 0; t <= ticksMax; t++) {
    if (stableLeader(c)) return t;
    c.tick();
  }
  throw new Error(`liveness: no leader within ${ticksMax} ticks after healing`);
}

function stableLeader(c: Cluster): boolean {
  const l = c.leader();
  if (l === undefined) return false;
  const term = l.node.basicStatus().term;
  for (const id of l.node.status().confState.voters) {
    const node = c.replica(id)?.node;
    if (node === undefined) continue;
    const s = node.basicStatus();
    if (s.lead !== l.rep.id || s.term !== term) return false;
  }
  return true;
}

/** Every live member applies everything the leader committed, including a final write. */
function converge(c: Cluster, ticksMax: number): void {
  let barrier = -1;
  let proposedAt = 0;
  for (let t = 0; t <= ticksMax; t++) {
    const l = c.leader();
    if (l !== undefined) {
      // An unacknowledged write may legitimately vanish (leader change): write again.
      const lost = barrier >= 0 && !l.rep.app.has(barrier) && t - proposedAt > 4 * ELECTION_TICKS;
      if (barrier < 0 || lost || c.checker.droppedOps.has(barrier)) {
        barrier = c.nextOp;
        proposedAt = t;
        c.clientWrite(l.rep);
      }
      if (converged(c, barrier)) return;
    }
    c.tick();
  }
  throw new Error(`convergence: members did not catch up within ${ticksMax} ticks`);
}

function converged(c: Cluster, barrier: number): boolean {
  const l = c.leader();
  if (l === undefined) return false;
  const s = l.node.status();
  if (!l.rep.app.has(barrier) || s.lastIndex !== s.commit) return false;
  for (const id of s.confState.voters.concat(s.confState.learners)) {
    const rep = c.replica(id);
    if (rep === undefined || !rep.live) continue;
    if (rep.appliedIndex !== s.commit || rep.stage !== "idle") return false;
  }
  return true;
}

function finalChecks(c: Cluster): void {
  const members = c.members();
  const acked = c.history.ackedWrites();
  for (const id of members) {
    const rep = c.replica(id);
    if (rep === undefined || !rep.live) continue;
    for (const w of acked) if (!rep.app.has(w.id)) throw new Error(`acknowledged write ${w.id} lost on ${id}`);
  }
  const violation = c.history.checkLinearizable(c.checker.opOrder);
  if (violation !== undefined) throw new Error(`linearizability: ${violation}`);
}

/** One line per replica, for failure reports. */
function describe(c: Cluster): string {
  return c.replicas
    .map((rep) => {
      const node = rep.node;
      if (node === undefined) return `${rep.id}: down${rep.retired ? " (retired)" : ""}`;
      const s = node.status();
      const conf = `voters ${s.confState.voters.join(",")} learners ${s.confState.learners.join(",")} @${s.confIndex}`;
      return `${rep.id}: ${s.state} term ${s.term} lead ${s.lead} commit ${s.commit} applied ${s.applied} log ${s.firstIndex}-${s.lastIndex} ${conf}`;
    })
    .join("\n");
}
