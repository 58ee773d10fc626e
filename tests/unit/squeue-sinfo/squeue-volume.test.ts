/**
 * squeue over a busy cluster (10k records): the right number of lines, and
 * the fast paths (ranked counting-sort passes, indexed folding of split-off
 * array tasks, the JSON writer) give exactly what the plain algorithms give.
 * No timing here: the figures are in the performance report.
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { writeJsonText } from "../../../src/compat/format/json-text.ts";
import { jobToOpenapi } from "../../../src/compat/format/json-jobs.ts";
import { JsonDouble, type JsonValue, openapiMeta, writeOpenapiJson } from "../../../src/compat/format/openapi-json.ts";
import { combinePendingArrayTasks } from "../../../src/compat/format/squeue-select.ts";
import { parseJobSort, type SortItem, sortJobs } from "../../../src/compat/format/squeue-sort.ts";
import { type Job } from "./fixtures.ts";
import { fakePort } from "./golden.ts";
import { MANY_NOW, manyJobs } from "./many-jobs.ts";

process.env.TZ = "UTC";

const JOBS = manyJobs(10000);
const sq = (argv: string[]) => squeueMain(argv, fakePort({ jobs: JOBS, now: MANY_NOW }));
const lineCount = (text: string): number => text.split("\n").length - 1;

const shownByDefault = (j: Job): boolean =>
  ["PENDING", "RUNNING", "SUSPENDED"].includes(j.state) || j.stateFlags.includes("COMPLETING");
/** Split-off pending tasks: each fixture array has a remainder with the same name and partition. */
const splitOff = (j: Job): boolean => j.state === "PENDING" && j.arrayJobId !== 0 && j.arrayTaskId >= 0;

describe("squeue with 10k jobs", () => {
  it("prints one line per shown record plus the header", async () => {
    const expected = JOBS.filter((j) => shownByDefault(j) && !splitOff(j)).length;
    const r = await sq([]);
    expect(r.exitCode).toBe(0);
    expect(lineCount(r.stdout)).toBe(expected + 1);
    expect(lineCount((await sq(["-h"])).stdout)).toBe(expected);
    expect(lineCount((await sq(["-h", "-t", "all"])).stdout)).toBe(JOBS.filter((j) => !splitOff(j)).length);
  });

  it("-r prints every pending index of the folded remainders", async () => {
    const remainders = JOBS.filter((j) => j.arrayTaskStr !== "");
    // -r does not fold: "6-20%4" prints its 15 indexes, split-off tasks print on their own.
    const expected = JOBS.filter((j) => shownByDefault(j) && j.arrayTaskStr === "").length + remainders.length * 15;
    expect(lineCount((await sq(["-h", "-r"])).stdout)).toBe(expected);
  });

  it("-j with one id does not print the other jobs", async () => {
    const r = await sq(["-h", "-j", String(JOBS[0]?.jobId)]);
    expect(lineCount(r.stdout)).toBe(1);
  });
});

/** glibc's qsort as 22.05's squeue gets it on Debian 12: a top-down merge sort that takes the left run on ties. */
function mergeSort<T>(xs: readonly T[], cmp: (a: T, b: T) => number): T[] {
  if (xs.length < 2) return [...xs];
  const mid = xs.length >> 1;
  const [l, r] = [mergeSort(xs.slice(0, mid), cmp), mergeSort(xs.slice(mid), cmp)];
  const out: T[] = [];
  let i = 0;
  let j = 0;
  while (i < l.length && j < r.length) out.push(cmp(l[i] as T, r[j] as T) <= 0 ? (l[i++] as T) : (r[j++] as T));
  return [...out, ...l.slice(i), ...r.slice(j)];
}

/**
 * A start-time comparison as 22.05 makes it: an unset time (`unset`) after any set one in either
 * direction, and never equal to another unset one ("after" both ways), which is what reverses them.
 */
const startCompare = (x: number, y: number, unset: (v: number) => boolean, reverse: number): number => {
  if (unset(x)) return 1;
  if (unset(y)) return -1;
  return x < y ? -reverse : x > y ? reverse : 0;
};

/** Slurm's order the plain way: start time descending, then one comparator merge sort per key, last first. */
function referenceSort(items: readonly SortItem[], spec: string): SortItem[] {
  let out = mergeSort(items, (a, b) => startCompare(a.job.startTime, b.job.startTime, (v) => !(v > 0), -1));
  const keys = spec.split(",").reverse();
  for (const key of keys) {
    const reverse = key.startsWith("-") ? -1 : 1;
    const one = parseJobSort(key.replace(/^[+-]/, ""));
    if (!one.ok) throw new Error(one.error.message);
    out = mergeSort(out, (a, b) => {
      for (const k of one.value) {
        for (const part of k.parts) {
          const x = part.get(a.job, MANY_NOW, a);
          const y = part.get(b.job, MANY_NOW, b);
          if (/^[+-]?S$/.test(key)) return startCompare(x as number, y as number, (v) => v === Number.POSITIVE_INFINITY, reverse);
          if (x < y) return -reverse;
          if (x > y) return reverse;
        }
      }
      return 0;
    });
  }
  return out;
}

describe("squeue fast paths equal the plain algorithms", () => {
  const items: SortItem[] = JOBS.map((job, i) => ({ job, partPrio: i % 3 }));

  for (const spec of ["P,t,-p", "i", "-M,u", "L,l,e,m,T,j,g,V", "-S,Q"]) {
    it(`sort ${spec}`, () => {
      const keys = parseJobSort(spec);
      if (!keys.ok) throw new Error(keys.error.message);
      const fast = sortJobs(items, keys.value, MANY_NOW).map((x) => x.job.jobId);
      expect(fast).toEqual(referenceSort(items, spec).map((x) => x.job.jobId));
    });
  }

  it("folding split-off tasks keeps the other records in order", () => {
    const folded = combinePendingArrayTasks(JOBS);
    expect(folded.length).toBe(JOBS.filter((j) => !splitOff(j)).length);
    expect(folded.filter((j) => j.arrayTaskStr !== "").every((j) => j.arrayTaskStr === "4-20" && j.reason === "JobArrayTaskLimit,Priority")).toBe(true);
    expect(folded.filter((j) => j.arrayTaskStr === "").map((j) => j.jobId)).toEqual(
      JOBS.filter((j) => !splitOff(j) && j.arrayTaskStr === "").map((j) => j.jobId),
    );
  });

  it("the JSON writer prints what writeOpenapiJson prints", () => {
    const tricky: JsonValue = {
      s: 'a"b\\c/d\ne\rf\tg\bh\fi\u0001j\u001fk — ü 😀 \ud800',
      n: [0, -0, 1.5, -2.7, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 40],
      d: [new JsonDouble(2), new JsonDouble(0.25), new JsonDouble(1e21), new JsonDouble(Number.NaN)],
      e: [[], {}, [{}], { "0": "x", "10": "y", "2": "z", b: true, a: false, z: null }],
    };
    expect(writeJsonText(tricky)).toBe(writeOpenapiJson(tricky));
  });

  it("squeue --json=v0.0.38 over 1000 jobs equals the generic writer's text", async () => {
    const jobs = JOBS.slice(0, 1000);
    const r = await squeueMain(["--json=v0.0.38"], fakePort({ jobs, now: MANY_NOW }));
    const doc = { meta: openapiMeta(), errors: [], jobs: jobs.map((j) => jobToOpenapi(j, "oracle")) };
    expect(r.stdout).toBe(writeOpenapiJson(doc));
  });
});
