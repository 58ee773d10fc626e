/**
 * @module sim/raft/cluster
 * The cluster under simulation: replicas, the seeded network, the safety checker and the
 * client history, plus the one scheduler loop that picks the next event (deliver a message,
 * or run one step of some replica's Ready pipeline) at random and checks after each.
 */
import { type Rng, createRng } from "../../../src/lib/rng.ts";
import { decodeConfChange } from "../../../src/raft/core/confchange.ts";
import type { RaftNode } from "../../../src/raft/core/ready.ts";
import type { RaftConfig } from "../../../src/raft/core/types.ts";
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { encodeOp } from "./app.ts";
import { SafetyChecker } from "./checkers.ts";
import { History } from "./history.ts";
import { SimNetwork } from "./network.ts";
import { type CompactionPolicy, type ReplicaObserver, SimReplica } from "./replica.ts";

export interface ClusterParams {
  seed: number;
  replicaCount: number;
  raft: Omit<Partial<RaftConfig>, "id">;
  policy: CompactionPolicy;
  /** Bound on events per tick (limits everywhere: a livelock fails instead of hanging). */
  eventsPerTickMax: number;
  /** Replicas tick with probability in [1 - spread, 1] per sim tick (clock rate skew). */
  tickRateSpread: number;
  trace: boolean;
}

export class Cluster {
  readonly rng: Rng;
  readonly net: SimNetwork;
  readonly replicas: SimReplica[] = [];
  readonly checker = new SafetyChecker();
  readonly history = new History();
  readonly params: ClusterParams;
  /** Logical time: ticks, and events (the clock of the client history). */
  nowTick = 0;
  events = 0;
  nextId: number;
  nextOp = 1;
  nextRead = 1;
  /** Per replica: chance to tick in a given sim tick (models clocks running at different rates). */
  readonly tickRate = new Map<number, number>();
  private readonly pendingWrites = new Map<number, { replica: number; incarnation: number }>();
  readonly trace: string[] = [];
  readonly observer: ReplicaObserver;
  stats = { crashes: 0, restarts: 0, partitions: 0, confChanges: 0, transfers: 0, snapshotsApplied: 0 };

  constructor(params: ClusterParams) {
    this.params = params;
    this.rng = createRng(params.seed);
    this.net = new SimNetwork(this.rng, { dropRate: 0, duplicateRate: 0, delayTicksMax: 0 });
    this.observer = this.makeObserver();
    this.net.held = (to) => this.replica(to)?.paused === true;
    const voters = Array.from({ length: params.replicaCount }, (_, i) => i + 1);
    for (const id of voters) this.addReplica(id, MemoryStorage.bootstrap(voters));
    this.nextId = params.replicaCount + 1;
  }

  private makeObserver(): ReplicaObserver {
    return {
      persisting: (rep, rd) => this.checker.persisting(rep, rd),
      appliedEntry: (rep, entry, opId) => {
        this.checker.appliedEntry(rep, entry, opId);
        if (entry.type === "conf-change") {
          const cc = decodeConfChange(entry.data);
          if (cc.type === "remove-node" && cc.nodeId === rep.id) rep.knowsRemoved = true;
        }
        if (opId === undefined) return;
        const w = this.pendingWrites.get(opId);
        if (w !== undefined && w.replica === rep.id && w.incarnation === rep.incarnation) {
          this.pendingWrites.delete(opId);
          this.history.ackWrite(opId, this.events);
        }
      },
      appliedSnapshot: (rep, snap) => {
        this.stats.snapshotsApplied++;
        this.checker.appliedSnapshot(rep, snap);
      },
      readDone: (_rep, ctx, value) => this.history.answerRead(ctx, value, this.events),
    };
  }

  log(line: string): void {
    if (!this.params.trace) return;
    this.trace.push(`t${this.nowTick} e${this.events} ${line}`);
    if (this.trace.length > 200_000) this.trace.splice(0, 10_000); // bounded even on long replays
  }

  addReplica(id: number, storage: MemoryStorage): SimReplica {
    const rep = new SimReplica({ ...this.params.raft, id }, storage, this.params.seed);
    rep.start(this.observer);
    this.replicas.push(rep);
    this.tickRate.set(id, 1 - this.params.tickRateSpread * this.rng.next());
    return rep;
  }

  replica(id: number): SimReplica | undefined {
    return this.replicas.find((r) => r.id === id);
  }

  /** Running replicas (not crashed, not paused). */
  live(): SimReplica[] {
    return this.replicas.filter((r) => r.live && !r.paused);
  }

  /** The live leader with the highest term, if any. */
  leader(): { rep: SimReplica; node: RaftNode } | undefined {
    let best: { rep: SimReplica; node: RaftNode; term: number } | undefined;
    for (const rep of this.replicas) {
      const node = rep.node;
      if (node === undefined || rep.paused) continue;
      const s = node.basicStatus();
      if (s.state === "leader" && (best === undefined || s.term > best.term)) best = { rep, node, term: s.term };
    }
    return best;
  }

  crash(rep: SimReplica): void {
    this.log(`crash ${rep.id} at stage ${rep.stage}`);
    rep.crash();
    this.stats.crashes++;
  }

  restart(rep: SimReplica): void {
    this.log(`restart ${rep.id}`);
    rep.start(this.observer);
    this.checker.restarted(rep);
    this.stats.restarts++;
  }

  /** One tick of every live replica (each at its own rate), then events until quiet. */
  tick(allTick = false): void {
    this.nowTick++;
    for (const rep of this.replicas) {
      const node = rep.node;
      if (node === undefined || rep.paused) continue;
      if (!allTick && this.rng.next() > (this.tickRate.get(rep.id) ?? 1)) continue;
      node.tick();
      this.checker.afterStep(rep);
    }
    this.drain();
  }

  /** Run events in random order (reordering across links and pipelines) until none are due. */
  drain(): void {
    for (let n = 0; n < this.params.eventsPerTickMax; n++) {
      const due = this.net.dueCount(this.nowTick);
      const busy = this.replicas.filter((r) => r.hasWork());
      if (due + busy.length === 0) return;
      const k = this.rng.int(0, due + busy.length - 1);
      this.events++;
      if (k < due) this.deliver();
      else {
        const rep = busy[k - due] as SimReplica;
        rep.work(this.observer, this.net, this.nowTick, this.params.policy);
        this.checker.afterStep(rep);
      }
    }
    throw new Error(`more than ${this.params.eventsPerTickMax} events in one tick (livelock?)`);
  }

  private deliver(): void {
    const m = this.net.takeRandomDue(this.nowTick);
    if (m === undefined) return;
    const rep = this.replica(m.to);
    if (rep === undefined || rep.node === undefined) return;
    if (this.params.trace) this.log(`${m.from}->${m.to} ${m.type} t${m.term} i${m.index} lt${m.logTerm} c${m.commit} n${m.entries.length}${m.reject ? " reject" : ""}`);
    rep.node.step(m);
    this.checker.afterStep(rep);
  }

  /**
   * A client writes through a random live replica (followers forward to the leader); one
   * write in four is a group of 2-6 proposed together (the driver's group commit).
   */
  clientWrite(rep: SimReplica): void {
    const node = rep.node;
    if (node === undefined) return;
    const count = this.rng.int(1, 4) === 4 ? this.rng.int(2, 6) : 1;
    const ids = Array.from({ length: count }, () => this.nextOp++);
    this.events++;
    const accepted = count === 1 ? node.propose(encodeOp(ids[0] as number)) : node.proposeMany(ids.map(encodeOp));
    for (const id of ids) {
      if (accepted.ok) {
        this.history.invokeWrite(id, this.events);
        this.pendingWrites.set(id, { replica: rep.id, incarnation: rep.incarnation });
      } else {
        this.checker.droppedOps.add(id);
      }
    }
    this.checker.afterStep(rep);
  }

  clientRead(rep: SimReplica): void {
    const node = rep.node;
    if (node === undefined) return;
    const ctx = `read${this.nextRead++}@${rep.id}.${rep.incarnation}`;
    this.events++;
    if (node.readIndex(ctx).ok) {
      this.history.invokeRead(ctx, this.events);
      rep.pendingReads.set(ctx, undefined);
    }
    this.checker.afterStep(rep);
  }

  /** Members per the current leader's configuration (or the bootstrap set). */
  members(): number[] {
    const l = this.leader();
    if (l === undefined) return this.replicas.filter((r) => !r.retired).map((r) => r.id);
    const cs = l.node.status().confState;
    return cs.voters.concat(cs.learners);
  }
}
