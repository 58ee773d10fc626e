/**
 * @module tests/conformance/normalise.test
 * The normaliser on its own (no cluster): golden outputs with their job ids,
 * times, paths and pids changed must normalise to the same text, while a real
 * change (a state, a node, a padding) must still show in the diff.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { GOLDEN_DIR_PATH } from "../shared-dir.ts";
import { jsonSkeleton, lineDiff, normalise } from "./normalise.ts";
import { MASKS } from "./masks.ts";
import { KNOWN_DIFFERENCES } from "./known-differences.ts";
import { issueOf } from "./known/why.ts";

const SLURM = { workDir: "/tmp/slurm-oracle/jobs", stateDir: "/tmp/slurm-oracle", confPaths: ["/tmp/slurm-oracle/etc/slurm.conf"] };
const SPUR = { workDir: "/tmp/spur-conformance-x/work", stateDir: "/tmp/spur-conformance-x/cluster", confPaths: ["/tmp/spur-conformance-x/cluster/spur.conf"] };

/** The stdout block of a golden file. */
function golden(name: string): string {
  const text = readFileSync(resolve(GOLDEN_DIR_PATH, name), "utf8");
  const m = /### stdout \((\d+) bytes\):\n/.exec(text);
  if (!m) throw new Error(`no stdout in ${name}`);
  return Buffer.from(text.slice(m.index + m[0].length)).subarray(0, Number(m[1])).toString("utf8");
}

/** Shift every job id by `by` (same digit count, so widths hold), as another cluster would number them. */
const shiftIds = (s: string, ids: number[], by: number) =>
  ids.sort((a, b) => b - a).reduce((t, id) => t.replace(new RegExp(`(?<!\\d)${id}(?!\\d)`, "g"), String(id + by)), s);

const n = (stdout: string, ctx = SLURM, vars: Record<string, string> = {}) => normalise({ code: 0, stdout, stderr: "" }, ctx, "text", vars);

describe("masks", () => {
  it("every mask has an id and a reason", () => {
    for (const m of MASKS) {
      expect(m.id).toMatch(/^[a-z-]+$/);
      expect(m.reason.length).toBeGreaterThan(20);
    }
    expect(new Set(MASKS.map((m) => m.id)).size).toBe(MASKS.length);
  });

  it("drops only the job variables one Slurm version lacks, labelled or not; the rest still differs", () => {
    const oracle = "SLURM_JOB_ID=7\nSLURM_NODE_ALIASES=(null)\n0: SLURM_TOPOLOGY_ADDR=n1\nSLURM_UMASK=0022\n";
    const spur = "SLURM_JOB_ID=9\nSLURM_JOB_START_TIME=1780000000\nSLURM_STEP_ID=-5\nSLURM_UMASK=0022\n";
    expect(n(spur, SPUR)).toBe(n(oracle));
    expect(n("SLURM_STEP_ID=0\nSLURM_UMASK=0000\n", SPUR)).not.toBe(n("SLURM_STEP_ID=0\nSLURM_UMASK=0022\n"));
    expect(n("SLURM_STEP_ID=0\n", SPUR)).toContain("SLURM_STEP_ID=0");
  });

  it("drops SLURM_UMASK from a batch environment only", () => {
    expect(n("SLURM_JOB_ID=9\nSLURM_UMASK=0022\n", SPUR)).toBe(n("SLURM_JOB_ID=7\n"));
    const step = (umask: string) => `SLURM_JOB_ID=9\nSLURM_STEPID=0\n${umask}`;
    expect(n(step("SLURM_UMASK=0022\n"), SPUR)).not.toBe(n(step("")));
  });

  it("squeue on a busy cluster: other job ids and times normalise the same, columns stay aligned", () => {
    const a = golden("044-squeue-busy-default.txt");
    const b = shiftIds(a, [17, 20, 21, 22, 23, 24], 70).replace(/0:0[25]/g, "0:42");
    expect(n(b, SPUR)).toBe(n(a));
    expect(n(a)).toContain("           <J5>_1     debug   golden     root  R      <DUR>      1 n3\n");
  });

  it("a changed node or state still differs", () => {
    const a = golden("044-squeue-busy-default.txt");
    expect(lineDiff(n(a), n(a.replace("R       0:02      1 n4", "R       0:02      1 n1")))).toHaveLength(2);
    expect(lineDiff(n(a), n(a.replace("(Resources)", "(Priority)")))).toHaveLength(2);
  });

  it("saved variables name their ids", () => {
    const out = n(golden("064-scontrol-show-job-dep.txt"), SLURM, { DEP: "22", ARR: "17" });
    expect(out).toContain("JobId=<DEP> JobName=dep");
    expect(out).toContain("Dependency=afterok:<ARR>_*(unfulfilled)");
  });

  it("sacct tables: job ids by the dash line, durations by header", () => {
    const a = golden("106-sacct-j-array-parsable.txt");
    const b = shiftIds(a, [17, 18, 19], 7).replace(/00:00:(09|10)/g, "00:01:00");
    expect(n(b, SPUR)).toBe(n(a));
    const c = golden("102-sacct-default.txt");
    expect(n(c)).toContain("<J1>           hostname      debug       root          1  COMPLETED      0:0 \n");
  });

  it("job environment: ids, pids, ports, paths; not the variables' presence", () => {
    const a = golden("026-srun-gres-env.txt");
    const b = a.replace(/=4$/gm, "=1").replace(/38123/g, "40001").replace(/10369/, "777").replace("/tmp/slurm-oracle/etc/slurm.conf", "/tmp/spur-conformance-x/cluster/spur.conf");
    expect(n(b.replace("/tmp/slurm-oracle/jobs", "/tmp/spur-conformance-x/work"), SPUR)).toBe(n(a));
    expect(lineDiff(n(a), n(a.replace("SLURM_UMASK=0022\n", "")))).toEqual(["-SLURM_UMASK=0022"]);
  });

  it("sacct --helpformat is a grid, not a table: nothing in it is masked", () => {
    const a = golden("116-sacct-helpformat.txt");
    expect(n(a)).not.toContain("<DUR>");
  });

  it("declared ids in file names keep zero padding visible", () => {
    const c = (stdout: string, id: string) => normalise({ code: 0, stdout, stderr: "" }, SLURM, "text", { FP: id }, ["FP"]);
    expect(c("p-00123.out\n", "123")).toBe(c("p-00777.out\n", "777"));
    expect(c("p-00123.out\n", "123")).not.toBe(c("p-123.out\n", "123"));
    expect(c("a-123_13.out\n", "13")).toContain("a-123_13.out");
  });

  it("version banner", () => {
    expect(n("slurm-wlm 22.05.8\n")).toBe(n("spur 0.1.0\n", SPUR));
  });
});

describe("json skeleton and diff", () => {
  it("keys and types, array elements merged", () => {
    expect(jsonSkeleton('{"a":[{"b":1},{"b":null,"c":"x"}]}')).toBe("$: object\n$.a: array\n$.a[]: object\n$.a[].b: null|number\n$.a[].c: string");
    expect(jsonSkeleton("nope")).toBe("(not JSON) non-empty");
  });

  it("line diff marks Slurm-only lines with - and Spur-only lines with +", () => {
    expect(lineDiff("a\nb\nc", "a\nc\nd")).toEqual(["-b", "+d"]);
    expect(lineDiff("x", "x")).toEqual([]);
  });
});

describe("known differences", () => {
  it("each has a reason and the issue that will remove it, unless it is a 22.05 vs 26.x table difference", () => {
    for (const k of KNOWN_DIFFERENCES) {
      expect(k.why.length, k.id).toBeGreaterThan(10);
      if (!k.why.startsWith("22.05 vs 26.x table")) expect(issueOf(k), `${k.id} names no issue`).toBeGreaterThan(0);
    }
    expect(new Set(KNOWN_DIFFERENCES.map((k) => k.id)).size).toBe(KNOWN_DIFFERENCES.length);
  });
});
