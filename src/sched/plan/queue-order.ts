/**
 * @module sched/plan/queue-order
 * Pending jobs in scheduling order, (priority desc, submission order, job id),
 * handed out lazily from a binary heap: a pass usually stops needing the order
 * after a few hundred jobs (every partition blocked, backfill depth reached),
 * so heapifying 100k jobs (O(n)) and popping a few hundred beats sorting them.
 * Keys are read once into flat arrays so comparisons touch no maps, and kept by heap position.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { assert } from "../../lib/assert.ts";
import { jobPartitions } from "../model/job-partitions.ts";

export class PendingQueue {
  /**
   * The heap by position: each entry's pending-list index, priority and submission order side by
   * side, moved together. A node's children sit next to each other, so a step down the heap reads
   * one place in each array instead of jumping to two jobs' slots in arrays by index: popping 30k
   * of 100k jobs (a pass's main loop behind a blocked partition) was mostly those jumps.
   */
  private readonly heap: Int32Array;
  private readonly heapPrio: Float64Array;
  private readonly heapSeq: Float64Array;
  private size: number;
  private bySequence = true;

  constructor(
    private readonly jobs: readonly JobRecord[],
    prio: Float64Array,
  ) {
    assert(prio.length === jobs.length, "one priority per pending job");
    this.size = jobs.length;
    this.heap = new Int32Array(jobs.length);
    this.heapPrio = new Float64Array(prio);
    this.heapSeq = new Float64Array(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      this.heap[i] = i;
      const seq = (jobs[i] as JobRecord).sequence;
      // a record without a numeric sequence (never expected) keeps the record comparison's exact meaning
      if (typeof seq !== "number" || Number.isNaN(seq)) this.bySequence = false;
      this.heapSeq[i] = seq;
    }
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get length(): number {
    return this.size;
  }

  /** True when the entry at heap position a goes before the one at b. */
  private before(a: number, b: number): boolean {
    const pa = this.heapPrio[a] as number;
    const pb = this.heapPrio[b] as number;
    if (pa !== pb) return pa > pb;
    if (this.bySequence) {
      const sa = this.heapSeq[a] as number;
      const sb = this.heapSeq[b] as number;
      if (sa !== sb) return sa < sb;
    }
    const ja = this.jobs[this.heap[a] as number] as JobRecord;
    const jb = this.jobs[this.heap[b] as number] as JobRecord;
    if (!this.bySequence && ja.sequence !== jb.sequence) return ja.sequence < jb.sequence;
    return ja.info.jobId < jb.info.jobId;
  }

  private swap(a: number, b: number): void {
    const h = this.heap;
    const t = h[a] as number;
    h[a] = h[b] as number;
    h[b] = t;
    const p = this.heapPrio;
    const tp = p[a] as number;
    p[a] = p[b] as number;
    p[b] = tp;
    const q = this.heapSeq;
    const tq = q[a] as number;
    q[a] = q[b] as number;
    q[b] = tq;
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) return;
      const r = l + 1;
      let best = l;
      if (r < this.size && this.before(r, l)) best = r;
      if (!this.before(best, i)) return;
      this.swap(i, best);
      i = best;
    }
  }

  /** The next job's index in the pending list, or -1 when none is left. */
  nextIndex(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0] as number;
    this.size -= 1;
    this.swap(0, this.size);
    this.down(0);
    return top;
  }

  /** The pending-list indices of the jobs not handed out yet, in no particular order. */
  restIndices(): Int32Array {
    return this.heap.subarray(0, this.size);
  }
}

/**
 * The queue, and how many pending jobs each partition has (`prio`: each pending job's priority,
 * index-aligned). `held` (per partition, jobs left out of the queue, plan/held-jobs.ts) count among their
 * partition's pending jobs all the same, so that the pass stops where it would with them queued.
 */
export function pendingQueue(state: ClusterState, jobs: JobRecord[], prio: Float64Array, held: ReadonlyMap<string, number> = new Map()): { queue: PendingQueue; left: Map<string, number> } {
  const left = new Map(held);
  for (const job of jobs) left.set(job.info.partition, (left.get(job.info.partition) ?? 0) + 1);
  // Slurm orders by the partition's PriorityTier first, then priority (matters where partitions overlap, e.g. preemption).
  const tiers = new Map(state.partitions.map((p) => [p.info.name, p.info.priorityTier]));
  const tiered = new Set(tiers.values()).size > 1;
  if (tiered) {
    for (let i = 0; i < jobs.length; i++) {
      const p = prio[i] as number;
      if (p > 0) prio[i] = tierOf(tiers, (jobs[i] as JobRecord).info.partition) * 2 ** 33 + p;
    }
  }
  return { queue: new PendingQueue(jobs, prio), left };
}

/** A job's PriorityTier: its partition's, or of a list (`-p a,b`) the highest listed one's (where it is tried first). */
function tierOf(tiers: ReadonlyMap<string, number>, text: string): number {
  if (!text.includes(",")) return tiers.get(text) ?? 1;
  const listed = jobPartitions(text).map((n) => tiers.get(n) ?? 1);
  return listed.length === 0 ? 1 : Math.max(...listed);
}
