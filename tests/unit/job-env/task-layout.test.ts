/** Task ranks per node by --distribution's first level (compat/task-layout.ts). */
import { describe, expect, it } from "vitest";
import { taskRanks } from "../../../src/compat/task-layout.ts";

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
