import { describe, expect, it } from "vitest";
import { errorText } from "../../../src/compat/options/messages.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";

function sbatchErrors(argv: string[], env: Record<string, string> = {}): { stderr: string; exit: number } {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ctx = { cmd: "sbatch" as const, argv, env, invoker: { cwd: "/tmp", hostname: "h" }, now: 0 };
  const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  return r.ok ? { stderr: "", exit: 0 } : { stderr: errorText("sbatch", r.error), exit: r.error.exitCode ?? 1 };
}

describe("the client's own checks come before those that stand for the controller's answer (oracle 22.05, differential seed 13339)", () => {
  it.each([[["--array=abc", "--mem-bind=bogus"]], [["--mem-bind=bogus", "--array=abc"]]])("%j names --mem-bind, exit 255", (argv) => {
    expect(sbatchErrors(argv)).toEqual({ stderr: 'sbatch: error: unrecognized --mem-bind argument "bogus"\n', exit: 255 });
  });

  it("alone, the array's refusal is still the controller's", () => {
    expect(sbatchErrors(["--array=abc"])).toEqual({ stderr: "sbatch: error: Batch job submission failed: Invalid job array specification\n", exit: 1 });
  });
});

describe("ignored options keep Slurm 22.05's value checks (differential tester)", () => {
  it.each([
    [["--mem-bind=bogus"], {}, "sbatch: error: unrecognized --mem-bind argument \"bogus\"\n"],
    [["--mem-bind=verbose,bogus"], {}, "sbatch: error: unrecognized --mem-bind argument \"bogus\"\n"],
    [[], { SBATCH_MEM_BIND: "bogus" }, "sbatch: error: unrecognized --mem-bind argument \"bogus\"\n"],
    [["--wait-all-nodes=2"], {}, "sbatch: error: Invalid --wait-all-nodes specification\n"],
    [["--mem-bind=map_mem:0,x"], {}, "sbatch: error: unrecognized --mem-bind argument \"x\"\n"],
  ])("%j %j is refused, exit 255", (argv, env, stderr) => {
    expect(sbatchErrors(argv, env)).toEqual({ stderr, exit: 255 });
  });

  it.each([["abc"], ["-1"], ["1x"]])("--wait-all-nodes=%s is not a number to Slurm (exit 1)", (v) => {
    expect(sbatchErrors([`--wait-all-nodes=${v}`])).toEqual({ stderr: `sbatch: error: Invalid numeric value "${v}" for --wait-all-nodes.\n`, exit: 1 });
  });

  it.each([["--distribution=plane=0"], ["--distribution=plane"]])("%s: the plane size, then the distribution (exit 255)", (arg) => {
    expect(sbatchErrors([arg])).toEqual({ stderr: "sbatch: error: Invalid plane size or size not specified\nsbatch: error: Invalid --distribution specification\n", exit: 255 });
  });

  it.each([["--mem-bind=verbose,local"], ["--mem-bind=map_mem:0,1"], ["--mem-bind=none"], ["--wait-all-nodes=1"], ["--wait-all-nodes=0"], ["--mem-bind=Local"], ["--distribution=plane=2"]])(
    "%s is accepted (and ignored with a warning)", (arg) => {
      expect(sbatchErrors([arg])).toEqual({ stderr: "", exit: 0 });
    },
  );
});

describe("parse_int names an alias by the option it stands for (oracle: differential seed 1188)", () => {
  it("--tasks-per-node=abc is reported as --ntasks-per-node", () => {
    expect(sbatchErrors(["--tasks-per-node=abc"])).toEqual({ stderr: 'sbatch: error: Invalid numeric value "abc" for --ntasks-per-node.\n', exit: 1 });
    expect(sbatchErrors(["-c", "abc"])).toEqual({ stderr: 'sbatch: error: Invalid numeric value "abc" for --cpus-per-task.\n', exit: 1 });
  });
});

describe("--hint with an unknown word (oracle: differential seed 1300)", () => {
  const BAD_HINT = { stderr: 'sbatch: error: unrecognized --hint argument "bogus", see --hint=help\n', exit: 1 };
  it("is refused in Slurm's words, exit 1", () => {
    expect(sbatchErrors(["--hint=bogus"])).toEqual(BAD_HINT);
  });

  it("is judged after every option is read (oracle 22.05, differential seed 12488)", () => {
    // another option's own error comes first, wherever it stands
    expect(sbatchErrors(["--hint=bogus", "--time=abc"])).toEqual({ stderr: "sbatch: error: Invalid --time specification\n", exit: 255 });
    expect(sbatchErrors(["--hint=bogus", "--mem=1", "--mem-per-cpu=1"]).stderr).toMatch(/mutually exclusive/);
    expect(sbatchErrors(["--hint=bogus", "--gpus-per-socket=1"])).toEqual(BAD_HINT);
  });

  it("comes before the checks that stand for the controller's answer (oracle 22.05: --array=abc, -p '')", () => {
    expect(sbatchErrors(["--array=abc", "--hint=bogus"])).toEqual(BAD_HINT);
    expect(sbatchErrors(["-p", "", "--hint=bogus"])).toEqual(BAD_HINT);
  });

  it("is ignored, not checked, with --ntasks-per-core or --threads-per-core (oracle 22.05)", () => {
    expect(sbatchErrors(["--hint=bogus", "--ntasks-per-core=2"])).toEqual({ stderr: "", exit: 0 });
    expect(sbatchErrors(["--threads-per-core=1", "--hint=bogus"])).toEqual({ stderr: "", exit: 0 });
  });
});

describe("srun's ignored options keep 22.05's value checks (oracle: srun -N1 -t1 --OPTION=VALUE true)", () => {
  const srunErrors = (argv: string[]): { stderr: string; exit: number } => {
    const r = parseSrunArgs([...argv, "true"], {}, { invoker: { cwd: "/tmp", hostname: "h" }, now: 0 });
    return r.ok ? { stderr: "", exit: 0 } : { stderr: errorText("srun", r.error), exit: r.error.exitCode ?? 1 };
  };

  it.each([
    ["--msg-timeout=bogus!", 'srun: error: Invalid numeric value "bogus!" for --msg-timeout.\n', 1],
    ["--msg-timeout=0", 'srun: error: Invalid numeric value "0" for --msg-timeout.\n', 1],
    ["--msg-timeout=-1", 'srun: error: Invalid numeric value "-1" for --msg-timeout.\n', 1],
    ["--threads=0", 'srun: error: Invalid numeric value "0" for --threads.\n', 1],
    ["--threads=2x", 'srun: error: Invalid numeric value "2x" for --threads.\n', 1],
    ["--resv-ports=x", 'srun: error: Invalid numeric value "x" for --resv-port.\n', 1],
    ["--resv-ports=-1", 'srun: error: Invalid numeric value "-1" for --resv-port.\n', 1],
    ["--propagate=bogus!", "srun: error: Bad rlimit name: bogus!\nsrun: error: --propagate=bogus! is not valid.\n", 1],
    ["--propagate=nproc", "srun: error: Bad rlimit name: nproc\nsrun: error: --propagate=nproc is not valid.\n", 1],
    ["--propagate=NONE,CPU", "srun: error: Bad rlimit name: NONE\nsrun: error: --propagate=NONE,CPU is not valid.\n", 1],
    ["--propagate=ALL,CPU", "srun: error: Bad rlimit name: ALL\nsrun: error: --propagate=ALL,CPU is not valid.\n", 1],
    ["--accel-bind=q", "srun: error: Invalid --accel-bind specification\n", 255],
    ["--accel-bind=", "srun: error: Invalid --accel-bind specification\n", 255],
  ])("%s is refused", (arg, stderr, exit) => {
    expect(srunErrors([arg])).toEqual({ stderr, exit });
  });

  it.each([["--msg-timeout=5"], ["--threads=1"], ["--resv-ports=0"], ["--resv-ports"], ["--propagate=ALL"], ["--propagate=NONE"], ["--propagate=RLIMIT_CPU"], ["--propagate=CPU,,AS"], ["--propagate="], ["--propagate"], ["--accel-bind=v"], ["--accel-bind=bogus!"]])(
    "%s passes (and is ignored with a warning)", (arg) => {
      expect(srunErrors([arg])).toEqual({ stderr: "", exit: 0 });
    },
  );

  it("sbatch --propagate is checked the same way (oracle: sbatch --hold --propagate=bogus, exit 1)", () => {
    expect(sbatchErrors(["--propagate=bogus"])).toEqual({ stderr: "sbatch: error: Bad rlimit name: bogus\nsbatch: error: --propagate=bogus is not valid.\n", exit: 1 });
  });
});
