/** Task ranks per node by --distribution's first level (compat/task-layout.ts). */
import { describe, expect, it } from "vitest";
import { arbitraryRanks, taskRanks } from "../../../src/compat/task-layout.ts";
import { hostfileRead } from "../../../src/compat/job-hostfile.ts";

describe("taskRanks", () => {
  it("block (default, arbitrary): consecutive ranks per node", () => {
    expect(taskRanks([2, 2], "")).toEqual([[0, 1], [2, 3]]);
    expect(taskRanks([3, 1], "block:cyclic")).toEqual([[0, 1, 2], [3]]);
  });

  it("cyclic: one rank per node in turn, skipping full nodes", () => {
    expect(taskRanks([2, 2], "cyclic")).toEqual([[0, 2], [1, 3]]);
    expect(taskRanks([3, 1], "cyclic:block")).toEqual([[0, 2, 3], [1]]);
  });

  it("plane=N: blocks of N ranks per node in turn", () => {
    expect(taskRanks([4, 4], "plane=2")).toEqual([[0, 1, 4, 5], [2, 3, 6, 7]]);
    expect(taskRanks([3, 2], "plane=2,Pack")).toEqual([[0, 1, 4], [2, 3]]);
  });
});

describe("SLURM_HOSTFILE with -m arbitrary", () => {
  const expand = (e: string): string[] | undefined => (e === "n[1-2]" ? ["n1", "n2"] : /^n\d+$/.test(e) ? [e] : undefined);

  const ask = { ntasks: 0, ntasksPerNode: 0, nodesMin: 0, nodesMax: 0, nodelist: "" };
  it("srun's hosts: in order with repeats; an entry's hostlist expands; comments and blanks skipped", () => {
    expect(hostfileRead(ask, "/h", "n2\nn2\n# x\n\nn1 n3\nn[1-2]\n", expand)).toEqual({ kind: "hosts", hosts: ["n2", "n2", "n1", "n3", "n1", "n2"] });
    expect(hostfileRead({ ...ask, ntasks: 2 }, "/h", "n2\nn2\nn1\n", expand)).toEqual({ kind: "hosts", hosts: ["n2", "n2"] });
    expect(hostfileRead(ask, "/h", "bad!\n", expand)).toEqual({ kind: "error", lines: ["Failure getting NodeNames from hostfile"] });
    expect(hostfileRead({ ...ask, nodelist: "n1" }, "/h", "n2\n", expand)).toEqual({ kind: "none" });
  });

  it("task i runs on host i (oracle: n2,n2,n1,n3 gives n1 rank 2, n2 ranks 0-1, n3 rank 3)", () => {
    expect(arbitraryRanks(["n1", "n2", "n3"], ["n2", "n2", "n1", "n3"])).toEqual([[2], [0, 1], [3]]);
  });
});
