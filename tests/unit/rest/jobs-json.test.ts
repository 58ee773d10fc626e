/**
 * GET jobs/'s fast path (rest/jobs-json.ts, per-job texts cached by record, and the
 * planned pruning of rest/schema.ts) writes exactly the bytes of the plain path it
 * replaced: the whole document built, pruned for the version and stringified at once.
 * Jobs are generated field by field from the record's defaults (awkward strings,
 * numbers, flags, allocations), for every served version. SEED=n replays a run (default fixed; the seed is printed on failure).
 */
import { beforeEach, describe, expect, it } from "vitest";
import { jobInfo } from "../../../src/net/rest/serialize-job.ts";
import { JobInfoResp } from "../../../src/net/rest/schemas-job.ts";
import { hasVersion, pruneForVersion, type Node } from "../../../src/net/rest/schema.ts";
import { chunksText, createJobsJsonCache } from "../../../src/net/rest/jobs-json.ts";
import type { Job } from "../../../src/compat/format/job-values.ts";
import { createRng } from "./rng.ts";
import { randomJob } from "./random-job.ts";

// Fixed unless SEED is given (a run replays bit for bit); a failing test prints how to replay it.
const SEED = Number(process.env.SEED ?? 1);
const VERSIONS = [42, 43, 44, 45];

/** The pruning walk as it was before it was planned per version: every field of every object visited. */
function referencePrune(node: Node, value: unknown, version: number): void {
  if (typeof value !== "object" || value === null) return;
  if (node.kind === "named") return referencePrune(node.target, value, version);
  if (node.kind === "array") {
    if (Array.isArray(value)) for (const item of value) referencePrune(node.items, item, version);
    return;
  }
  if (node.kind !== "object") return;
  const rec = value as Record<string, unknown>;
  for (const [k, child] of Object.entries(node.props)) {
    if (!(k in rec)) continue;
    if (!hasVersion(child, version)) delete rec[k];
    else referencePrune(child, rec[k], version);
  }
}

const plain = (jobs: Job[], version: number): string => {
  const doc = { jobs: jobs.map((j) => jobInfo(j, "spur")) };
  referencePrune(JobInfoResp.node, doc, version);
  return JSON.stringify(doc).slice(1, -1);
};

describe(`jobs-json (SEED=${SEED})`, () => {
  beforeEach(({ onTestFailed }) => onTestFailed(() => console.error(`replay: SEED=${SEED} bun --bun vitest run tests/unit/rest/jobs-json.test.ts`)));
  it("writes the same bytes as pruning and stringifying the whole document, cold and cached", () => {
    const rng = createRng(SEED);
    const jobs = Array.from({ length: 400 }, (_, i) => randomJob(rng, i + 1));
    const cache = createJobsJsonCache();
    for (const version of VERSIONS) {
      const want = plain(jobs, version);
      expect(chunksText(cache.member(jobs, "spur", version)), `SEED=${SEED} v0.0.${version} cold`).toBe(want);
      expect(chunksText(cache.member(jobs, "spur", version)), `SEED=${SEED} v0.0.${version} cached`).toBe(want);
    }
    expect(cache.size()).toBe(400 * VERSIONS.length);
  });

  it("writes a changed job afresh and forgets jobs that left the queue", () => {
    const rng = createRng(SEED + 1);
    const jobs = Array.from({ length: 50 }, (_, i) => randomJob(rng, i + 1));
    const cache = createJobsJsonCache();
    chunksText(cache.member(jobs, "spur", 45));
    const changed = jobs.slice(10).map((j, i) => (i === 0 ? { ...j, name: "renamed", state: "RUNNING" } : j));
    expect(chunksText(cache.member(changed, "spur", 45))).toBe(plain(changed, 45));
    expect(cache.size()).toBe(40);
    // A partial listing (update_time) is answered but does not shrink the cache.
    expect(chunksText(cache.member(changed.slice(0, 5), "spur", 45, false))).toBe(plain(changed.slice(0, 5), 45));
    expect(cache.size()).toBe(40);
  });

  it("reuses a job's bytes for an equal record in a fresh list, and writes it afresh when any one field changes", () => {
    const rng = createRng(SEED + 4);
    const jobs = Array.from({ length: 20 }, (_, i) => randomJob(rng, i + 1));
    const cache = createJobsJsonCache();
    const first = cache.member(jobs, "spur", 45);
    // The next list is parsed afresh (new objects, same data): every job's bytes are the kept ones.
    const again = cache.member(structuredClone(jobs), "spur", 45);
    expect(again.length).toBe(first.length);
    for (let i = 0; i < first.length; i++) expect(again[i], `chunk ${i}`).toBe(first[i]);
    // Each field of job 1 changed on its own (every other job unchanged): the text follows the change.
    const one = jobs[0] as unknown as Record<string, unknown>;
    for (const key of Object.keys(one)) {
      if (key === "jobId") continue;
      const v = one[key];
      const changed =
        typeof v === "string" ? `${v}x` : typeof v === "number" ? v + 1 : typeof v === "boolean" ? !v :
        Array.isArray(v) ? [...v, v[0] ?? "y"] : v === null || v === undefined ? "y" : { ...(v as object), extra: 1 };
      const list = [{ ...one, [key]: changed } as unknown as Job, ...structuredClone(jobs.slice(1))];
      expect(chunksText(cache.member(list, "spur", 45)), `SEED=${SEED} field ${key}`).toBe(plain(list, 45));
      expect(chunksText(cache.member(structuredClone(jobs), "spur", 45)), `SEED=${SEED} field ${key} back`).toBe(plain(jobs, 45));
    }
  });

  it("notices a record changed in place between two lists (the caller's objects are not what it compares with)", () => {
    const rng = createRng(SEED + 5);
    const jobs = Array.from({ length: 5 }, (_, i) => randomJob(rng, i + 1));
    const cache = createJobsJsonCache();
    cache.member(jobs, "spur", 45);
    (jobs[2] as { name: string }).name = "renamed in place";
    (jobs[3] as Job).alloc.push({ node: "n9", cpus: 1, memMib: 1, gpuIndices: [], tasks: 1 } as Job["alloc"][number]);
    expect(chunksText(cache.member(jobs, "spur", 45)), `SEED=${SEED}`).toBe(plain(jobs, 45));
  });

  it("the planned pruning equals the full walk on whole documents", () => {
    const rng = createRng(SEED + 3);
    const jobs = Array.from({ length: 100 }, (_, i) => randomJob(rng, i + 1));
    for (const version of VERSIONS) {
      const doc = { jobs: jobs.map((j) => jobInfo(j, "spur")) };
      pruneForVersion(JobInfoResp.node, doc, version);
      expect(JSON.stringify(doc).slice(1, -1), `SEED=${SEED} v0.0.${version}`).toBe(plain(jobs, version));
    }
  });

  it("drops the fields a version lacks (stdin_expanded is v0.0.43 on)", () => {
    const job = randomJob(createRng(SEED + 2), 1);
    expect(chunksText(createJobsJsonCache().member([job], "spur", 42))).not.toContain("stdin_expanded");
    expect(chunksText(createJobsJsonCache().member([job], "spur", 43))).toContain('"stdin_expanded":');
  });
});
