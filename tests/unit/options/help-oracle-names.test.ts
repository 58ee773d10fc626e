/**
 * --help and --usage against the option NAMES Slurm 22.05's own clients list
 * (tests/fixtures/help/slurm-22.05-option-names.tsv, recorded by record.sh on the oracle;
 * names only, none of Slurm's wording): every option the oracle's --help names is in ours
 * unless Spur does not take it at all (listed below with the reason), --usage names the same
 * everyday selection in one short screen, nothing our texts name is refused by our parser,
 * and --help/--usage exit 0.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { helpText, usageText } from "../../../src/compat/options/help.ts";
import { unorderedNames } from "../../../src/compat/options/usage-selection.ts";
import { tableFor, type Command } from "../../../src/compat/options/table.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchMain } from "../../../src/cli/sbatch.ts";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { scancelMain } from "../../../src/cli/scancel.ts";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { sacctMain } from "../../../src/cli/sacct.ts";
import { parseSallocArgs, parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { fakePort } from "./helpers.ts";

type Kind = "help" | "usage";
const rows = readFileSync(join(__dirname, "../../fixtures/help/slurm-22.05-option-names.tsv"), "utf8")
  .split("\n").filter((l) => l !== "" && !l.startsWith("#")).map((l) => l.split("\t") as [string, Kind, string]);
const oracle = (cmd: string, kind: Kind): string[] => rows.filter(([c, k]) => c === cmd && k === kind).map((r) => r[2]);

/** Long names a text lists ("--name", "--name=", "[--name"). */
const longNames = (text: string): Set<string> => new Set([...text.matchAll(/(?:^|[\s[,])--([a-z][a-z0-9_-]*)/g)].map((m) => m[1] ?? ""));

/** Options the oracle lists that Spur does not take at all, and why. */
const NOT_TAKEN: Record<string, Record<string, string>> = {
  sbatch: { power: "removed from Slurm after 22.05 (Spur follows the newer option table)" },
  srun: { power: "removed from Slurm after 22.05", slurmd_debug: "removed after 22.05 (--slurmd-debug)", "ctrl-comm-ifhn": "removed after 22.05", "mpi-combine": "removed after 22.05" },
  salloc: { power: "removed after 22.05", "get-user-env": "salloc no longer takes it after 22.05", gid: "salloc no longer takes it after 22.05", uid: "salloc no longer takes it after 22.05" },
  squeue: { yaml: "Spur prints no YAML" },
  sinfo: { yaml: "Spur prints no YAML" },
  sacct: { "batch-script": "Spur keeps no copy of the batch script in accounting", "env-vars": "Spur keeps no copy of the job's environment in accounting" },
  scontrol: { federation: "no federations in Spur", local: "no federations in Spur", sibling: "no federations in Spur", uid: "scontrol no longer takes it after 22.05" },
};

const JOB_COMMANDS: Command[] = ["sbatch", "srun", "salloc"];

describe("sbatch/srun/salloc --help against the oracle's option names", () => {
  it.each(JOB_COMMANDS)("%s --help names every option the oracle's does", (cmd) => {
    const ours = longNames(helpText(cmd));
    const missing = oracle(cmd, "help").filter((n) => !ours.has(n) && NOT_TAKEN[cmd]?.[n] === undefined);
    expect(missing).toEqual([]);
  });

  it.each(JOB_COMMANDS)("%s: what the oracle lists and Spur does not take is really refused", (cmd) => {
    for (const name of Object.keys(NOT_TAKEN[cmd] ?? {})) {
      const r = parseArgs(cmd, [`--${name}=x`]);
      expect(r.ok, name).toBe(false);
    }
  });

  it.each(JOB_COMMANDS)("%s: every long option --help names is one the parser takes", (cmd) => {
    const { byName } = tableFor(cmd);
    for (const name of longNames(helpText(cmd))) {
      const d = byName.get(name);
      expect(d, name).toBeDefined();
      const arg = d?.hasArg === "required" ? ["x"] : [];
      const r = parseArgs(cmd, [`--${name}`, ...arg]);
      if (!r.ok) expect(r.error.message, name).not.toMatch(/unrecognized option|ambiguous/);
    }
  });
});

describe("sbatch/srun/salloc --usage: Slurm's one-screen selection", () => {
  /** The oracle's usage names, short letters ("-N") mapped to their long names through our table. */
  function oracleUsage(cmd: Command): Set<string> {
    const { byShort } = tableFor(cmd);
    return new Set(oracle(cmd, "usage").flatMap((n) => {
      if (!n.startsWith("-")) return [n];
      const d = byShort.get(n.slice(1));
      return d === undefined ? [] : [d.name];
    }));
  }
  /** Names our usage shows: "--name" tokens and "-X" letters. */
  function ourUsage(cmd: Command): Set<string> {
    const text = usageText(cmd);
    const { byShort } = tableFor(cmd);
    const shorts = [...text.matchAll(/\[-([A-Za-z])[ \]]/g)].map((m) => byShort.get(m[1] ?? "")?.name ?? `?${m[1]}`);
    return new Set([...longNames(text), ...shorts]);
  }

  it.each(JOB_COMMANDS)("%s --usage names the oracle's selection, no more, no less", (cmd) => {
    const theirs = oracleUsage(cmd);
    const ours = ourUsage(cmd);
    expect([...theirs].filter((n) => !ours.has(n) && NOT_TAKEN[cmd]?.[n] === undefined)).toEqual([]);
    expect([...ours].filter((n) => !theirs.has(n))).toEqual([]);
    expect(unorderedNames(cmd)).toEqual([]);
  });

  it.each(JOB_COMMANDS)("%s --usage fits one screen of 80 columns and ends with the operands", (cmd) => {
    const lines = usageText(cmd).trimEnd().split("\n");
    expect(lines.length).toBeLessThanOrEqual(30);
    for (const l of lines) expect(l.length, l).toBeLessThanOrEqual(80);
    expect(lines[0]).toMatch(new RegExp(`^Usage: ${cmd} \\[-N minnodes\\[-maxnodes\\]\\] \\[-n number\\]`));
    expect(usageText(cmd)).not.toContain("[--help]");
  });

  it("placeholders come from the syntax column, tidied", () => {
    const text = usageText("srun");
    for (const token of ["[--mem=size[units]]", "[-G [type:]number]", "[--gpu-bind=type]", "[-m dist]", "[--acctg-freq=datatype=interval]", "[-L license[@db][:count]]"]) {
      expect(text).toContain(token);
    }
  });
});

describe("exit status 0 for --help and --usage, as Slurm's", () => {
  it.each(["--help", "--usage"])("sbatch %s", async (flag) => {
    const r = await sbatchMain([flag], fakePort().port);
    expect([r.exitCode, r.stderr]).toEqual([0, ""]);
    expect(r.stdout).toBe(flag === "--help" ? helpText("sbatch") : usageText("sbatch"));
  });
  it.each(["--help", "--usage"])("srun and salloc %s", (flag) => {
    const ctx = { invoker: { cwd: "/tmp", hostname: "vm", umask: 0o22 }, now: 0 };
    for (const r of [parseSrunArgs([flag], {}, ctx), parseSallocArgs([flag], {}, ctx)]) {
      expect(r.ok && r.value.kind === "exit" && r.value.exitCode === 0).toBe(true);
    }
  });
});

describe("squeue/sinfo/scancel/scontrol/sacct --help against the oracle's option names", () => {
  const mains = { squeue: squeueMain, sinfo: sinfoMain, scancel: scancelMain, scontrol: scontrolMain, sacct: sacctMain } as const;
  it.each(Object.keys(mains) as (keyof typeof mains)[])("%s", async (cmd) => {
    const help = await mains[cmd](["--help"], fakePort().port);
    const usage = await mains[cmd](["--usage"], fakePort().port);
    expect([help.exitCode, usage.exitCode]).toEqual([0, 0]);
    const ours = [...longNames(help.stdout)];
    // getopt takes an unambiguous prefix: squeue's "--job" is our "--jobs"
    const missing = oracle(cmd, "help").filter((n) => !ours.some((o) => o.startsWith(n)) && NOT_TAKEN[cmd]?.[n] === undefined);
    expect(missing).toEqual([]);
  });

  it.each(Object.keys(mains) as (keyof typeof mains)[])("%s: what the oracle lists and Spur does not take is really refused", async (cmd) => {
    for (const name of Object.keys(NOT_TAKEN[cmd] ?? {})) {
      const r = await mains[cmd]([`--${name}`], fakePort().port);
      expect([name, r.exitCode !== 0, r.stderr]).toEqual([name, true, expect.stringMatching(/unrecognized option/)]);
    }
  });
});
