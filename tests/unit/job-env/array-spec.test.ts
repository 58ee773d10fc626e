import { describe, expect, it } from "vitest";
import {
  arrayTaskStep,
  formatArrayTasks,
  INVALID_ARRAY_MESSAGE,
  parseArraySpec,
} from "../../../src/compat/array-spec.ts";
import { goldenStderr } from "./golden.ts";

const range = (first: number, last: number, step = 1): number[] => {
  const out: number[] = [];
  for (let i = first; i <= last; i += step) out.push(i);
  return out;
};

const parsed = (spec: string, max?: number) => {
  const r = parseArraySpec(spec, max);
  if (!r.ok) throw new Error(`${spec}: ${r.error.message}`);
  return r.value;
};

describe("parseArraySpec", () => {
  it.each([
    ["0-15", range(0, 15), 0],
    ["1,3,5,7", [1, 3, 5, 7], 0],
    ["1-7:2", [1, 3, 5, 7], 0],
    ["0-15%4", range(0, 15), 4],
    ["1-10:3%2", [1, 4, 7, 10], 2],
    ["1,3,5%2", [1, 3, 5], 2],
    ["1-3", [1, 2, 3], 0],
    ["[1-3,5]", [1, 2, 3, 5], 0],
    ["[1-3],[7]", [1, 2, 3, 7], 0],
    ["5,1-3,2-4", [1, 2, 3, 4, 5], 0],
    ["1,,2", [1, 2], 0],
    ["1-10:3,20", [1, 4, 7, 10, 20], 0],
    ["0", [0], 0],
    ["1000", [1000], 0],
    ["0-1000:500", [0, 500, 1000], 0],
    ["3%0", [3], 0],
  ])("%s", (spec, taskIds, throttle) => {
    expect(parsed(spec)).toEqual({ taskIds, throttle });
  });

  it("parses the golden job script's --array=1-3 (golden 042)", () => {
    expect(parsed("1-3").taskIds).toEqual([1, 2, 3]);
  });

  it("rejects bad specs with the controller's message, as sbatch prints it (golden 099)", () => {
    const r = parseArraySpec("abc");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toBe(INVALID_ARRAY_MESSAGE);
    expect(r.error.exitCode).toBe(1);
    expect(`sbatch: error: Batch job submission failed: ${r.error.message}\n`).toBe(goldenStderr("099"));
  });

  it.each([
    "abc", "", ",", "1001", "0-1001", "5-3", "1-7:0", "1-7:1001", "-1", "1-", "-5", "1-3:",
    "%2", "1%x", "1%", "1%2%3", "1.5", " 1", "1 ", "0x10", "1-3:2:2", "1-3]x", "[[1]]",
  ])("rejects %j", (spec) => {
    const r = parseArraySpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe("Invalid job array specification");
  });

  it("bounds indexes by MaxArraySize (index must be < MaxArraySize)", () => {
    expect(parseArraySpec("9", 10).ok).toBe(true);
    expect(parseArraySpec("10", 10).ok).toBe(false);
    expect(parseArraySpec("0-9:10", 10).ok).toBe(false);
    expect(parseArraySpec("0", 0).ok).toBe(false);
    expect(parsed("4000000", 4000001).taskIds).toEqual([4000000]);
  });
});

describe("arrayTaskStep", () => {
  it("is the number after the first ':' or 1", () => {
    expect(arrayTaskStep("1-3")).toBe(1);
    expect(arrayTaskStep("1-10:3,20")).toBe(3);
    expect(arrayTaskStep("1-10:3,20-30:5%2")).toBe(3);
    expect(arrayTaskStep("1,2,3")).toBe(1);
  });
});

describe("formatArrayTasks", () => {
  it("prints ranges joined by commas", () => {
    expect(formatArrayTasks(range(4, 10), 0)).toBe("4-10");
    expect(formatArrayTasks([1, 3, 5, 7], 0)).toBe("1,3,5,7");
    expect(formatArrayTasks([1, 2, 3, 5], 0)).toBe("1-3,5");
    expect(formatArrayTasks([7], 0)).toBe("7");
    expect(formatArrayTasks([], 0)).toBe("");
  });

  it("appends the throttle as %N (squeue 36_[4-10%2])", () => {
    expect(formatArrayTasks(range(4, 10), 2)).toBe("4-10%2");
    expect(`36_[${formatArrayTasks(range(4, 10), 2)}]`).toBe("36_[4-10%2]");
  });

  it("sorts and de-duplicates its input", () => {
    expect(formatArrayTasks([5, 1, 3, 2, 3], 0)).toBe("1-3,5");
  });

  it("uses first-last:step for a regular stride over > 5 ids spanning > 10", () => {
    expect(formatArrayTasks(range(1, 99, 2), 0)).toBe("1-99:2");
    expect(formatArrayTasks(range(0, 15, 3), 0)).toBe("0-15:3");
    expect(formatArrayTasks(range(1, 99, 2), 4)).toBe("1-99:2%4");
    // span 10 only, or 5 ids only: plain list
    expect(formatArrayTasks(range(1, 11, 2), 0)).toBe("1,3,5,7,9,11");
    expect(formatArrayTasks(range(0, 40, 10), 0)).toBe("0,10,20,30,40");
    // not regular
    expect(formatArrayTasks([1, 3, 5, 7, 9, 11, 14], 0)).toBe("1,3,5,7,9,11,14");
  });

  it("cuts the text to 64 characters ending in ... (SLURM_BITSTR_LEN default)", () => {
    const ids = range(0, 200, 3).concat([200]);
    const full = formatArrayTasks(ids, 0, 0);
    expect(full.length).toBeGreaterThan(64);
    const cut = formatArrayTasks(ids, 0);
    expect(cut).toHaveLength(64);
    expect(cut.endsWith("...")).toBe(true);
    expect(full.startsWith(cut.slice(0, 61))).toBe(true);
    expect(formatArrayTasks(ids, 3)).toBe(`${cut}%3`);
    expect(formatArrayTasks(ids, 0, 100)).toHaveLength(100);
  });

  it("round-trips through parseArraySpec", () => {
    for (const spec of ["1-3,5", "0-15", "1,3,5,7", "1-99:2", "2,4-9,11"]) {
      const { taskIds } = parsed(spec);
      expect(parsed(formatArrayTasks(taskIds, 0)).taskIds).toEqual(taskIds);
    }
  });
});
