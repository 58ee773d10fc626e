/**
 * @module sim/raft/network
 * A seeded message network: every message gets a delay in ticks, may be dropped or
 * duplicated, and is delivered in random order among those due (reordering). Partitions
 * are sets of blocked directed links, so asymmetric partitions are just one direction.
 */
import type { Rng } from "../../../src/lib/rng.ts";
import type { Message, NodeId } from "../../../src/raft/core/types.ts";

export interface NetworkFaults {
  dropRate: number;
  duplicateRate: number;
  delayTicksMax: number;
}

interface InFlight {
  dueTick: number;
  message: Message;
}

export class SimNetwork {
  private inFlight: InFlight[] = [];
  private readonly blocked = new Set<string>();
  faults: NetworkFaults;
  private readonly rng: Rng;
  sent = 0;
  dropped = 0;

  constructor(rng: Rng, faults: NetworkFaults) {
    this.rng = rng;
    this.faults = faults;
  }

  send(m: Message, nowTick: number): void {
    this.sent++;
    if (this.rng.next() < this.faults.dropRate) {
      this.dropped++;
      return;
    }
    const copies = this.rng.next() < this.faults.duplicateRate ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      this.inFlight.push({ dueTick: nowTick + this.rng.int(0, this.faults.delayTicksMax), message: m });
    }
  }

  /** Messages to a receiver for which this is true wait (a paused process reads nothing). */
  held: (to: NodeId) => boolean = () => false;

  private isDue(f: InFlight, nowTick: number): boolean {
    return f.dueTick <= nowTick && !this.held(f.message.to);
  }

  /** How many messages are due at `nowTick`. */
  dueCount(nowTick: number): number {
    let n = 0;
    for (const f of this.inFlight) if (this.isDue(f, nowTick)) n++;
    return n;
  }

  /** Remove and return a random due message, or undefined. Blocked links swallow it. */
  takeRandomDue(nowTick: number): Message | undefined {
    const due: number[] = [];
    for (let i = 0; i < this.inFlight.length; i++) if (this.isDue(this.inFlight[i] as InFlight, nowTick)) due.push(i);
    if (due.length === 0) return undefined;
    const at = this.rng.pick(due);
    const [f] = this.inFlight.splice(at, 1);
    const m = (f as InFlight).message;
    if (this.isBlocked(m.from, m.to)) {
      this.dropped++;
      return undefined;
    }
    return m;
  }

  block(from: NodeId, to: NodeId): void {
    this.blocked.add(`${from}>${to}`);
  }

  isBlocked(from: NodeId, to: NodeId): boolean {
    return this.blocked.size > 0 && this.blocked.has(`${from}>${to}`);
  }

  /** Cut every link between the two groups, both directions. */
  partition(a: readonly NodeId[], b: readonly NodeId[]): void {
    for (const x of a) for (const y of b) {
      this.block(x, y);
      this.block(y, x);
    }
  }

  heal(): void {
    this.blocked.clear();
  }

  isPartitioned(): boolean {
    return this.blocked.size > 0;
  }

  pending(): number {
    return this.inFlight.length;
  }
}
