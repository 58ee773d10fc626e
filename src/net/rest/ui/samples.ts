/**
 * @module rest/ui/samples
 * Usage over time for the job view's graphs. Spur keeps each step's usage as the node
 * agents measured it (maxima, means and CPU time, recorded when the step ends) and each
 * node's load and free memory from its heartbeats; it keeps no time series. The page
 * server therefore samples, once per poll, the nodes of the jobs someone is looking at:
 * the CPU load and memory in use on the job's nodes. Bounded: JOBS_MAX jobs (the least
 * recently viewed dropped), POINTS_MAX points each (the oldest dropped).
 */
import { assert } from "../../../lib/assert.ts";

export interface Sample {
  /** Epoch seconds. */
  t: number;
  /** Summed 1-minute load of the job's nodes. */
  load: number;
  /** CPUs the job holds (the scale of `load`). */
  cpus: number;
  /** Memory in use on the job's nodes, MiB (total minus free, as heartbeats report: the node's, not the job's alone). */
  memUsedMiB: number;
  /** Memory of those nodes, MiB (the scale of `memUsedMiB`). */
  memTotalMiB: number;
}

export const JOBS_MAX = 64;
export const POINTS_MAX = 360;

export interface NodeLoad {
  cpuLoad: number;
  realMemoryMib: number;
  freeMemoryMib: number;
}

export class UsageSamples {
  private readonly series = new Map<number, Sample[]>();

  /** Mark `jobId` as looked at (starts its series); returns its points so far. */
  watch(jobId: number): Sample[] {
    const points = this.series.get(jobId) ?? [];
    this.series.delete(jobId);
    this.series.set(jobId, points);
    if (this.series.size > JOBS_MAX) this.series.delete(this.series.keys().next().value ?? jobId);
    assert(this.series.size <= JOBS_MAX, "sampled jobs are bounded");
    return points;
  }

  /** One point for a watched job from the nodes it holds (ignored unless watched, or within 1 s of the last). */
  add(jobId: number, t: number, alloc: readonly { node: string; cpus: number }[], nodes: ReadonlyMap<string, NodeLoad>): void {
    const points = this.series.get(jobId);
    if (points === undefined || alloc.length === 0) return;
    const last = points[points.length - 1];
    if (last !== undefined && t - last.t < 1) return;
    let load = 0;
    let memUsedMiB = 0;
    let memTotalMiB = 0;
    for (const a of alloc) {
      const n = nodes.get(a.node);
      if (n === undefined) continue;
      load += n.cpuLoad;
      memUsedMiB += Math.max(0, n.realMemoryMib - n.freeMemoryMib);
      memTotalMiB += n.realMemoryMib;
    }
    points.push({ t, load, cpus: alloc.reduce((s, a) => s + a.cpus, 0), memUsedMiB, memTotalMiB });
    if (points.length > POINTS_MAX) points.splice(0, points.length - POINTS_MAX);
    assert(points.length <= POINTS_MAX, "points per job are bounded");
  }
}
