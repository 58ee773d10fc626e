import { describe, expect, it } from "vitest";
import {
  type DependencySpec,
  type DepJobView,
  type DepSelf,
  dependencyDisplay,
  dependencyUnevaluated,
  evaluateDependency,
  evaluateDependencyDetail,
  formatDependency,
  parseDependency,
  resolveDependency,
} from "../../../src/compat/dependency.ts";
import { goldenStderr, goldenStdout } from "./golden.ts";

const spec = (text: string): DependencySpec => {
  const r = parseDependency(text);
  if (!r.ok) throw new Error(`${text}: ${r.error.message}`);
  return r.value;
};

const view = (over: Partial<DepJobView>): DepJobView => ({
  jobId: 1, arrayJobId: 0, arrayTaskId: -1, state: "PENDING", startTime: 0, endTime: 0,
  user: "root", name: "job", exitCode: 0, ...over,
});

/** A lookup over a job table: (id) → the record; (id, task) → that array element. */
const lookupIn = (jobs: DepJobView[]) => (jobId: number, arrayTaskId?: number) =>
  arrayTaskId === undefined
    ? jobs.find((j) => j.jobId === jobId)
    : jobs.find((j) => j.arrayJobId === jobId && j.arrayTaskId === arrayTaskId);

const SELF: DepSelf = { user: "root", name: "mine", jobId: 100 };
const evalIn = (text: string, jobs: DepJobView[], now = 1000, self = SELF) =>
  evaluateDependency(spec(text), lookupIn(jobs), self, jobs, now);

/** `Dependency=` value of an scontrol show job golden. */
const scontrolDependency = (num: string): string => {
  const m = /Dependency=(\S+)/.exec(goldenStdout(num));
  if (m?.[1] === undefined) throw new Error(`no Dependency= in ${num}`);
  return m[1];
};

describe("parseDependency", () => {
  it("parses typed lists joined by ','", () => {
    expect(spec("afterok:1:2,afterany:3+5")).toEqual({
      anyOf: false,
      items: [
        { type: "afterok", jobIds: [{ jobId: 1 }, { jobId: 2 }] },
        { type: "afterany", jobIds: [{ jobId: 3, delayMin: 5 }] },
      ],
    });
  });

  it("parses '?' as OR", () => {
    expect(spec("afterok:1?afternotok:2")).toEqual({
      anyOf: true,
      items: [
        { type: "afterok", jobIds: [{ jobId: 1 }] },
        { type: "afternotok", jobIds: [{ jobId: 2 }] },
      ],
    });
  });

  it("parses singleton, case-insensitively, with an optional state suffix", () => {
    for (const text of ["singleton", "SINGLETON", "singleton(unfulfilled)"]) {
      expect(spec(text)).toEqual({ anyOf: false, items: [{ type: "singleton", jobIds: [] }] });
    }
  });

  it("carries a +delay over to later ids of the same item (Slurm's parser quirk)", () => {
    expect(spec("after:4+10").items[0]?.jobIds).toEqual([{ jobId: 4, delayMin: 10 }]);
    expect(spec("after:1:2+5:3").items[0]?.jobIds).toEqual([
      { jobId: 1 },
      { jobId: 2, delayMin: 5 },
      { jobId: 3, delayMin: 5 },
    ]);
    expect(spec("after:1+5,after:2").items[1]?.jobIds).toEqual([{ jobId: 2 }]);
  });

  it("parses array forms _N, _* and _[list]", () => {
    expect(spec("afterok:17_3").items[0]?.jobIds).toEqual([{ jobId: 17, arrayTaskId: 3 }]);
    expect(spec("afterok:17_*").items[0]?.jobIds).toEqual([{ jobId: 17, wholeArray: true }]);
    expect(spec("afterok:17_[1-3,5],afterany:9").items).toEqual([
      {
        type: "afterok",
        jobIds: [1, 2, 3, 5].map((arrayTaskId) => ({ jobId: 17, arrayTaskId })),
      },
      { type: "afterany", jobIds: [{ jobId: 9 }] },
    ]);
  });

  it("reads bare ids as afterany (legacy form)", () => {
    expect(spec("123")).toEqual({ anyOf: false, items: [{ type: "afterany", jobIds: [{ jobId: 123 }] }] });
    expect(spec("123,124").items.map((i) => i.type)).toEqual(["afterany", "afterany"]);
  });

  it("matches type names without case; afterburstbuffer on its first 11 characters", () => {
    expect(spec("AfterOK:1").items[0]?.type).toBe("afterok");
    expect(spec("afterburstbuffer:5").items[0]?.type).toBe("afterburstbuffer");
    expect(spec("afterburstbXYZ:5").items[0]?.type).toBe("afterburstbuffer");
    expect(spec("aftercorr:5").items[0]?.type).toBe("aftercorr");
    expect(spec("after:5").items[0]?.type).toBe("after");
  });

  it("accepts (state) suffixes on ids, as the controller prints them", () => {
    expect(spec("afterok:25(failed),afterany:17_*(unfulfilled)").items).toEqual([
      { type: "afterok", jobIds: [{ jobId: 25 }] },
      { type: "afterany", jobIds: [{ jobId: 17, wholeArray: true }] },
    ]);
  });

  it("gives an empty spec for '' and '0' (clear)", () => {
    expect(spec("")).toEqual({ anyOf: false, items: [] });
    expect(spec("0")).toEqual({ anyOf: false, items: [] });
  });

  it("rejects an unknown type with Slurm's text (golden 084)", () => {
    const r = parseDependency("bogus:1");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.exitCode).toBe(1);
    expect(`sbatch: error: Batch job submission failed: ${r.error.message}\n`).toBe(goldenStderr("084"));
  });

  it.each([
    "afterok:1,afterany:2?after:3", "afterok:0", "afterok:", "afterok", "afterok:abc", "afterok:1:",
    "afterok:1_[x]", "afterok:1_[1-3%2]", "expand:1", "afterok:-1", "afterok:1+x", "after ok:1",
    "singletonx", ",", "?", "afterok:99999999999",
  ])("rejects %j", (text) => {
    const r = parseDependency(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe("Job dependency problem");
  });
});

describe("resolveDependency", () => {
  const array17 = [
    view({ jobId: 17, arrayJobId: 17, arrayTaskId: 3, state: "RUNNING" }),
    view({ jobId: 18, arrayJobId: 17, arrayTaskId: 1, state: "RUNNING" }),
    view({ jobId: 19, arrayJobId: 17, arrayTaskId: 2, state: "RUNNING" }),
  ];
  const resolve = (text: string, jobs: DepJobView[], self = 22) => resolveDependency(spec(text), lookupIn(jobs), jobs, self);

  it("turns a plain array id into the whole array (golden 064: afterok:17 → afterok:17_*)", () => {
    const r = resolve("afterok:17", array17);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(formatDependency(r.value)).toBe(scontrolDependency("064"));
    expect(scontrolDependency("064")).toBe("afterok:17_*(unfulfilled)");
  });

  it("keeps a plain job id and one array task as they are", () => {
    const r = resolve("afterok:18,afterany:17_2", array17);
    expect(r.ok && formatDependency(r.value)).toBe("afterok:18(unfulfilled),afterany:17_2(unfulfilled)");
  });

  it("rejects afterok/afternotok on an unknown id (current Slurm; 22.05 accepted it, golden 083)", () => {
    expect(resolve("afterok:999999", array17).ok).toBe(false);
    expect(resolve("afternotok:999999", array17).ok).toBe(false);
    expect(resolve("afterany:999999", array17).ok).toBe(true);
    expect(resolve("after:999999", array17).ok).toBe(true);
  });

  it("rejects a job depending on itself", () => {
    const r = resolve("afterany:22", [view({ jobId: 22 })]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toBe("Job dependency problem");
  });
});

describe("evaluateDependency", () => {
  it("afterok on a job that failed is never satisfied and shows (failed) (goldens 080/081)", () => {
    const jobs = [view({ jobId: 25, name: "willfail", state: "FAILED", exitCode: 1, startTime: 10, endTime: 11 })];
    const d = spec("afterok:25");
    const result = evaluateDependencyDetail(d, lookupIn(jobs), { ...SELF, jobId: 26 }, jobs, 1000);
    expect(result.result).toBe("never");
    expect(formatDependency(d, result.entries)).toBe(scontrolDependency("081"));
    expect(goldenStdout("080")).toContain("(DependencyNeverSatisfied)");
  });

  it("afterok on a completed job is satisfied and the list is empty (golden 082)", () => {
    const jobs = [view({ jobId: 27, state: "COMPLETED", exitCode: 0, startTime: 10, endTime: 11 })];
    const d = spec("afterok:27");
    const result = evaluateDependencyDetail(d, lookupIn(jobs), SELF, jobs, 1000);
    expect(result.result).toBe("satisfied");
    expect(formatDependency(d, result.entries)).toBe("(null)");
  });

  it("after: satisfied once the other job is not pending, +N minutes after its start", () => {
    expect(evalIn("after:1", [view({ state: "PENDING" })])).toBe("pending");
    expect(evalIn("after:1", [view({ state: "RUNNING", startTime: 500 })])).toBe("satisfied");
    expect(evalIn("after:1", [view({ state: "SUSPENDED", startTime: 500 })])).toBe("satisfied");
    expect(evalIn("after:1+10", [view({ state: "RUNNING", startTime: 500 })], 1099)).toBe("pending");
    expect(evalIn("after:1+10", [view({ state: "RUNNING", startTime: 500 })], 1100)).toBe("satisfied");
    // cancelled before it started: satisfied too
    expect(evalIn("after:1", [view({ state: "CANCELLED", endTime: 900 })])).toBe("satisfied");
  });

  it("afterany: satisfied when the other job ended in any state", () => {
    expect(evalIn("afterany:1", [view({ state: "RUNNING" })])).toBe("pending");
    for (const state of ["COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY"]) {
      expect(evalIn("afterany:1", [view({ state, exitCode: 1 })])).toBe("satisfied");
    }
    expect(evalIn("1", [view({ state: "FAILED" })])).toBe("satisfied");
    expect(evalIn("afterburstbuffer:1", [view({ state: "COMPLETED" })])).toBe("satisfied");
  });

  it("afterok / afternotok", () => {
    expect(evalIn("afterok:1", [view({ state: "RUNNING" })])).toBe("pending");
    expect(evalIn("afterok:1", [view({ state: "COMPLETED" })])).toBe("satisfied");
    expect(evalIn("afterok:1", [view({ state: "TIMEOUT" })])).toBe("never");
    expect(evalIn("afternotok:1", [view({ state: "RUNNING" })])).toBe("pending");
    expect(evalIn("afternotok:1", [view({ state: "COMPLETED" })])).toBe("never");
    expect(evalIn("afternotok:1", [view({ state: "FAILED", exitCode: 3 })])).toBe("satisfied");
    expect(evalIn("afternotok:1", [view({ state: "CANCELLED" })])).toBe("satisfied");
  });

  it("counts a job the controller no longer knows as satisfied (purged)", () => {
    expect(evalIn("afterok:42", [])).toBe("satisfied");
    expect(evalIn("afterok:42_*", [])).toBe("satisfied");
  });

  describe("whole arrays", () => {
    const el = (jobId: number, task: number, state: string, exitCode = 0) =>
      view({ jobId, arrayJobId: 17, arrayTaskId: task, state, exitCode, startTime: state === "PENDING" ? 0 : 100 });
    const remainder = view({ jobId: 17, arrayJobId: 17, arrayTaskId: -1, state: "PENDING" });

    it("waits for every element, including the pending remainder", () => {
      expect(evalIn("afterok:17", [remainder, el(18, 1, "COMPLETED")])).toBe("pending");
      expect(evalIn("afterany:17_*", [remainder, el(18, 1, "COMPLETED")])).toBe("pending");
      expect(evalIn("after:17", [remainder, el(18, 1, "RUNNING")])).toBe("pending");
      expect(evalIn("after:17", [el(17, 3, "RUNNING"), el(18, 1, "RUNNING")])).toBe("satisfied");
    });

    it("afterok: all elements COMPLETED; decided only once all have ended", () => {
      const done = [el(17, 3, "COMPLETED"), el(18, 1, "COMPLETED"), el(19, 2, "COMPLETED")];
      expect(evalIn("afterok:17", done)).toBe("satisfied");
      expect(evalIn("afterok:17_*", [el(17, 3, "RUNNING"), el(18, 1, "FAILED", 1)])).toBe("pending");
      expect(evalIn("afterok:17_*", [el(17, 3, "COMPLETED"), el(18, 1, "FAILED", 1)])).toBe("never");
      expect(evalIn("afternotok:17_*", [el(17, 3, "COMPLETED"), el(18, 1, "FAILED", 1)])).toBe("satisfied");
      expect(evalIn("afternotok:17_*", done)).toBe("never");
    });

    it("one task: _N looks at that element only", () => {
      const jobs = [el(17, 3, "RUNNING"), el(18, 1, "COMPLETED")];
      expect(evalIn("afterok:17_1", jobs)).toBe("satisfied");
      expect(evalIn("afterok:17_3", jobs)).toBe("pending");
    });

    it("aftercorr: the task with the same index in the other array", () => {
      const other = [el(17, 3, "RUNNING"), el(18, 1, "COMPLETED"), el(19, 2, "FAILED", 1)];
      const selfTask = (task: number): DepSelf => ({ ...SELF, arrayJobId: 50, arrayTaskId: task });
      expect(evalIn("aftercorr:17", other, 1000, selfTask(1))).toBe("satisfied");
      expect(evalIn("aftercorr:17", other, 1000, selfTask(2))).toBe("never");
      expect(evalIn("aftercorr:17", other, 1000, selfTask(3))).toBe("pending");
      // the other job is not an array: like afterok
      expect(evalIn("aftercorr:5", [view({ jobId: 5, state: "COMPLETED" })], 1000, selfTask(1))).toBe("satisfied");
      expect(evalIn("aftercorr:5", [view({ jobId: 5, state: "FAILED" })], 1000, selfTask(1))).toBe("never");
    });
  });

  describe("singleton", () => {
    const self: DepSelf = { user: "alice", name: "train", jobId: 50 };
    const other = (over: Partial<DepJobView>) => view({ user: "alice", name: "train", ...over });

    it("waits while a job of the same user and name runs or is suspended", () => {
      expect(evalIn("singleton", [other({ jobId: 40, state: "RUNNING" })], 0, self)).toBe("pending");
      expect(evalIn("singleton", [other({ jobId: 60, state: "SUSPENDED" })], 0, self)).toBe("pending");
      expect(evalIn("singleton", [other({ jobId: 40, state: "COMPLETED" })], 0, self)).toBe("satisfied");
      expect(evalIn("singleton", [other({ jobId: 40, state: "RUNNING", user: "bob" })], 0, self)).toBe("satisfied");
      expect(evalIn("singleton", [other({ jobId: 40, state: "RUNNING", name: "eval" })], 0, self)).toBe("satisfied");
    });

    it("lets older pending singleton jobs go first, and ignores its own record", () => {
      expect(evalIn("singleton", [other({ jobId: 40, singleton: true })], 0, self)).toBe("pending");
      expect(evalIn("singleton", [other({ jobId: 60, singleton: true })], 0, self)).toBe("satisfied");
      expect(evalIn("singleton", [other({ jobId: 40 })], 0, self)).toBe("satisfied");
      expect(evalIn("singleton", [other({ jobId: 50, state: "RUNNING" })], 0, self)).toBe("satisfied");
    });

    it("is not blocked by pending records of its own array", () => {
      const me: DepSelf = { ...self, jobId: 52, arrayJobId: 49, arrayTaskId: 2 };
      const jobs = [other({ jobId: 49, arrayJobId: 49, arrayTaskId: -1, singleton: true })];
      expect(evalIn("singleton", jobs, 0, me)).toBe("satisfied");
      jobs.push(other({ jobId: 51, arrayJobId: 49, arrayTaskId: 1, state: "RUNNING" }));
      expect(evalIn("singleton", jobs, 0, me)).toBe("pending");
    });
  });

  it("combines AND and OR lists", () => {
    const jobs = [
      view({ jobId: 1, state: "COMPLETED" }),
      view({ jobId: 2, state: "FAILED", exitCode: 1 }),
      view({ jobId: 3, state: "RUNNING" }),
    ];
    expect(evalIn("afterok:1,afterany:2", jobs)).toBe("satisfied");
    expect(evalIn("afterok:1,afterok:2", jobs)).toBe("never");
    expect(evalIn("afterok:1,afterany:3", jobs)).toBe("pending");
    expect(evalIn("afterok:1:3", jobs)).toBe("pending");
    expect(evalIn("afterok:2,afterany:3", jobs)).toBe("never");
    expect(evalIn("afterok:2?afterany:3", jobs)).toBe("pending");
    expect(evalIn("afterok:2?afterok:1", jobs)).toBe("satisfied");
    expect(evalIn("afterok:2?afternotok:1", jobs)).toBe("never");
    expect(evaluateDependency(spec(""), lookupIn(jobs), SELF, jobs, 0)).toBe("satisfied");
  });

  it("keeps settled refs settled when given the previous entries", () => {
    const d = spec("afterok:1");
    const failed = [view({ state: "FAILED" })];
    const first = evaluateDependencyDetail(d, lookupIn(failed), SELF, failed, 0);
    expect(first.entries).toEqual([["never"]]);
    // requeued and completed later: stays failed
    const completed = [view({ state: "COMPLETED" })];
    expect(evaluateDependencyDetail(d, lookupIn(completed), SELF, completed, 0, first.entries).result).toBe("never");
    expect(evaluateDependencyDetail(d, lookupIn(completed), SELF, completed, 0).result).toBe("satisfied");
  });
});

describe("formatDependency", () => {
  it("prints every remaining ref with its type and state", () => {
    expect(formatDependency(spec("afterok:1:2,afterany:3+5"))).toBe(
      "afterok:1(unfulfilled),afterok:2(unfulfilled),afterany:3+5(unfulfilled)",
    );
    expect(formatDependency(spec("afterok:1?afternotok:2_4"))).toBe("afterok:1(unfulfilled)?afternotok:2_4(unfulfilled)");
    expect(formatDependency(spec("singleton"))).toBe("singleton(unfulfilled)");
    expect(formatDependency(spec("after:4+10"))).toBe("after:4+10(unfulfilled)");
  });

  it("drops fulfilled refs and marks failed ones", () => {
    const d = spec("afterok:1:2,afterany:3");
    expect(formatDependency(d, [["satisfied", "never"], ["pending"]])).toBe("afterok:2(failed),afterany:3(unfulfilled)");
    expect(formatDependency(d, [["satisfied", "satisfied"], ["satisfied"]])).toBe("(null)");
  });

  it("prints (null) for no dependency and for a satisfied OR list", () => {
    expect(formatDependency(spec(""))).toBe("(null)");
    expect(formatDependency(spec("afterok:1?afterok:2"), [["satisfied"], ["pending"]])).toBe("(null)");
  });

  it("re-parses its own output", () => {
    const d = spec("afterok:1:2,afterany:3+5,afterok:17_*,afterany:9_2");
    const text = formatDependency(d);
    expect(formatDependency(spec(text))).toBe(text);
    expect(spec(text).items.flatMap((item) => item.jobIds)).toEqual(d.items.flatMap((item) => item.jobIds));
  });
});

describe("dependencyDisplay (squeue %E, scontrol Dependency= as the conformance suite sees them)", () => {
  const sleeper = view({ jobId: 10, state: "RUNNING", startTime: 500 });
  const arr = [view({ jobId: 20, arrayJobId: 20, arrayTaskId: 1, state: "PENDING" }), view({ jobId: 21, arrayJobId: 20, arrayTaskId: 2 })];
  const jobs = [sleeper, ...arr];
  it("splits multi-id items, marks arrays _* and unfulfilled refs (x-dep-multiple-ids)", () => {
    expect(dependencyDisplay("afterok:10:20", SELF, jobs, 1000)).toBe("afterok:10(unfulfilled),afterok:20_*(unfulfilled)");
  });
  it("keeps ? between OR items (x-dep-or-form)", () => {
    expect(dependencyDisplay("afterok:10?afterany:20", SELF, jobs, 1000)).toBe("afterok:10(unfulfilled)?afterany:20_*(unfulfilled)");
  });
  it("shows (failed) for a ref that can never be satisfied and drops fulfilled ones", () => {
    const done = [view({ jobId: 30, state: "FAILED", exitCode: 1, endTime: 900 }), view({ jobId: 31, state: "COMPLETED", endTime: 900 }), ...jobs];
    expect(dependencyDisplay("afterok:30", SELF, done, 1000)).toBe("afterok:30(failed)");
    expect(dependencyDisplay("afterok:31,afterany:10", SELF, done, 1000)).toBe("afterany:10(unfulfilled)");
  });
  it("is (null) once a singleton is free, singleton(unfulfilled) while another runs", () => {
    expect(dependencyDisplay("singleton", SELF, jobs, 1000)).toBe("(null)");
    const twin = view({ jobId: 40, name: "mine", state: "RUNNING", startTime: 500 });
    expect(dependencyDisplay("singleton", SELF, [twin, ...jobs], 1000)).toBe("singleton(unfulfilled)");
  });
});

describe("a task of a held array that is not split off yet", () => {
  it("keeps afterok:<array>_N pending (x-dep-on-array-element)", () => {
    const remainder = view({ jobId: 50, arrayJobId: 50, arrayTaskId: -1, state: "PENDING", pendingTasks: [1, 2, 3] });
    expect(evalIn("afterok:50_1", [remainder])).toBe("pending");
    expect(dependencyDisplay("afterok:50_1", SELF, [remainder], 1000)).toBe("afterok:50_1(unfulfilled)");
  });
});

describe("dependencyUnevaluated: a job submitted held (oracle 22.05, differential seed 9574)", () => {
  const done = view({ jobId: 1388, state: "COMPLETED", startTime: 10, endTime: 11 });
  const held = view({ jobId: 1389, state: "PENDING" });
  const array = [view({ jobId: 17, arrayJobId: 17, arrayTaskId: 1, state: "PENDING" })];
  it.each([
    ["afterok:1388", [done], "afterok:1388(unfulfilled)"],
    ["afterany:1388", [done], "afterany:1388(unfulfilled)"],
    ["afternotok:1388", [done], "afternotok:1388(unfulfilled)"],
    ["afterok:1388,afterok:1389", [done, held], "afterok:1388(unfulfilled),afterok:1389(unfulfilled)"],
    ["singleton", [], "singleton(unfulfilled)"],
    ["after:1388", [done], "after:1388(unfulfilled)"],
    ["afterok:17", array, "afterok:17_*(unfulfilled)"],
  ])("%s shows every ref as given: %s", (text, jobs, shown) => {
    expect(dependencyUnevaluated(text, jobs)).toBe(shown);
  });
});
