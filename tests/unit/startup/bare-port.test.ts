/**
 * The bare CLI port (src/roles/cli/bare-port.ts): `--version`, `-V`, `--help` and `--usage`
 * alone run on it first, without reading spur.conf, passwd, group or the host name. These
 * tests hold every user command to that: if a command came to touch the host before it
 * prints its version or help, runCli would silently fall back to the real port (same output,
 * slower start-up), so the fall-back is made visible here instead.
 */
import { describe, expect, it } from "vitest";
import { barePort, NeedsHost, printsFixedText } from "../../../src/roles/cli/bare-port.ts";
import type { CliPort, CliResult } from "../../../src/net/ctl-port.ts";

type CliFn = (argv: string[], port: CliPort) => Promise<CliResult>;

/** The user commands main.ts runs through roles/cli/run.ts, and their entry functions. */
const COMMANDS: Record<string, () => Promise<CliFn>> = {
  sbatch: async () => (await import("../../../src/cli/sbatch.ts")).sbatchMain,
  squeue: async () => (await import("../../../src/cli/squeue.ts")).squeueMain,
  sinfo: async () => (await import("../../../src/cli/sinfo.ts")).sinfoMain,
  sacct: async () => (await import("../../../src/cli/sacct.ts")).sacctMain,
  scontrol: async () => (await import("../../../src/cli/scontrol.ts")).scontrolMain,
  scancel: async () => (await import("../../../src/cli/scancel.ts")).scancelMain,
  sprio: async () => (await import("../../../src/cli/sprio.ts")).sprioMain,
  sdiag: async () => (await import("../../../src/cli/sdiag.ts")).sdiagMain,
  sshare: async () => (await import("../../../src/cli/sshare.ts")).sshareMain,
};

describe("which command lines run on the bare port", () => {
  it("one fixed-text argument alone", () => {
    for (const a of ["--version", "-V", "--help", "--usage"]) expect(printsFixedText([a]), a).toBe(true);
  });

  it("never -h (squeue/sinfo --noheader), never with other arguments", () => {
    expect(printsFixedText(["-h"])).toBe(false);
    expect(printsFixedText([])).toBe(false);
    expect(printsFixedText(["--version", "-p", "debug"])).toBe(false);
    expect(printsFixedText(["-p", "--version"])).toBe(false);
  });
});

describe("the bare port refuses what needs the host", () => {
  it("controller calls, user names, stdin, files and output throw NeedsHost", async () => {
    const port = barePort();
    expect(() => port.invoker.user).toThrow(NeedsHost);
    expect(() => port.invoker.hostname).toThrow(NeedsHost);
    expect(() => port.ctl.listJobs({} as never)).toThrow(NeedsHost);
    expect(() => port.readStdin()).toThrow(NeedsHost);
    expect(() => port.write("stdout", "x")).toThrow(NeedsHost);
    expect(typeof port.invoker.uid).toBe("number");
  });
});

describe("every user command prints its version on the bare port (no fall-back)", () => {
  for (const [name, load] of Object.entries(COMMANDS)) {
    for (const arg of ["--version", "-V"]) {
      it(`${name} ${arg}`, async () => {
        const result = await (await load())([arg], barePort());
        expect(result.exitCode).toBe(0);
        expect(result.stdout).toMatch(/^slurm \d+\.\d+\.\d+\n$/);
      });
    }
  }
});
