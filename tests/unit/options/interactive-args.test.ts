import { describe, expect, it } from "vitest";
import { parseSallocArgs, parseSrunArgs, type Interactive } from "../../../src/compat/options/interactive-args.ts";
import { errorText, rejectionText } from "../../../src/compat/options/messages.ts";
import type { Result } from "../../../src/lib/result.ts";
import { readGolden } from "./helpers.ts";

const CTX = { invoker: { cwd: "/tmp/slurm-oracle/jobs", hostname: "vm" }, now: 1_800_000_000 };

function run(r: Result<Interactive>): Extract<Interactive, { kind: "run" }> {
  if (!r.ok) throw new Error(r.error.message);
  if (r.value.kind !== "run") throw new Error("not a run");
  return r.value;
}

describe("parseSrunArgs", () => {
  it("srun -N2 -l hostname (golden 024)", () => {
    const r = run(parseSrunArgs(["-N2", "-l", "hostname"], {}, CTX));
    expect(r.command).toEqual(["hostname"]);
    expect(r.settings.label).toBe(true);
    expect(r.spec).toMatchObject({ nodesMin: 2, nodesMax: 2, name: "hostname", argv: ["hostname"], command: "hostname", interactive: true, workDir: "/tmp/slurm-oracle/jobs" });
  });

  it("the command keeps its own options", () => {
    const r = run(parseSrunArgs(["--gres=gpu:2", "bash", "-c", "env | sort"], {}, CTX));
    expect([r.command, r.spec.gresPerNode]).toEqual([["bash", "-c", "env | sort"], [{ name: "gpu", type: "", count: 2 }]]);
    expect(r.spec.name).toBe("bash");
  });

  it("inside an allocation it reads the job's variables; the command line wins", () => {
    const env = { SLURM_JOB_ID: "42", SLURM_NTASKS: "4", SLURM_JOB_NUM_NODES: "2", SLURM_JOB_NODELIST: "n[1-2]", SLURM_CPUS_PER_TASK: "2" };
    const r = run(parseSrunArgs(["-n", "1", "true"], env, CTX));
    // -n1 lowers the job's node count (read from SLURM_JOB_NUM_NODES) to one node, with Slurm's warning (oracle: srun -n1 in a -N2 job)
    expect([r.settings.jobId, r.settings.allocNodelist, r.spec.ntasks, r.spec.nodesMin, r.spec.cpusPerTask]).toEqual([42, "n[1-2]", 1, 1, 2]);
    expect(r.warnings).toEqual(["Warning: can't run 1 processes on 2 nodes, setting nnodes to 1"]);
  });

  it("SLURM_NTASKS overrides SLURM_NPROCS; SRUN_EXPORT_ENV overrides SLURM_EXPORT_ENV", () => {
    const r = run(parseSrunArgs(["true"], { SLURM_NPROCS: "3", SLURM_NTASKS: "5", SLURM_EXPORT_ENV: "NONE", SRUN_EXPORT_ENV: "ALL", HOME: "/h" }, CTX));
    expect([r.spec.ntasks, r.spec.export, r.spec.env.HOME]).toEqual([5, "ALL", "/h"]);
  });

  it.each([
    [["--pty", "bash"], { pty: true }],
    [["--pty=3", "bash"], { pty: true, ptyFd: 3 }],
    [["-u", "-K", "--multi-prog", "x"], { unbuffered: true, killOnBadExit: 1, multiProg: true }],
    [["-K0", "x"], { killOnBadExit: 0 }],
    [["-W", "30", "x"], { waitSec: 30 }],
    [["--jobid=7", "--overlap", "--exact", "x"], { jobId: 7, overlap: true, exact: true }],
    [["-I", "x"], { immediateSec: 1 }],
    [["--immediate=5", "x"], { immediateSec: 5 }],
    [["--mpi=pmix", "-X", "--quit-on-interrupt", "-E", "--whole", "x"], { mpi: "pmix", disableStatus: true, quitOnInterrupt: true, preserveEnv: true, whole: true }],
  ] as const)("settings %j", (argv, settings) => {
    expect(run(parseSrunArgs([...argv], {}, CTX)).settings).toMatchObject(settings);
  });

  it("srun refuses the batch-only R/B signal flag B:, and several het groups at once", () => {
    expect(parseSrunArgs(["--signal=B:USR1", "x"], {}, CTX)).toMatchObject({ ok: false, error: { message: "Invalid --signal specification" } });
    expect(run(parseSrunArgs(["--het-group=1", "x"], {}, CTX)).settings).toMatchObject({ hetGroup: 1 });
    expect(parseSrunArgs(["--het-group=0,1", "x"], {}, CTX)).toMatchObject({ ok: false, error: { message: "--het-group with more than one component is not supported by Spur" } });
    // oracle 22.05: the range parser's line first (srun -N1 --het-group=x true, --het-group=-1, --het-group=1-x)
    expect(parseSrunArgs(["--het-group=a", "x"], {}, CTX)).toMatchObject({ ok: false, error: { message: "_parse_single_range: Invalid range: `a'\nInvalid --het-group value: a" } });
    expect(parseSrunArgs(["--het-group=-1", "x"], {}, CTX)).toMatchObject({ ok: false, error: { message: "_parse_single_range: Invalid range: `-1'\nInvalid --het-group value: -1" } });
    expect(parseSrunArgs(["--het-group=1-x", "x"], {}, CTX)).toMatchObject({ ok: false, error: { message: "_parse_single_range: Invalid range: `1-x'\nInvalid --het-group value: 1-x" } });
  });

  it("srun warns about what Spur does not do", () => {
    expect(run(parseSrunArgs(["--compress", "x"], {}, CTX)).warnings).toEqual(["--compress is not supported by Spur and was ignored"]);
  });

  it("no command is Slurm's fatal error", () => {
    const r = parseSrunArgs(["-n", "2"], {}, CTX);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(errorText("srun", r.error)).toBe("srun: fatal: No command given to execute.\n");
  });

  it("golden 032: srun --bogus hostname", () => {
    const g = readGolden("032-srun-bad-option.txt");
    const r = parseSrunArgs(["--bogus", "hostname"], {}, CTX);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([errorText("srun", r.error), r.error.exitCode]).toEqual([g.stderr, g.exitCode]);
  });

  it("golden 028: srun -p nosuch, rejected by the controller", () => {
    const g = readGolden("028-srun-bad-partition.txt");
    const r = run(parseSrunArgs(["-p", "nosuch", "hostname"], {}, CTX));
    expect(rejectionText("srun", "Invalid partition name specified", r.spec.partition)).toBe(g.stderr);
  });

  it("salloc words a controller's refusal its own way (oracle 22.05: salloc -p nosuch, -w nosuchnode)", () => {
    expect(rejectionText("salloc", "Invalid partition name specified", "nosuch")).toBe(
      "salloc: error: invalid partition specified: nosuch\nsalloc: error: Job submit/allocate failed: Invalid partition name specified\n",
    );
    expect(rejectionText("salloc", "Invalid node name specified", "")).toBe("salloc: error: Job submit/allocate failed: Invalid node name specified\n");
  });

  it("--help and --version come back as text", () => {
    expect(parseSrunArgs(["--help"], {}, CTX)).toMatchObject({ ok: true, value: { kind: "exit", exitCode: 0, stdout: expect.stringMatching(/^Usage: srun/) } });
    expect(parseSrunArgs(["-V"], {}, CTX)).toMatchObject({ ok: true, value: { kind: "exit", stdout: "slurm 26.05.0\n" } });
  });

  it("without a context the working directory comes from PWD", () => {
    expect(run(parseSrunArgs(["true"], { PWD: "/w", HOSTNAME: "h" })).spec).toMatchObject({ workDir: "/w", submitHost: "h" });
  });
});

describe("parseSallocArgs", () => {
  it("salloc -N2 --no-shell", () => {
    const r = run(parseSallocArgs(["-N2", "--no-shell"], {}, CTX));
    expect([r.command, r.settings.noShell, r.spec.nodesMin, r.spec.interactive, r.spec.name]).toEqual([[], true, 2, true, "no-shell"]); // oracle: squeue NAME no-shell
  });

  it("reads SALLOC_* variables, not SBATCH_*", () => {
    const r = run(parseSallocArgs(["bash"], { SALLOC_PARTITION: "gpu", SBATCH_PARTITION: "debug", SALLOC_TIMELIMIT: "5" }, CTX));
    expect([r.spec.partition, r.spec.timeLimitMin, r.spec.name]).toEqual(["gpu", 5, "interactive"]); // 22.05 names a salloc job "interactive" even with a command (conformance x-env-salloc)
  });

  it.each([
    [["--bell", "x"], { bell: true }],
    [["--no-bell", "x"], { bell: false }],
    [["-K", "x"], { killCommandSignal: 15 }],
    [["--kill-command=SIGINT", "x"], { killCommandSignal: 2 }],
    [["--immediate=3", "x"], { immediateSec: 3 }],
  ] as const)("settings %j", (argv, settings) => {
    expect(run(parseSallocArgs([...argv], {}, CTX)).settings).toMatchObject(settings);
  });

  it("salloc has no --wrap and no -l", () => {
    expect(parseSallocArgs(["--wrap=x"], {}, CTX)).toMatchObject({ ok: false, error: { message: expect.stringContaining("salloc: unrecognized option '--wrap=x'") } });
    expect(parseSallocArgs(["--kill-command=BOGUS"], {}, CTX)).toMatchObject({ ok: false, error: { message: "Invalid --kill-command specification" } });
  });
});

describe("srun --hint with --cpu-bind (oracle 22.05)", () => {
  it("a binding makes --hint ignored, --cpu-bind=verbose does not", () => {
    expect(run(parseSrunArgs(["--hint=bogus", "--cpu-bind=cores", "true"], {}, CTX)).spec.hint).toBeUndefined();
    expect(run(parseSrunArgs(["--hint=nomultithread", "--cpu-bind=cores", "true"], {}, CTX)).spec.hint).toBeUndefined();
    expect(run(parseSrunArgs(["--hint=nomultithread", "--cpu-bind=verbose", "true"], {}, CTX)).spec.hint).toBe("nomultithread");
    const r = parseSrunArgs(["--hint=bogus", "--cpu-bind=verbose", "true"], {}, CTX);
    expect(r.ok ? undefined : errorText("srun", r.error)).toBe('srun: error: unrecognized --hint argument "bogus", see --hint=help\n');
  });
});
