/**
 * Which bad value sbatch names when several sources hold one (oracle 22.05, 2026-12-05):
 * the command line's first, then the script's #SBATCH lines, then SBATCH_* variables;
 * salloc and srun name their variable before their command line.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { refusedBeforeEarly, sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { buildSpec } from "../../../src/compat/options/build-spec.ts";
import { envAssignments, fromParsed } from "../../../src/compat/options/env-input.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { errorText } from "../../../src/compat/options/messages.ts";

const INVOKER = { cwd: "/home/alice", hostname: "login1" };

function sbatchError(argv: string[], directives: string[], env: Record<string, string> = {}): string {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return errorText("sbatch", parsed.error);
  const text = `#!/bin/bash\n${directives.map((d) => `#SBATCH ${d}\n`).join("")}true\n`;
  const r = sbatchRequest({ cmd: "sbatch", argv, env, invoker: INVOKER, now: 0 }, parsed.value.options, { text, from: "file", args: [] });
  return r.ok ? "" : errorText("sbatch", r.error);
}

describe("the order sbatch reports bad values in", () => {
  it.each([
    [["--hold", "--nodes=1-"], ["--wait-all-nodes=2"], {}, "sbatch: error: Maximum node count -1 is less than minimum node count 1\n"],
    [["--hold", "--nodes=1-"], ["--time=bogus"], {}, "sbatch: error: Maximum node count -1 is less than minimum node count 1\n"],
    [["--hold", "--mem=bogus"], ["--time=bogus"], {}, "sbatch: error: Invalid --mem specification\n"],
    [["--hold", "--ntasks=0"], ["--time=bogus"], {}, "sbatch: error: Invalid numeric value \"0\" for --ntasks.\n"],
    [["--hold", "--time=bogus"], ["--wait-all-nodes=2"], {}, "sbatch: error: Invalid --time specification\n"],
    [["--hold"], ["--wait-all-nodes=2"], { SBATCH_TIMELIMIT: "bogus" }, "sbatch: error: Invalid --wait-all-nodes specification\n"],
    [["--hold", "--mem=bogus"], [], { SBATCH_TIMELIMIT: "bogus" }, "sbatch: error: Invalid --mem specification\n"],
    [["--hold", "--mem=bogus", "--time=bogus"], [], {}, "sbatch: error: Invalid --mem specification\n"],
    [["--hold"], ["--time=bogus", "--wait-all-nodes=2"], {}, "sbatch: error: Invalid --time specification\n"],
  ] as const)("sbatch %j with #SBATCH %j and %j", (argv, directives, env, stderr) => {
    expect(sbatchError([...argv], [...directives], env)).toBe(stderr);
  });

  it("salloc names its variable's bad value before its command line's", () => {
    const argv = ["--mem=bogus"];
    const parsed = parseArgs("salloc", argv);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const assignments = [...envAssignments("salloc", { SALLOC_TIMELIMIT: "bogus" }), ...fromParsed(parsed.value.options, "cli")];
    const r = buildSpec({ cmd: "salloc", argv, env: {}, invoker: INVOKER, now: 0 }, assignments, { text: wrapScript("true"), from: "wrap", args: [] });
    expect(r.ok ? "" : errorText("salloc", r.error)).toBe("salloc: error: Invalid --time specification\n");
  });
});

describe("--gres naming nothing", () => {
  it.each([["--gres="], ["--gres=,"]])("%s fails as the controller's TRES refusal (oracle 22.05), not sbatch's own gres error", (option) => {
    expect(sbatchError([option], [])).toBe("sbatch: error: Batch job submission failed: Invalid Trackable RESource (TRES) specification\n");
    expect(sbatchError(["--gres=bogus:x:y"], [])).toBe("sbatch: error: Invalid generic resource (gres) specification\n");
  });
});

describe("--help, --usage and --version act where sbatch reaches them (oracle 22.05, differential seed 10302)", () => {
  function early(argv: string[]): string {
    const parsed = parseArgs("sbatch", argv);
    if (!parsed.ok) return errorText("sbatch", parsed.error);
    const r = refusedBeforeEarly({ cmd: "sbatch", argv, env: {}, invoker: INVOKER, now: 0 }, parsed.value.options);
    return r.ok ? "acts" : errorText("sbatch", r.error);
  }

  it.each([
    [["--ntasks-per-socket=2x", "--usage"], "sbatch: error: Invalid numeric value \"2x\" for --ntasks-per-socket.\n"],
    [["-n", "2x", "--help"], "sbatch: error: Invalid numeric value \"2x\" for --ntasks.\n"],
    [["-n", "2x", "--version"], "sbatch: error: Invalid numeric value \"2x\" for --ntasks.\n"],
    [["--mem=abc", "--usage"], "sbatch: error: Invalid --mem specification\n"],
    [["--signal=FOO", "--usage"], "sbatch: error: Invalid --signal specification\n"],
  ])("%j: the bad value before it is refused", (argv, text) => {
    expect(early(argv)).toBe(text);
  });

  it.each([
    [["--usage", "--ntasks-per-socket=2x"]],
    // what only the controller (or a later check) judges does not stop it
    [["--partition=nope", "--usage"]], [["--gpus=abc", "--usage"]], [["--hint=bogus", "--usage"]], [["--array=abc", "--usage"]],
    [["--dependency=bogus", "--usage"]], [["--usage"]],
  ])("%j: it acts", (argv) => {
    expect(early(argv)).toBe("acts");
  });
});
