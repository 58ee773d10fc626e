/**
 * @module rest/jobs-json
 * The `"jobs":[...]` member of GET jobs/ as UTF-8 chunks, fast for 10k jobs: each job
 * is written once (jobInfo, the version's pruning, JSON.stringify, UTF-8) and its bytes
 * kept while the job's record is unchanged: a copy of the record is kept beside them and the
 * next list's record compared with it field by field (lib/same-data.ts: any change to any
 * field makes a new entry, also a record changed in place; was the record's JSON text, whose
 * writing cost more than the comparison). A full listing keeps only the entries of the
 * jobs it listed, so the cache never outgrows the queue.
 * The bytes are those of stringifying the whole pruned document at once
 * (tests/unit/rest/jobs-json.test.ts compares the two on generated jobs).
 */
import type { Job } from "../../compat/format/job-values.ts";
import { jobInfo } from "./serialize-job.ts";
import { JobInfo } from "./schemas-job.ts";
import { pruneForVersion } from "./schema.ts";
import { copyPlainData, samePlainData } from "../../lib/same-data.ts";

interface Entry {
  record: Job;
  bytes: Uint8Array;
}

export interface JobsJsonCache {
  /**
   * `"jobs":[...]` for `jobs` in data_parser minor `version`, as chunks to send in order;
   * `complete`: jobs is the whole queue (the cache then keeps just these).
   */
  member(jobs: readonly Job[], cluster: string, version: number, complete?: boolean): Uint8Array[];
  /** Entries held (for tests and metrics). */
  size(): number;
}

/** One job's text in `version`, from scratch. */
export function jobJson(job: Job, cluster: string, version: number): string {
  const info = jobInfo(job, cluster);
  pruneForVersion(JobInfo.node, info, version);
  return JSON.stringify(info);
}

const OPEN = Buffer.from('"jobs":[');
const COMMA = Buffer.from(",");
const CLOSE = Buffer.from("]");

export function createJobsJsonCache(): JobsJsonCache {
  // One map per (version, cluster): the text of a job differs between versions.
  const caches = new Map<string, Map<number, Entry>>();
  return {
    member(jobs, cluster, version, complete = true) {
      const key = `${version}|${cluster}`;
      const old = caches.get(key) ?? new Map<number, Entry>();
      const next = new Map<number, Entry>();
      const chunks: Uint8Array[] = [OPEN];
      for (let i = 0; i < jobs.length; i++) {
        const job = jobs[i] as Job;
        const id = job.jobId;
        const hit = old.get(id);
        const entry = hit !== undefined && samePlainData(hit.record, job) ? hit : { record: copyPlainData(job), bytes: Buffer.from(jobJson(job, cluster, version)) };
        // Two records with one id (never expected): keep the first, write the second uncached.
        if (!next.has(id)) next.set(id, entry);
        if (i > 0) chunks.push(COMMA);
        chunks.push(entry.bytes);
      }
      chunks.push(CLOSE);
      if (complete) caches.set(key, next);
      return chunks;
    },
    size: () => [...caches.values()].reduce((n, m) => n + m.size, 0),
  };
}

/** The chunks as one string (tests, and callers that need text). */
export const chunksText = (chunks: readonly Uint8Array[]): string => Buffer.concat(chunks).toString("utf8");
