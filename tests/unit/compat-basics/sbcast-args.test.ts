/**
 * sbcast's command line (compat/sbcast-args), in the order 22.05 checks it
 * (oracle): bad options, then two names, then a job id, then the destination.
 */
import { describe, expect, it } from "vitest";
import { parseSbcastArgs } from "../../../src/compat/sbcast-args.ts";

const parse = (argv: string[], env: Record<string, string> = { SLURM_JOB_ID: "7" }) => parseSbcastArgs(argv, env, "/w", "slurm 26.05.0");

describe("parseSbcastArgs", () => {
  it("options, the job from SLURM_JOB_ID, a relative destination in the working directory", () => {
    const r = parse(["-f", "-p", "-C", "-s", "1k", "-t", "5", "src", "dst"]);
    expect(r).toEqual({
      kind: "run", warnings: [],
      params: { source: "src", dest: "/w/dst", jobText: "7", jobId: 7, stepId: undefined, force: true, preserve: true, blockBytes: 1024, timeoutSec: 5, fanout: 0, verbose: 0 },
    });
  });

  it("-j JOB.STEP wins over the environment; a word that is no job id is job 0 (oracle: 'Slurm job 0 lookup error')", () => {
    const r = parse(["--jobid=12.3", "a", "/abs"]);
    expect(r.kind === "run" && [r.params.jobText, r.params.jobId, r.params.stepId, r.params.dest]).toEqual(["12.3", 12, 3, "/abs"]);
    const bad = parse(["-j", "abc", "a", "b"]);
    expect(bad.kind === "run" && [bad.params.jobText, bad.params.jobId]).toEqual(["0", 0]);
  });

  it("SBCAST_FORCE and SBCAST_PRESERVE turn the flags on", () => {
    const r = parse(["a", "b"], { SLURM_JOB_ID: "1", SBCAST_FORCE: "", SBCAST_PRESERVE: "1" });
    expect(r.kind === "run" && [r.params.force, r.params.preserve]).toEqual([true, true]);
  });

  it("names are counted before the job id is looked for", () => {
    const need = 'Try "sbcast --help" for more information\n';
    expect(parse(["a"], {})).toEqual({ kind: "exit", stdout: "", stderr: `Need two file names, have 1 names\n${need}`, exitCode: 1 });
    expect(parse(["-j", "1", "a", "b", "c"])).toEqual({ kind: "exit", stdout: "", stderr: `Need two file names, have 3 names\n${need}`, exitCode: 1 });
    expect(parse(["a", "b"], {})).toEqual({
      kind: "exit", stdout: "", stderr: "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use the --jobid option.\n", exitCode: 1,
    });
  });

  it("bad options, a directory as destination, an unknown compression, a bad size", () => {
    expect(parse(["--bogus", "a", "b"])).toEqual({ kind: "exit", stdout: "", stderr: "sbcast: unrecognized option '--bogus'\nTry \"sbcast --help\" for more information\n", exitCode: 1 });
    expect(parse(["a", "dir/"])).toEqual({ kind: "exit", stdout: "", stderr: "sbcast: error: Target filename cannot be a directory.\n", exitCode: 1 });
    const r = parse(["--compress=bogus", "-s", "9x", "a", "b"]);
    expect(r.kind === "run" && r.warnings).toEqual(["sbcast: error: Compression type 'bogus' unknown, disabling compression support.\n", "size specification is invalid, ignored\n"]);
  });

  it("--usage and -V print and exit 0", () => {
    expect(parse(["--usage"])).toEqual({ kind: "exit", stdout: "Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n", stderr: "", exitCode: 0 });
    expect(parse(["-V"])).toEqual({ kind: "exit", stdout: "slurm 26.05.0\n", stderr: "", exitCode: 0 });
  });
});
