/**
 * @module sched/plan/queue-order
 * Pending jobs in scheduling order, (priority desc, submission order, job id),
 * handed out lazily from a binary heap: a pass usually stops needing the order
 * after a few hundred jobs (every partition blocked, backfill depth reached),
 * so heapifying 100k jobs (O(n)) and popping a few hundred beats sorting them.
 * Keys are read once into flat arrays so comparisons touch no maps.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { assert } from "../../lib/assert.ts";
import { jobPartitions } from "../model/job-partitions.ts";

export class PendingQueue {
  private readonly heap: Int32Array;
  /** Each job's submission order, read once: ties on priority compare typed arrays only. */
  private readonly sequence: Float64Array;
  private size: number;
  private bySequence = true;

  constructor(
    private readonly jobs: readonly JobRecord[],
    private readonly prio: Float64Array,
  ) {
    assert(prio.length === jobs.length, "one priority per pending job");
    this.size = jobs.length;
    this.heap = new Int32Array(jobs.length);
    this.sequence = new Float64Array(jobs.length);
    for (let i = 0; i < jobs.length; i++) {
      this.heap[i] = i;
      const seq = (jobs[i] as JobRecord).sequence;
      // a record without a numeric sequence (never expected) keeps the record comparison's exact meaning
      if (typeof seq !== "number" || Number.isNaN(seq)) this.bySequence = false;
      this.sequence[i] = seq;
    }
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.down(i);
  }

  get length(): number {
    return this.size;
  }

  /** True when job a goes before job b. */
  private before(a: number, b: number): boolean {
    const pa = this.prio[a] as number;
    const pb = this.prio[b] as number;
    if (pa !== pb) return pa > pb;
    if (this.bySequence) {
      const sa = this.sequence[a] as number;
      const sb = this.sequence[b] as number;
      if (sa !== sb) return sa < sb;
      return (this.jobs[a] as JobRecord).info.jobId < (this.jobs[b] as JobRecord).info.jobId;
    }
    const ja = this.jobs[a] as JobRecord;
    const jb = this.jobs[b] as JobRecord;
    if (ja.sequence !== jb.sequence) return ja.sequence < jb.sequence;
    return ja.info.jobId < jb.info.jobId;
  }

  private down(i: number): void {
    const h = this.heap;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) return;
      const r = l + 1;
      let best = l;
      if (r < this.size && this.before(h[r] as number, h[l] as number)) best = r;
      if (!this.before(h[best] as number, h[i] as number)) return;
      const t = h[i] as number;
      h[i] = h[best] as number;
      h[best] = t;
      i = best;
    }
  }

  /** The next job in order, or undefined when none is left. */
  next(): JobRecord | undefined {
    const top = this.nextIndex();
    return top < 0 ? undefined : this.jobs[top];
  }

  /** The next job's index in the pending list, or -1 when none is left. */
  nextIndex(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0] as number;
    this.size -= 1;
    this.heap[0] = this.heap[this.size] as number;
    this.down(0);
    return top;
  }

  /** The jobs not handed out yet, in no particular order. */
  rest(): JobRecord[] {
    const out: JobRecord[] = [];
    for (let i = 0; i < this.size; i++) out.push(this.jobs[this.heap[i] as number] as JobRecord);
    return out;
  }

  /** The pending-list indices of the jobs not handed out yet, in rest()'s order. */
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
