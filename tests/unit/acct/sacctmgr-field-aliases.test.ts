/**
 * sacctmgr format= names as 22.05 takes them (oracle: `sacctmgr list qos format=NAME` for every
 * QOS field): long names print the column they stand for, limits Spur does not keep print their
 * own empty column, Flags is 20 wide alone and 40 in the default QOS listing, and an unknown name
 * is reported lower-cased.
 */
import { describe, expect, it } from "vitest";
import { SACCTMGR_ALIASES, SACCTMGR_DEFAULT_FORMAT, SACCTMGR_FIELDS, parseFieldList, renderTable, withTresLimits } from "../../../src/compat/format/sacctmgr-fields.ts";

const columns = (format: string) => {
  const cols = parseFieldList(format, SACCTMGR_FIELDS, SACCTMGR_ALIASES);
  if (typeof cols === "string") throw new Error(cols);
  return cols;
};

describe("sacctmgr format= names", () => {
  it.each([
    ["MaxTRESPerJob", "maxtres", "      MaxTRES "],
    ["MaxTRESMinsPerJob", "maxtresmins", "  MaxTRESMins "],
    ["MaxWallDurationPerJob", "maxwall", "    MaxWall "],
    ["MaxTRESPerUser", "maxtrespu", "    MaxTRESPU "],
    ["MaxJobsPerUser", "maxjobspu", "MaxJobsPU "],
    ["MaxSubmitJobsPerUser", "maxsubmitpu", "MaxSubmitPU "],
    ["MaxTRESPerAccount", "maxtrespa", "    MaxTRESPA "],
    ["MaxJobsPerAccount", "maxjobspa", "MaxJobsPA "],
    ["MaxSubmitJobsPerAccount", "maxsubmitpa", "MaxSubmitPA "],
    ["MinTRESPerJob", "mintres", "      MinTRES "],
    ["MinPrioThreshold", "minpriothres", "MinPrioThres "],
    ["GrpJobsAccrue", "grpjobsaccrue", "GrpJobsAccrue "],
    ["MaxTRESRunMinsPU", "maxtresrunminspu", "MaxTRESRunMinsP "],
    ["Flags", "flags", "               Flags "],
    ["MaxTRESRunMins", "maxtresrunminspu", "MaxTRESRunMinsP "],
    ["MaxCPURunMins", "maxcpurunmins", "MaxCPURunMinsPU "],
    ["Coordinators", "coordinators", "      Coord Accounts "],
    ["DefaultWCKey", "defaultwckey", " Def WCKey "],
    ["Classification", "classification", "    Class "],
  ])("%s is the %s column", (name, key, header) => {
    const cols = columns(name);
    expect(cols.map((c) => c.key)).toEqual([key]);
    expect(renderTable(cols, [], true, "").split("\n")[0]).toBe(header);
  });

  it("reads an alias's value from the column it names, and the per-user CPU and node limits from MaxTRESPU", () => {
    const row = withTresLimits({ name: "normal", maxjobspu: "4", maxtrespu: "cpu=8,node=2" });
    expect(renderTable(columns("Name,MaxJobsPerUser,MaxCPUsPU,MaxNodesPU"), [row], false, "P")).toBe("normal|4|8|2\n");
  });

  it("keeps Flags 40 wide in the default QOS listing", () => {
    expect(columns(SACCTMGR_DEFAULT_FORMAT.qos as string).find((c) => c.key === "flags")?.width).toBe(40);
  });

  it("names an unknown field as typed, for the caller to lower-case", () => {
    expect(parseFieldList("Name,FooBar", SACCTMGR_FIELDS, SACCTMGR_ALIASES)).toBe('Invalid field requested: "FooBar"');
  });
});
