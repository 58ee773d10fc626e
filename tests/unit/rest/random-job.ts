/**
 * @module tests/unit/rest/random-job
 * Jobs generated field by field from the record's defaults (awkward strings, numbers, states,
 * flags, allocations), for the tests that compare a fast JSON path with the plain one.
 */
import { emptyJobInfo } from "../../../src/sched/model/records.ts";
import type { Job } from "../../../src/compat/format/job-values.ts";
import type { Rng } from "./rng.ts";

const STRINGS = ["", "a", "debug", "ünïcödé ✓", 'quote" back\\slash\nnew\ttab', "\u0000\u001f ctl", "\ud800 lone surrogate", "x".repeat(300)];
const NUMBERS = [0, 1, 7, 2.5, -1, 1_800_000_000, 4_294_967_294, 1e21];
const STATES = ["PENDING", "RUNNING", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "SUSPENDED", "NODE_FAIL", "PREEMPTED", "OUT_OF_MEMORY"];
const FLAGS = ["COMPLETING", "REQUEUED", "RESIZING", "STAGE_OUT", "bogus"];

export function randomJob(rng: Rng, id: number): Job {
  const job = emptyJobInfo() as unknown as Record<string, unknown>;
  for (const [k, v] of Object.entries(job)) {
    if (rng.int(3) === 0) continue;
    if (typeof v === "string") job[k] = rng.pick(STRINGS);
    else if (typeof v === "number") job[k] = rng.pick(NUMBERS);
    else if (typeof v === "boolean") job[k] = rng.int(2) === 0;
  }
  job.jobId = id;
  job.state = rng.pick(STATES);
  job.stateFlags = Array.from({ length: rng.int(3) }, () => rng.pick(FLAGS));
  job.nodelist = rng.int(2) === 0 ? "" : "n[1-2]";
  job.tresPerNode = rng.pick(["", "gres/gpu:a100:2", "gres:gpu:2"]);
  job.tresAlloc = rng.pick(["", "cpu=4,mem=1G,billing=4", "billing=x"]);
  job.alloc = Array.from({ length: rng.int(3) }, (_, i) => ({ node: `n${i + 1}`, cpus: rng.int(8), memMib: rng.int(4096), gpuIndices: Array.from({ length: rng.int(3) }, (_, g) => g), tasks: 1 }));
  if (rng.int(4) === 0) delete job.timeLimitMin;
  return job as unknown as Job;
}
