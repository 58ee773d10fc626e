import { describe, expect, it } from "vitest";
import { taskEndLines, taskRanges } from "../../../src/compat/srun-task-report.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { GOLDEN_DIR_PATH } from "../../shared-dir.ts";

describe("srun's report of tasks that ended badly", () => {
  it("matches golden 027 (srun -w n1 false)", () => {
    const golden = readFileSync(resolve(GOLDEN_DIR_PATH, "027-srun-exit-code.txt"), "utf8");
    const line = taskEndLines("n1", [{ taskId: 0, exitCode: 1, exitSignal: 0 }]);
    expect(golden).toContain(line.trimEnd());
  });
  it("groups tasks of a node by outcome, says tasks for several, skips exit 0", () => {
    const text = taskEndLines("n2", [
      { taskId: 3, exitCode: 2, exitSignal: 0 },
      { taskId: 0, exitCode: 0, exitSignal: 0 },
      { taskId: 1, exitCode: 2, exitSignal: 0 },
      { taskId: 2, exitCode: 2, exitSignal: 0 },
      { taskId: 5, exitCode: 0, exitSignal: 9 },
    ]);
    expect(text).toBe("srun: error: n2: tasks 1-3: Exited with exit code 2\nsrun: error: n2: task 5: Killed\n");
    expect(taskEndLines("n1", [{ taskId: 0, exitCode: 0, exitSignal: 0 }])).toBe("");
  });
  it("compresses task ids into ranges", () => {
    expect(taskRanges([4, 0, 1, 2, 7, 8])).toBe("0-2,4,7-8");
  });
});
