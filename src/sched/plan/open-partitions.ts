/**
 * @module sched/plan/open-partitions
 * The main pass stops early once no queued job can start anywhere: every partition with jobs
 * left in the queue is blocked. Jobs are counted under their Partition= text; a job listing
 * several partitions (`-p a,b`, model/job-partitions.ts) counts under its list, which is closed
 * once each listed partition is blocked. Blocking a partition closes every list that was waiting
 * only on it, so one multi-partition job in a queue of 100k does not keep the pass examining
 * them all. Pure bookkeeping; the pass owns the blocked set.
 */
import { jobPartitions } from "../model/job-partitions.ts";

export class OpenPartitions {
  readonly blocked = new Set<string>();
  /** Keys (Partition= texts) with jobs left in the queue and not closed. */
  private open: number;
  private readonly closedLists = new Set<string>();
  /** For each partition, the list keys naming it. */
  private readonly listsOf = new Map<string, string[]>();

  /** `left`: queued jobs per Partition= text (the pass's own map, decremented through `take`). */
  constructor(private readonly left: Map<string, number>) {
    this.open = left.size;
    for (const key of left.keys()) {
      if (!key.includes(",")) continue;
      for (const p of jobPartitions(key)) this.listsOf.set(p, [...(this.listsOf.get(p) ?? []), key]);
    }
  }

  /** Whether jobs of this Partition= text can no longer start in this pass's main loop. */
  closed(key: string): boolean {
    return key.includes(",") ? this.closedLists.has(key) : this.blocked.has(key);
  }

  /** A job of `key` leaves the queue. */
  take(key: string): void {
    const leftHere = (this.left.get(key) ?? 1) - 1;
    this.left.set(key, leftHere);
    if (leftHere === 0 && !this.closed(key)) this.open--;
  }

  /** Partition `name` is blocked: it, and the lists now wholly blocked, are closed. */
  block(name: string): void {
    if (this.blocked.has(name)) return;
    if ((this.left.get(name) ?? 0) > 0) this.open--;
    this.blocked.add(name);
    for (const key of this.listsOf.get(name) ?? []) {
      if (this.closedLists.has(key) || !jobPartitions(key).every((p) => this.blocked.has(p))) continue;
      this.closedLists.add(key);
      if ((this.left.get(key) ?? 0) > 0) this.open--;
    }
  }

  /** No queued job can start in the main loop any more. */
  allClosed(): boolean {
    return this.open === 0;
  }
}
