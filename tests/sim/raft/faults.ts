/**
 * @module sim/raft/faults
 * The rare-but-legal events the simulator injects each tick, with per-seed rates drawn from
 * a profile (calm, leader churn, flaky network): crashes (at any point of the Ready
 * pipeline) and restarts, process pauses, symmetric, one-way and leader-isolating
 * partitions, membership changes through learners, leadership transfers, client traffic.
 */
import type { Rng } from "../../../src/lib/rng.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import type { Cluster } from "./cluster.ts";

export interface FaultRates {
  profile: "calm" | "leader-churn" | "flaky-network";
  crash: number;
  /** Crash whoever leads now (a targeted fault: leader changes with partial replication). */
  crashLeader: number;
  restart: number;
  /** Freeze a replica, memory intact (a stale leader wakes up still believing it leads). */
  pause: number;
  resume: number;
  partition: number;
  isolateLeader: number;
  heal: number;
  confChange: number;
  transfer: number;
  write: number;
  read: number;
  dropRate: number;
  duplicateRate: number;
  delayTicksMax: number;
  /** Members at most (voters + learners), so additions stop somewhere. */
  membersMax: number;
}

export function drawRates(rng: Rng, replicaCount: number, electionTicks: number): FaultRates {
  const u = (max: number): number => max * rng.next();
  const pick = rng.next();
  const base = {
    crash: u(0.03), crashLeader: 0, restart: 0.05 + u(0.2), pause: u(0.01), resume: 0.1 + u(0.3),
    partition: u(0.04), isolateLeader: 0, heal: 0.03 + u(0.1), confChange: u(0.04), transfer: u(0.02),
    write: 0.2 + u(0.6), read: u(0.3), dropRate: u(0.15), duplicateRate: u(0.05), delayTicksMax: rng.int(0, 3),
    membersMax: replicaCount + 2,
  };
  if (pick < 0.3) return { profile: "calm", ...base };
  if (pick < 0.7) {
    return {
      ...base, profile: "leader-churn", crashLeader: u(0.06), isolateLeader: u(0.05), pause: u(0.03),
      restart: 0.2 + u(0.3), write: 0.5 + u(1.5), read: u(0.6), confChange: u(0.06),
    };
  }
  return {
    ...base, profile: "flaky-network", dropRate: u(0.4), duplicateRate: u(0.2),
    delayTicksMax: rng.int(1, 2 * electionTicks), partition: u(0.08), pause: u(0.02),
  };
}

function chance(rng: Rng, p: number): boolean {
  return rng.next() < p;
}

/** Everything that may happen at the start of one tick of the fault phase. */
export function injectFaults(c: Cluster, rates: FaultRates): void {
  const rng = c.rng;
  const up = c.replicas.filter((r) => r.live && !r.retired);
  if (chance(rng, rates.crash) && up.length > 0) c.crash(rng.pick(up));
  const leader = c.leader();
  if (chance(rng, rates.crashLeader) && leader !== undefined) c.crash(leader.rep);
  const down = c.replicas.filter((r) => !r.live && !r.retired);
  if (chance(rng, rates.restart) && down.length > 0) c.restart(rng.pick(down));
  pauses(c, rng, rates);
  if (chance(rng, rates.partition)) partition(c, rng);
  if (chance(rng, rates.isolateLeader)) isolateLeader(c);
  if (chance(rng, rates.heal) && c.net.isPartitioned()) {
    c.log("heal");
    c.net.heal();
  }
  if (chance(rng, rates.confChange)) changeMembership(c, rng, rates);
  if (chance(rng, rates.transfer)) transfer(c, rng);
  retireRemoved(c, rng);
}

export function clientTraffic(c: Cluster, rates: FaultRates): void {
  // Rates above 1 mean several operations per tick.
  for (let w = rates.write; w > 0; w--) {
    const live = c.live();
    if (live.length > 0 && chance(c.rng, w)) c.clientWrite(c.rng.pick(live));
  }
  for (let r = rates.read; r > 0; r--) {
    const live = c.live();
    if (live.length > 0 && chance(c.rng, r)) c.clientRead(c.rng.pick(live));
  }
}

function pauses(c: Cluster, rng: Rng, rates: FaultRates): void {
  const running = c.live().filter((r) => !r.retired);
  if (chance(rng, rates.pause) && running.length > 0) {
    // Prefer the leader: a paused leader is the classic source of stale reads.
    const l = c.leader();
    const rep = l !== undefined && rng.next() < 0.5 ? l.rep : rng.pick(running);
    c.log(`pause ${rep.id}`);
    rep.paused = true;
  }
  const frozen = c.replicas.filter((r) => r.paused);
  if (chance(rng, rates.resume) && frozen.length > 0) {
    const rep = rng.pick(frozen);
    c.log(`resume ${rep.id}`);
    rep.paused = false;
  }
}

function partition(c: Cluster, rng: Rng): void {
  const ids = c.replicas.filter((r) => !r.retired).map((r) => r.id);
  const kind = rng.int(0, 2);
  if (kind === 0) {
    // Symmetric split into two random groups.
    const a = ids.filter(() => rng.next() < 0.5);
    const b = ids.filter((id) => !a.includes(id));
    c.log(`partition ${a.join(",")}|${b.join(",")}`);
    c.net.partition(a, b);
  } else {
    // Asymmetric: one node can send but not receive, or receive but not send.
    const x = rng.pick(ids);
    const canSend = kind === 1;
    c.log(`one-way partition: ${x} ${canSend ? "cannot receive" : "cannot send"}`);
    for (const y of ids) if (y !== x) canSend ? c.net.block(y, x) : c.net.block(x, y);
  }
  c.stats.partitions++;
}

function isolateLeader(c: Cluster): void {
  const l = c.leader();
  if (l === undefined) return;
  const others = c.replicas.filter((r) => r.id !== l.rep.id).map((r) => r.id);
  c.log(`isolate leader ${l.rep.id}`);
  c.net.partition([l.rep.id], others);
  c.stats.partitions++;
}

function changeMembership(c: Cluster, rng: Rng, rates: FaultRates): void {
  const l = c.leader();
  if (l === undefined) return;
  const { voters, learners } = l.node.status().confState;
  const choice = rng.int(0, 2);
  if (choice === 0 && voters.length + learners.length < rates.membersMax) {
    const id = c.nextId++;
    const res = l.node.proposeConfChange({ type: "add-learner", nodeId: id });
    c.log(`propose add-learner ${id}: ${res.ok ? "ok" : res.error.code}`);
    if (!res.ok) return;
    c.addReplica(id, new MemoryStorage());
    c.stats.confChanges++;
  } else if (choice === 1 && learners.length > 0) {
    // Promote a learner only once it holds everything committed (the core refuses otherwise).
    const id = rng.pick(learners);
    const res = l.node.proposeConfChange({ type: "add-node", nodeId: id });
    c.log(`propose promote ${id}: ${res.ok ? "ok" : res.error.code}`);
    if (res.ok) c.stats.confChanges++;
  } else if (choice === 2 && voters.length > 3) {
    const id = rng.pick(voters.concat(learners));
    const res = l.node.proposeConfChange({ type: "remove-node", nodeId: id });
    c.log(`propose remove ${id}: ${res.ok ? "ok" : res.error.code}`);
    if (res.ok) c.stats.confChanges++;
  }
  c.checker.afterStep(l.rep);
}

function transfer(c: Cluster, rng: Rng): void {
  const l = c.leader();
  if (l === undefined) return;
  const others = l.node.status().confState.voters.filter((v) => v !== l.rep.id);
  if (others.length === 0) return;
  const to = rng.pick(others);
  c.log(`transfer leadership ${l.rep.id} -> ${to}`);
  l.node.transferLeader(to);
  c.stats.transfers++;
  c.checker.afterStep(l.rep);
}

/** A replica that applied its own removal shuts down for good, sooner or later. */
function retireRemoved(c: Cluster, rng: Rng): void {
  for (const rep of c.replicas) {
    if (!rep.live || rep.retired || !rep.knowsRemoved || rng.next() > 0.2) continue;
    c.log(`retire removed ${rep.id}`);
    rep.crash();
    rep.retired = true;
  }
}
