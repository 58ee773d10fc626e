/**
 * @module sim/raft/history
 * Client history of the simulated counter (increments by unique op id, reads through
 * ReadIndex) and its linearizability check. Writes are ordered by the log, so the check is
 * exact and polynomial: every real-time precedence must agree with that order.
 */

export interface WriteOp {
  id: number;
  invokedAt: number;
  ackedAt?: number;
}

export interface ReadOp {
  context: string;
  invokedAt: number;
  answeredAt?: number;
  /** Counter value returned: the number of distinct writes applied. */
  value?: number;
}

export class History {
  readonly writes = new Map<number, WriteOp>();
  readonly reads = new Map<string, ReadOp>();

  invokeWrite(id: number, at: number): void {
    this.writes.set(id, { id, invokedAt: at });
  }

  ackWrite(id: number, at: number): void {
    const w = this.writes.get(id);
    if (w !== undefined && w.ackedAt === undefined) w.ackedAt = at;
  }

  invokeRead(context: string, at: number): void {
    this.reads.set(context, { context, invokedAt: at });
  }

  answerRead(context: string, value: number, at: number): void {
    const r = this.reads.get(context);
    if (r !== undefined && r.answeredAt === undefined) {
      r.answeredAt = at;
      r.value = value;
    }
  }

  ackedWrites(): WriteOp[] {
    return [...this.writes.values()].filter((w) => w.ackedAt !== undefined);
  }

  /**
   * `order` lists write ids in the order they took effect. A read returning v observed the
   * first v of them. Linearizable iff: a write acked before a read began is among the read's
   * first v; a write begun after a read answered is not; reads in real-time order never go
   * back; writes in real-time order keep their log order. Returns the first violation.
   */
  checkLinearizable(order: readonly number[]): string | undefined {
    const pos = new Map<number, number>();
    order.forEach((id, i) => pos.set(id, i));
    const reads = [...this.reads.values()].filter((r) => r.answeredAt !== undefined);
    const writes = [...this.writes.values()];
    for (const r of reads) {
      const v = r.value as number;
      if (v > order.length) return `read ${r.context} saw ${v} writes, only ${order.length} ever applied`;
      for (const w of writes) {
        const p = pos.get(w.id);
        if (w.ackedAt !== undefined && w.ackedAt < r.invokedAt && (p === undefined || p >= v)) {
          return `stale read ${r.context}: value ${v} misses write ${w.id} acked before it began`;
        }
        if (w.invokedAt > (r.answeredAt as number) && p !== undefined && p < v) {
          return `read ${r.context} saw write ${w.id} that began after it answered`;
        }
      }
    }
    for (const a of reads) for (const b of reads) {
      if ((a.answeredAt as number) < b.invokedAt && (a.value as number) > (b.value as number)) {
        return `reads went back: ${a.context}=${a.value} then ${b.context}=${b.value}`;
      }
    }
    for (const a of writes) for (const b of writes) {
      if (a.ackedAt === undefined || a.ackedAt >= b.invokedAt) continue;
      const pa = pos.get(a.id);
      const pb = pos.get(b.id);
      if (pa === undefined || (pb !== undefined && pb < pa)) return `write ${b.id} ordered before ${a.id} that was acked before it began`;
    }
    return undefined;
  }
}
