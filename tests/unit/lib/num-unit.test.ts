import { describe, expect, it } from "vitest";
import { exactUnits } from "../../../src/lib/num-unit.ts";
import { memText } from "../../../src/sched/model/tres.ts";
import { convertNumUnit } from "../../../src/compat/format/job-values.ts";

describe("Slurm's exact unit conversion (oracle 22.05 TRES, MinMemoryNode, squeue %m)", () => {
  it.each([
    [256, "256M"], [1024, "1G"], [1536, "1.50G"], [2560, "2.50G"], [3072, "3G"], [8000, "8000M"],
    [15200, "15200M"], [729600, "712.50G"], [32000, "32000M"], [80000, "80000M"], [1572864, "1.50T"], [1048576, "1T"],
  ])("%i MiB is %s", (mib, text) => {
    expect(exactUnits(mib, 2)).toBe(text);
    expect(memText(mib)).toBe(text);
    expect(convertNumUnit(mib, 2)).toBe(text);
  });

  it("keeps zero and plain counts", () => {
    expect(memText(0)).toBe("0M");
    expect(convertNumUnit(0, 2)).toBe("0");
    expect(exactUnits(4)).toBe("4");
  });
});
