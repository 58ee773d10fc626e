import { describe, expect, it } from "vitest";
import { errorText } from "../../../src/compat/options/messages.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";

/** stderr and exit status of sbatch's request building (empty stderr: accepted). */
function sbatchErrors(argv: string[]): { stderr: string; exit: number } {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: { cwd: "/tmp", hostname: "h" }, now: 0 };
  const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  return r.ok ? { stderr: "", exit: 0 } : { stderr: errorText("sbatch", r.error), exit: r.error.exitCode ?? 1 };
}

const GRES = "sbatch: error: Invalid generic resource (gres) specification\n";

describe("per-GPU options need a GPU or task count (Slurm 22.05, oracle seeds 22, 24, 44, 82, 180, 187, 262)", () => {
  it.each([
    [["-H", "--gpus-per-task=mi300x:1"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    [["--test-only", "--gpus-per-task=1"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    [["--mem-per-gpu=100"], "sbatch: error: Requested mem_per_tres=gres:gpu:100 but did not request any GPU.\n"],
    [["--mem-per-gpu=1G"], "sbatch: error: Requested mem_per_tres=gres:gpu:1024 but did not request any GPU.\n"],
    [["--mem-per-gpu=1G", "--gres=gpu:0"], "sbatch: error: Requested mem_per_tres=gres:gpu:1024 but did not request any GPU.\n"],
    [["--mem-per-gpu=10", "--gpus=0"], "sbatch: error: Requested mem_per_tres=gres:gpu:10 but did not request any GPU.\n"],
    [["--gpus-per-task=1", "--gres=gpu:1"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    [["--gpus-per-task=1", "-N", "1-2"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    // a type alone is a GPU of that type; --gpus counts only for the per-task type it names (oracle 22.05, differential seed 9940)
    [["--test-only", "--gpus-per-task=abc"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    [["--gpus-per-task=abc", "--gpus=1"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    [["--gpus-per-task=2", "--gpus=mi300x:2"], "sbatch: error: Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.\n"],
    // --gpus over --gpus-per-task is the task count (oracle 22.05)
    [["--gpus-per-task=2", "--gpus=3"], "sbatch: error: Failed to validate job spec, --gpus not multiple of --gpus-per-task\n"],
    [["--gpus-per-task=2", "--gpus=1"], "sbatch: error: Failed to ensure --gpus >= --gres=gpu/--gpus-per-node >= --gpus-per-socket\n"],
    [["--gpus-per-socket=3", "--gpus-per-task=2", "-n2", "--sockets-per-node=1"], "sbatch: error: Failed to validate job spec, --gpus-per-socket not multiple of --gpus-per-task.\n"],
    [["--gpus-per-socket=1", "--gpus-per-task=2", "-n2", "--sockets-per-node=1"], "sbatch: error: Failed to validate job spec, --gpus-per-socket not multiple of --gpus-per-task.\n"],
    [["--gpus-per-task=1", "--gpus=2", "-N1"], "sbatch: error: Failed to validate job spec. Based on --gpus and --gpus-per-task number of requested tasks differ from -n/--ntasks.\n"],
    [["--gpus-per-task=1", "--gpus=4", "--ntasks-per-node=2"], "sbatch: error: Failed to validate job spec. Based on --gpus and --gpus-per-task number of requested tasks differ from -n/--ntasks.\n"],
    [["-H", "--ntasks-per-gpu=1"], "sbatch: error: gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a node/ntask specification\n"],
  ])("%j is refused with Slurm's reason, then the GRES error, exit 1", (argv, reason) => {
    expect(sbatchErrors(argv)).toEqual({ stderr: reason + GRES, exit: 1 });
  });

  it.each([
    [["--gpus-per-task=1", "-n", "2"]],
    [["--gpus-per-task=1", "-G", "2"]],
    [["--gpus-per-task=mi300x", "--gpus=mi300x:2"]],
    // -B gives the task count (oracle 22.05: NumTasks=4 for -B 1:4; differential seed 10699)
    [["--gpus-per-task=mi300x:1", "--extra-node-info=1:4"]], [["--gpus-per-task=1", "-B", "1"]],
    [["--gpus-per-task=1", "--gpus=2", "-n2"]], [["--gpus-per-task=1", "--gpus=2", "-N2"]], [["--gpus-per-task=0", "--gpus=2"]],
    // a type alone asks for a GPU: --mem-per-gpu goes on to the controller (which finds no such type)
    [["--gpus-per-node=abc", "--mem-per-gpu=10"]],
    // the task count follows from -N or --ntasks-per-node (oracle 22.05, real-scripts corpus)
    [["--gpus-per-task=1", "-N", "2"]],
    [["--gpus-per-task=1", "--ntasks-per-node=2"]],
    [["--gpus-per-task=1", "-N", "2", "--ntasks-per-node=4"]],
    [["--mem-per-gpu=100", "--gres=gpu:1"]],
    [["--mem-per-gpu=100", "--gpus-per-node=mi300x:1"]],
    [["--mem-per-gpu=0", "--cpus-per-gpu=4"]],
    [["--cpus-per-gpu=4"]],
    [["--ntasks-per-gpu=1", "-n", "4"]],
    [["--ntasks-per-gpu=1", "-N", "1"]],
    [["--ntasks-per-gpu=2", "-G", "2"]],
    // oracle: a zero GPU count is accepted and asks for none
    [["--gpus=0"]], [["--gpus=mi300x:0"]], [["--gpus-per-node=0"]], [["--gpus-per-task=0", "-n", "1"]],
    // and so does an empty one
    [["--gpus="]], [["--gpus-per-node="]], [["--gpus-per-task=", "-n", "1"]],
  ])("%j is accepted", (argv) => {
    expect(sbatchErrors(argv)).toEqual({ stderr: "", exit: 0 });
  });
});

describe("GPU requests with and without a type (oracle, differential seed 234)", () => {
  it.each([
    [["--gpus-per-node=mi300x:1", "--gpus=2"]],
    [["--gres=gpu:mi300x:1", "--gpus=1"]],
    [["--gres=gpu:1", "--gpus=mi300x:1"]],
    [["--gpus-per-task=mi300x:1", "-n1", "--gpus=1"]],
    // a type alone is typed
    [["--gpus-per-task=abc", "-n1", "--gpus=1"]],
    [["--gpus-per-task=mi300x", "-n1", "--gpus=2"]],
    [["--gpus-per-node=abc", "--gpus=1"]],
  ])("%j is refused", (argv) => {
    expect(sbatchErrors(argv)).toEqual({ stderr: "sbatch: error: Invalid GRES specification (with and without type identification)\n", exit: 1 });
  });

  it("the same type everywhere is accepted", () => {
    expect(sbatchErrors(["--gpus=mi300x:1", "--gpus-per-node=mi300x:1"])).toEqual({ stderr: "", exit: 0 });
  });
});

describe("--gres with a gres prefix (oracle 22.05)", () => {
  it.each([["--gres=gres/gpu:1"], ["--gres=gres/gpu"], ["--gres=gres/gpu:mi300x:2"], ["--gres=gpu:1,gres/gpu:2"]])("%s: the TRES spelling gres/ is refused, exit 1", (opt) => {
    expect(sbatchErrors(["-H", opt])).toEqual({ stderr: GRES, exit: 1 });
  });
  it.each([["--gres=gres:gpu:1"], ["--gres=gres:gpu"], ["--gres=gres:gpu:mi300x:1"], ["--gres=gpu:1,gres:gpu:2"]])("%s: gres: is dropped and the rest taken", (opt) => {
    expect(sbatchErrors(["-H", opt])).toEqual({ stderr: "", exit: 0 });
  });
});

describe("--ntasks-per-tres is --ntasks-per-gpu (oracle 22.05, differential seed 10036)", () => {
  it.each([
    [["-H", "--ntasks-per-tres=4"], "sbatch: error: gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a node/ntask specification\n" + GRES],
    [["--test-only", "--ntasks-per-tres=2", "-n", "3"], "sbatch: error: Failed to validate job spec, -n/--ntasks has to be a multiple of --ntasks-per-gpu.\n" + GRES],
  ])("%j", (argv, stderr) => {
    expect(sbatchErrors(argv)).toEqual({ stderr, exit: 1 });
  });
  it("is recorded as --ntasks-per-gpu's count", () => {
    expect(sbatchErrors(["-H", "-p", "gpu", "--gpus=2", "--ntasks-per-tres=2"])).toEqual({ stderr: "", exit: 0 });
  });
  it("-n not a multiple of it is refused without GPUs, accepted with them (oracle 22.05)", () => {
    const multiple = "sbatch: error: Failed to validate job spec, -n/--ntasks has to be a multiple of --ntasks-per-gpu.\n" + GRES;
    expect(sbatchErrors(["-H", "--ntasks-per-gpu=2", "-n", "3"])).toEqual({ stderr: multiple, exit: 1 });
    expect(sbatchErrors(["-H", "--ntasks-per-gpu=2", "-N", "1", "-n", "3"])).toEqual({ stderr: multiple, exit: 1 });
    expect(sbatchErrors(["-H", "--ntasks-per-gpu=2", "-n", "4"])).toEqual({ stderr: "", exit: 0 });
    expect(sbatchErrors(["-H", "-p", "gpu", "--gpus=2", "--ntasks-per-gpu=2", "-n", "3"])).toEqual({ stderr: "", exit: 0 });
  });
});

describe("--ntasks-per-gpu beside --gpus-per-task or --ntasks-per-node (oracle 22.05, differential seed 10403)", () => {
  const fatal = (opt: string): string => `sbatch: fatal: ${opt} is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU\n`;
  it.each([
    [["--ntasks-per-node=4", "--ntasks-per-gpu=2"], fatal("--ntasks-per-node")],
    [["--ntasks-per-node=4", "--ntasks-per-tres=2147483647"], fatal("--ntasks-per-node")],
    [["--ntasks-per-gpu=2", "--ntasks-per-node=4", "--gpus=2"], fatal("--ntasks-per-node")],
    [["--ntasks-per-gpu=2", "--ntasks-per-node=4", "--gpus-per-task=1"], fatal("--gpus-per-task")],
    [["--ntasks-per-gpu=2", "--ntasks-per-node=4", "--hint=bogus"], fatal("--ntasks-per-node")],
  ])("%j ends with Slurm's fatal error, exit 1", (argv, text) => {
    expect(sbatchErrors(argv)).toEqual({ stderr: text, exit: 1 });
  });
  it("a bad value sbatch reads first is still named first", () => {
    expect(sbatchErrors(["--ntasks-per-gpu=2", "--ntasks-per-node=4", "--mem=abc"]).stderr).toBe("sbatch: error: Invalid --mem specification\n");
  });
});

describe("--ntasks-per-socket from --gpus-per-socket over --gpus-per-task (oracle 22.05, differential seed 10699)", () => {
  function perSocket(argv: string[]): number | undefined {
    const parsed = parseArgs("sbatch", argv);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: { cwd: "/tmp", hostname: "h" }, now: 0 };
    const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
    if (!r.ok) throw new Error(r.error.message);
    return r.value.spec.ntasksPerSocket;
  }
  it.each([
    [["--gpus-per-socket=2", "--gpus-per-task=1", "-n2", "--sockets-per-node=1"], 2],
    [["--gpus-per-socket=4", "--gpus-per-task=2", "-n2", "--sockets-per-node=1"], 2],
    [["--gpus-per-socket=1", "--gpus-per-task=1", "-B", "1:4"], 1],
    [["--gpus-per-socket=1", "--gpus-per-task=1", "-n2", "--sockets-per-node=1", "--ntasks-per-socket=3"], 3],
  ])("%j: %i", (argv, n) => {
    expect(perSocket(argv)).toBe(n);
  });
  it("is not set without --gpus-per-task", () => {
    expect(perSocket(["--gpus-per-socket=1", "--sockets-per-node=1"]) ?? 0).toBe(0);
  });
});
