/**
 * @module sched/sim/swf
 * Reads the Standard Workload Format (Parallel Workloads Archive): one job per
 * line, 18 whitespace-separated fields, `-1` for unknown, `;` header comments
 * (MaxNodes / MaxProcs give the machine size). Pure: text in, jobs out.
 * Records that cannot be replayed (no processors, no runtime) are counted, not kept.
 */

export interface WorkloadJob {
  id: number;
  submitSec: number;
  runSec: number;
  procs: number;
  /** Requested time (the job's limit); falls back to the runtime when the trace has none. */
  reqTimeSec: number;
  user: number;
}

export interface Workload {
  jobs: WorkloadJob[];
  /** Machine size from the header (MaxProcs, else MaxNodes); 0 when absent. */
  maxProcs: number;
  skipped: number;
}

const field = (parts: readonly string[], i: number): number => {
  const v = Number(parts[i]);
  return Number.isFinite(v) ? v : -1;
};

export function parseSwf(text: string, limit = Number.POSITIVE_INFINITY): Workload {
  const jobs: WorkloadJob[] = [];
  let maxProcs = 0;
  let maxNodes = 0;
  let skipped = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "") continue;
    if (line.startsWith(";")) {
      const m = /^;\s*(MaxProcs|MaxNodes):\s*(\d+)/i.exec(line);
      if (m?.[1]?.toLowerCase() === "maxprocs") maxProcs = Number(m[2]);
      else if (m?.[1]?.toLowerCase() === "maxnodes") maxNodes = Number(m[2]);
      continue;
    }
    if (jobs.length >= limit) break;
    const parts = line.split(/\s+/);
    const procs = Math.max(field(parts, 4), field(parts, 7));
    const runSec = field(parts, 3);
    const submitSec = field(parts, 1);
    if (procs <= 0 || runSec < 0 || submitSec < 0) {
      skipped++;
      continue;
    }
    const req = field(parts, 8);
    jobs.push({ id: field(parts, 0), submitSec, runSec, procs, reqTimeSec: req > 0 ? Math.max(req, runSec) : runSec, user: Math.max(0, field(parts, 11)) });
  }
  jobs.sort((a, b) => a.submitSec - b.submitSec || a.id - b.id);
  return { jobs, maxProcs: maxProcs || maxNodes, skipped };
}
