/**
 * --acctg-freq, --profile, --cpu-freq, --gpu-freq, --mem-bind, --network and --spread-job as
 * Slurm 22.05's sbatch reads them. Every expected value is what the oracle showed: the job's
 * environment (`env | grep SLURM_` in the batch script), scontrol show job's fields, and the
 * refusals' messages and exit codes.
 */
import { describe, expect, it } from "vitest";
import type { Built } from "../../../src/compat/options/build-spec.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import type { Result } from "../../../src/lib/result.ts";
import { memBindTaskEnv, tuningEnvOf } from "../../../src/compat/options/apply-tuning.ts";
import { parseSallocArgs, parseSrunArgs, type Interactive } from "../../../src/compat/options/interactive-args.ts";

const INVOKER = { cwd: "/home/alice", hostname: "login1" };

function sbatch(argv: string[], env: Record<string, string> = {}): Result<Built> {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  const ctx = { cmd: "sbatch" as const, argv, env, invoker: INVOKER, now: 1_800_000_000 };
  return sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
}

function built(argv: string[], env: Record<string, string> = {}): Built {
  const r = sbatch(argv, env);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

/** The job's variables a name list picks (the oracle's grep). */
const slurmEnv = (b: Built, names: RegExp) =>
  Object.fromEntries(Object.entries(b.spec.env).filter(([k]) => names.test(k)).sort(([a], [c]) => a.localeCompare(c)));

const TUNING = /^SLURM_(PROFILE|ACCTG_FREQ|CPU_FREQ_REQ|GPU_FREQ|MEM_BIND.*)$/;

describe("the job's environment", () => {
  it.each([
    [[], {}],
    [["--acctg-freq=task=10"], { SLURM_ACCTG_FREQ: "task=10" }],
    [["--acctg-freq=30"], { SLURM_ACCTG_FREQ: "30" }],
    [["--acctg-freq=task=5,energy=0"], { SLURM_ACCTG_FREQ: "task=5,energy=0" }],
    [["--acctg-freq="], { SLURM_ACCTG_FREQ: "" }],
    [["--profile=task"], { SLURM_PROFILE: "Task" }],
    [["--profile=all"], { SLURM_PROFILE: "Energy,Lustre,Network,Task" }],
    [["--profile=task,energy"], { SLURM_PROFILE: "Energy,Task" }],
    [["--profile=Lustre,network"], { SLURM_PROFILE: "Lustre,Network" }],
    [["--profile=none,task"], { SLURM_PROFILE: "None" }],
    [["--cpu-freq=high"], { SLURM_CPU_FREQ_REQ: "High" }],
    [["--cpu-freq=HIGH"], { SLURM_CPU_FREQ_REQ: "High" }],
    [["--cpu-freq=low-high:performance"], { SLURM_CPU_FREQ_REQ: "Low-High:Performance" }],
    [["--cpu-freq=2400000"], { SLURM_CPU_FREQ_REQ: "2400000" }],
    [["--cpu-freq=performance"], { SLURM_CPU_FREQ_REQ: "Performance" }],
    [["--cpu-freq=userspace"], { SLURM_CPU_FREQ_REQ: "UserSpace" }],
    [["--cpu-freq=medium-highm1"], { SLURM_CPU_FREQ_REQ: "Medium-Highm1" }],
    [["--cpu-freq=1000-2000"], { SLURM_CPU_FREQ_REQ: "1000-2000" }],
    [["--gpu-freq=high"], { SLURM_GPU_FREQ: "high" }],
    [["--gpu-freq=medium,memory=low,verbose"], { SLURM_GPU_FREQ: "medium,memory=low,verbose" }],
    [["--mem-bind=local"], { SLURM_MEM_BIND: "local", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=LOCAL"], { SLURM_MEM_BIND: "local", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=verbose,map_mem:0,1"], { SLURM_MEM_BIND: "verbose,map_mem:0,1", SLURM_MEM_BIND_VERBOSE: "verbose" }],
    [["--mem-bind=local,verbose"], { SLURM_MEM_BIND: "verbose,local", SLURM_MEM_BIND_VERBOSE: "verbose" }],
    [["--mem-bind=q,p"], { SLURM_MEM_BIND: "prefer", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=p,local"], { SLURM_MEM_BIND: "prefer,local", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=mask_mem:0x3,0xc"], { SLURM_MEM_BIND: "mask_mem:3,c", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=map_mem=0,1"], { SLURM_MEM_BIND: "map_mem:0,1", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=none"], { SLURM_MEM_BIND: "none", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=sort"], { SLURM_MEM_BIND: "sort", SLURM_MEM_BIND_SORT: "sort", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    [["--mem-bind=nosort"], {}],
    [["--network=sn_all"], {}],
  ])("%j", (argv, expected) => {
    const b = built([...argv]);
    expect(slurmEnv(b, TUNING)).toEqual(expected);
    expect(b.warnings.join("\n")).not.toContain("not supported by Spur and was ignored");
  });

  it("reads the SBATCH_* input variables like the options", () => {
    const b = built([], { SBATCH_PROFILE: "task", SBATCH_CPU_FREQ_REQ: "high", SBATCH_ACCTG_FREQ: "5", SBATCH_GPU_FREQ: "low" });
    expect(slurmEnv(b, TUNING)).toEqual({ SLURM_ACCTG_FREQ: "5", SLURM_CPU_FREQ_REQ: "High", SLURM_GPU_FREQ: "low", SLURM_PROFILE: "Task" });
  });

  it("--mem-bind keeps a warning: the tasks' memory is not bound", () => {
    expect(built(["--mem-bind=local"]).warnings.join("\n")).toContain("--mem-bind: Spur does not bind");
  });
});

describe("what the job record keeps", () => {
  it.each([
    [["--cpu-freq=low-high:performance"], { cpuFreq: "Low-High:Performance" }],
    [["--gpu-freq=medium,memory=low,verbose"], { tresFreq: "gpu:medium,memory=low,verbose" }],
    [["--network=sn_all"], { network: "sn_all" }],
    [["--network="], { network: "" }],
    [["--spread-job"], { spreadJob: true }],
  ])("%j", (argv, expected) => {
    expect(built([...argv]).spec).toMatchObject(expected);
  });
});

describe("refusals (message, exit code)", () => {
  it.each([
    [["--profile=bogus"], "invalid --profile=bogus option", 255],
    [["--profile="], "invalid --profile= option", 255],
    [["--acctg-freq=bogus"], "Invalid --acctg-freq specification: bogus", 255],
    [["--acctg-freq=task=abc"], "Invalid --acctg-freq specification: task=abc", 255],
    [["--acctg-freq=-1"], "Invalid --acctg-freq specification: -1", 255],
    [["--gpu-freq=bogus"], "Invalid --gpu-freq argument: gpu:bogus", 255],
    [["--gpu-freq=HIGH"], "Invalid --gpu-freq argument: gpu:HIGH", 255],
    [["--gpu-freq="], "Invalid --gpu-freq argument: gpu:", 255],
    [["--gpu-freq=low,memory=bogus"], "Invalid --gpu-freq argument: gpu:low,memory=bogus", 255],
    [["--cpu-freq=bogus"], 'unrecognized --cpu-freq argument "bogus"\nInvalid --cpu-freq argument', 255],
    [["--cpu-freq="], 'unrecognized --cpu-freq argument ""\nInvalid --cpu-freq argument', 255],
    [["--cpu-freq=-high"], 'unrecognized --cpu-freq argument ""\nInvalid --cpu-freq argument', 255],
    [["--cpu-freq=1000-"], 'unrecognized --cpu-freq argument ""\nInvalid --cpu-freq argument', 255],
    [["--cpu-freq=Conservative"], "governor of Conservative is not allowed in slurm.conf\nInvalid --cpu-freq argument", 255],
    [["--cpu-freq=powersave"], "governor of powersave is not allowed in slurm.conf\nInvalid --cpu-freq argument", 255],
    [["--cpu-freq=high:ondemand"], "gov on cpu-frec (ondemand) illegal without max\nInvalid --cpu-freq argument", 255],
    [["--mem-bind=bogus"], 'unrecognized --mem-bind argument "bogus"', 255],
  ])("%j", (argv, message, exitCode) => {
    const r = sbatch([...argv]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.message, r.error.exitCode]).toEqual([message, exitCode]);
  });
});

describe("srun's tasks and salloc's command (oracle: `srun OPTS env`, `salloc OPTS env`)", () => {
  const CTX = { invoker: { cwd: "/tmp", hostname: "vm" }, now: 1_800_000_000 };
  const ALL = ["--profile=task", "--acctg-freq=5", "--cpu-freq=high", "--gpu-freq=low", "--mem-bind=local", "--network=x"];

  function envOf(r: Result<Interactive>): Record<string, string> {
    if (!r.ok || r.value.kind !== "run") throw new Error("not a run");
    return tuningEnvOf(r.value.spec.env);
  }

  it("srun gives its tasks only the CPU frequency and the memory binding, the latter in its step form", () => {
    expect(envOf(parseSrunArgs([...ALL, "env"], {}, CTX))).toEqual({
      SLURM_CPU_FREQ_REQ: "High",
      SLURM_MEM_BIND: "quiet,local", SLURM_MEM_BIND_LIST: "", SLURM_MEM_BIND_TYPE: "local", SLURM_MEM_BIND_VERBOSE: "quiet",
    });
  });

  it("salloc exports all of them, SLURM_NETWORK too (sbatch does not)", () => {
    expect(envOf(parseSallocArgs([...ALL, "env"], {}, CTX))).toEqual({
      SLURM_ACCTG_FREQ: "5", SLURM_CPU_FREQ_REQ: "High", SLURM_GPU_FREQ: "low", SLURM_MEM_BIND: "local",
      SLURM_MEM_BIND_VERBOSE: "quiet", SLURM_NETWORK: "x", SLURM_PROFILE: "Task",
    });
  });

  it.each([
    ["map_mem:0,1", { SLURM_MEM_BIND: "quiet,map_mem:0,1", SLURM_MEM_BIND_LIST: "0,1", SLURM_MEM_BIND_TYPE: "map_mem:", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    ["v,p,local", { SLURM_MEM_BIND: "verbose,prefer,local", SLURM_MEM_BIND_LIST: "", SLURM_MEM_BIND_PREFER: "prefer", SLURM_MEM_BIND_TYPE: "local", SLURM_MEM_BIND_VERBOSE: "verbose" }],
    ["none", { SLURM_MEM_BIND: "quiet,none", SLURM_MEM_BIND_LIST: "", SLURM_MEM_BIND_TYPE: "none", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    ["mask_mem:0x3", { SLURM_MEM_BIND: "quiet,mask_mem:3", SLURM_MEM_BIND_LIST: "3", SLURM_MEM_BIND_TYPE: "mask_mem:", SLURM_MEM_BIND_VERBOSE: "quiet" }],
    ["sort", { SLURM_MEM_BIND: "quiet", SLURM_MEM_BIND_LIST: "", SLURM_MEM_BIND_SORT: "sort", SLURM_MEM_BIND_TYPE: "", SLURM_MEM_BIND_VERBOSE: "quiet" }],
  ])("srun --mem-bind=%s", (value, expected) => {
    expect(memBindTaskEnv(value)).toEqual(expected);
  });

  it("an srun inside a batch job reads the job's variables as its options (no warning, the step form)", () => {
    const r = parseSrunArgs(["env"], { SLURM_MEM_BIND: "verbose,local", SLURM_PROFILE: "Energy,Task", SLURM_CPU_FREQ_REQ: "Low-High:Performance" }, CTX);
    if (!r.ok || r.value.kind !== "run") throw new Error("not a run");
    // the submission warned about --mem-bind already
    expect(r.value.warnings).toEqual([]);
    expect(r.value.spec.env).toMatchObject({ SLURM_MEM_BIND: "verbose,local", SLURM_MEM_BIND_TYPE: "local", SLURM_CPU_FREQ_REQ: "Low-High:Performance" });
  });
});

describe("-k/--no-kill[=off] (oracle: nothing shows in scontrol; values other than off refused)", () => {
  it.each([
    [["-k"], {}, true],
    [["--no-kill"], {}, true],
    [["--no-kill="], {}, true],
    [["--no-kill=off"], {}, undefined],
    [["--no-kill=OFF"], {}, undefined],
    [[], { SBATCH_NO_KILL: "" }, true],
    [[], { SBATCH_NO_KILL: "off" }, undefined],
    [["-k"], { SBATCH_NO_KILL: "off" }, true],
  ])("%j %j", (argv, env, noKill) => {
    const b = built([...argv], env);
    expect(b.spec.noKill).toBe(noKill);
    expect(b.warnings).toEqual([]);
  });

  it.each([[["--no-kill=bogus"], {}], [[], { SBATCH_NO_KILL: "1" }], [[], { SBATCH_NO_KILL: "yes" }]])("%j %j is refused, exit 255", (argv, env) => {
    const r = sbatch([...argv], env);
    expect(r.ok).toBe(false);
    if (!r.ok) expect([r.error.message, r.error.exitCode]).toEqual(["Invalid --no-kill specification", 255]);
  });
});
