/**
 * @module rest/jobs-json
 * The `"jobs":[...]` member of GET jobs/ as JSON text, fast for 10k jobs: each job
 * is written once (jobInfo, the version's pruning, JSON.stringify) and its text kept
 * while the job's record is unchanged, keyed by the record's own JSON (what the
 * controller sent, so any change to any field makes a new entry). A request keeps
 * only the entries of the jobs it listed, so the cache never outgrows the queue.
 * The text is byte-identical to stringifying the whole pruned document at once
 * (tests/unit/rest/jobs-json.test.ts compares the two on generated jobs).
 */
import type { Job } from "../../compat/format/job-values.ts";
import { jobInfo } from "./serialize-job.ts";
import { JobInfo } from "./schemas-job.ts";
import { pruneForVersion } from "./schema.ts";

interface Entry {
  record: string;
  text: string;
}

export interface JobsJsonCache {
  /** `"jobs":[...]` for `jobs` in data_parser minor `version`; `complete`: jobs is the whole queue (the cache keeps just these). */
  member(jobs: readonly Job[], cluster: string, version: number, complete?: boolean): string;
  /** Entries held (for tests and metrics). */
  size(): number;
}

/** One job's text in `version`, from scratch. */
export function jobJson(job: Job, cluster: string, version: number): string {
  const info = jobInfo(job, cluster);
  pruneForVersion(JobInfo.node, info, version);
  return JSON.stringify(info);
}

export function createJobsJsonCache(): JobsJsonCache {
  // One map per (version, cluster): the text of a job differs between versions.
  const caches = new Map<string, Map<number, Entry>>();
  return {
    member(jobs, cluster, version, complete = true) {
      const key = `${version}|${cluster}`;
      const old = caches.get(key) ?? new Map<number, Entry>();
      const next = new Map<number, Entry>();
      const texts: string[] = new Array(jobs.length);
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i] as Job;
        const record = JSON.stringify(job);
        const id = job.jobId;
        const hit = old.get(id);
        const entry = hit !== undefined && hit.record === record ? hit : { record, text: jobJson(job, cluster, version) };
        // Two records with one id (never expected): keep the first, write the second uncached.
        if (!next.has(id)) next.set(id, entry);
        texts[i] = entry.text;
      }
      if (complete) caches.set(key, next);
      return `"jobs":[${texts.join(",")}]`;
    },
    size: () => [...caches.values()].reduce((n, m) => n + m.size, 0),
  };
}
