/**
 * srun's check of --cpu-bind before it asks for anything. Every expected line is what Slurm
 * 22.05's srun printed on the oracle (`srun -N1 --cpu-bind=VALUE true`; the oracle has no
 * affinity plugin, so it also prints "cluster configuration lacks support for cpu binding",
 * which a cluster that binds does not), exit 1 for every refusal; the same for SLURM_CPU_BIND.
 */
import { describe, expect, it } from "vitest";
import { cpuBindError, cpuBindPieces } from "../../../src/compat/options/cpu-bind-syntax.ts";
import { parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { errorText } from "../../../src/compat/options/messages.ts";

const CTX = { invoker: { cwd: "/home/alice", hostname: "login1" }, now: 1_800_000_000 };

describe("values 22.05's srun takes", () => {
  it.each([
    "cores", "none", "no", "ldoms", "sockets", "socket", "core", "thread", "ldom", "rank", "rank_ldom", "one_thread",
    "v,cores", "cores,v", "quiet,v", "Verbose", "CORES", "map_cpu=0", "MAP_CPU:0", "map_ldom:0", "mask_ldom:0x1",
    "mask_cpu:0x3,0x5", "mask_cpu:0x", "mask_cpu:3,0x", "mask_cpu:0x3*2", "mask_cpu:0x*2", "map_cpu:1*2", "map_cpu:1*02",
    "map_cpu:*2", "map_cpu:0,1,cores", "map_cpu:0,,1", "map_cpu:,1", "map_cpu:08", "map_cpu:9999999999", "map_cpux:1",
    "quiet,mask_cpu:0x3,0xC", "help",
  ])("%s", (value) => {
    expect(cpuBindError(value)).toBeUndefined();
  });
});

describe("values it refuses, and the line it names", () => {
  it.each([
    ["bogus", 'unrecognized --cpu-bind argument "bogus"'],
    ["verbose,bogus", 'unrecognized --cpu-bind argument "bogus"'],
    ["none,bogus", 'unrecognized --cpu-bind argument "bogus"'],
    ["rank,foo", 'unrecognized --cpu-bind argument "foo"'],
    ["board", 'unrecognized --cpu-bind argument "board"'],
    ["boards", 'unrecognized --cpu-bind argument "boards"'],
    ["off", 'unrecognized --cpu-bind argument "off"'],
    ["rankx", 'unrecognized --cpu-bind argument "rankx"'],
    ["coresx", 'unrecognized --cpu-bind argument "coresx"'],
    ["rank_ldom:", 'unrecognized --cpu-bind argument "rank_ldom:"'],
    ["", 'unrecognized --cpu-bind argument ""'],
    [",cores", 'unrecognized --cpu-bind argument ""'],
    ["cores,", 'unrecognized --cpu-bind argument "cores,"'],
    ["map_cpu:0,x", 'unrecognized --cpu-bind argument "x"'],
    ["map_cpu:1,2,x3", 'unrecognized --cpu-bind argument "x3"'],
    ["mask_cpu:0x3,zz", 'unrecognized --cpu-bind argument "zz"'],
    ["map_cpu:0;1", 'unrecognized --cpu-bind argument "1"'],
    ["map_cpu:", 'missing list for "--cpu-bind=map_cpu:<list>"'],
    ["map_cpu", 'missing list for "--cpu-bind=map_cpu:<list>"'],
    ["map_cpu=", 'missing list for "--cpu-bind=map_cpu:<list>"'],
    ["mask_cpu", 'missing list for "--cpu-bind=mask_cpu:<list>"'],
    ["map_ldom:", 'missing list for "--cpu-bind=map_ldom:<list>"'],
    ["mask_cpu:zz", "Failed to validate number: zz, the offending character is z"],
    ["mask_cpu:g", "Failed to validate number: g, the offending character is g"],
    ["mask_cpu:0xg", "Failed to validate number: g, the offending character is g"],
    ["mask_cpu:0X3", "Failed to validate number: 0X3, the offending character is X"],
    ["mask_cpu:0x0x3", "Failed to validate number: 0x3, the offending character is x"],
    ["mask_ldom:zz", "Failed to validate number: zz, the offending character is z"],
    ["map_ldom:x", "Failed to validate number: x, the offending character is x"],
    ["map_cpu:0x1", "Failed to validate number: 0x1, the offending character is x"],
    ["map_cpu:-1", "Failed to validate number: -1, the offending character is -"],
    ["map_cpu:1a", "Failed to validate number: 1a, the offending character is a"],
    ["map_cpu:1,2,3x", "Failed to validate number: 3x, the offending character is x"],
    ["verbose,map_cpu:1,a", "Failed to validate number: a, the offending character is a"],
    ["map_cpu: 1", "Failed to validate number:  1, the offending character is  "],
    ["map_cpu:x*2", "Failed to validate number: x, the offending character is x"],
    ["map_cpu:1*x", "Failed to validate number: *x, the offending character is x"],
    ["mask_cpu:3*x", "Failed to validate number: *x, the offending character is x"],
    ["map_cpu:1*-1", "Failed to validate number: *-1, the offending character is -"],
    ["map_cpu:1*2x", "Failed to validate number: *2x, the offending character is x"],
    ["map_cpu:1*2*3", "Failed to validate number: *2*3, the offending character is *"],
    ["map_cpu:1*", "Invalid map_cpu multiplier: "],
    ["Map_Cpu:1*", "Invalid map_cpu multiplier: "],
    ["mask_cpu:3*", "Invalid mask_cpu multiplier: "],
    ["map_ldom:1*", "Invalid map_ldom multiplier: "],
    ["map_cpu:1*0", "Invalid map_cpu multiplier: 0"],
  ])("%j", (value, line) => {
    expect(cpuBindError(value)).toBe(line);
  });
});

describe("pieces", () => {
  it("a comma joins list items when a value follows it, and separates pieces otherwise", () => {
    expect(cpuBindPieces("verbose,mask_cpu:0x3,0xC,cores")).toEqual(["verbose", "mask_cpu:0x3,0xC", "cores"]);
    expect(cpuBindPieces("map_cpu:0,x")).toEqual(["map_cpu:0", "x"]);
    expect(cpuBindPieces("a,b")).toEqual(["a,b"]); // hex digits to the end are a value
  });
});

describe("srun", () => {
  it("refuses a bad --cpu-bind before asking for anything: the piece on an error line, then fatal, exit 1", () => {
    const r = parseSrunArgs(["-N1", "--cpu-bind=bogus", "true"], {}, CTX);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(errorText("srun", r.error)).toBe('srun: error: unrecognized --cpu-bind argument "bogus"\nsrun: fatal: Failed to parse --cpu-bind= values.\n');
    expect(r.error.exitCode).toBe(1);
  });

  it("checks SLURM_CPU_BIND the same way (oracle: SLURM_CPU_BIND=bogus, and set but empty)", () => {
    for (const [value, line] of [["bogus", 'unrecognized --cpu-bind argument "bogus"'], ["", 'unrecognized --cpu-bind argument ""'], ["map_cpu:", 'missing list for "--cpu-bind=map_cpu:<list>"']] as const) {
      const r = parseSrunArgs(["true"], { SLURM_CPU_BIND: value }, CTX);
      expect(r.ok ? "" : errorText("srun", r.error)).toBe(`srun: error: ${line}\nsrun: fatal: Failed to parse --cpu-bind= values.\n`);
    }
  });

  it("keeps a good value for spurd", () => {
    const r = parseSrunArgs(["--cpu-bind=verbose,map_cpu:0,1", "true"], {}, CTX);
    expect(r.ok && r.value.kind === "run" && r.value.settings.cpuBind).toBe("verbose,map_cpu:0,1");
  });
});
