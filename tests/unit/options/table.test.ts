import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { HANDLERS } from "../../../src/compat/options/apply-option.ts";
import { envInputsFor, optionsFor, tableFor, type Command } from "../../../src/compat/options/table.ts";
import { SALLOC_ROWS } from "../../../src/compat/options/table-salloc.ts";
import { SBATCH_ROWS } from "../../../src/compat/options/table-sbatch.ts";
import { SRUN_ROWS } from "../../../src/compat/options/table-srun.ts";
import { SURFACE_DIR } from "./helpers.ts";

const tsv = (name: string): string[][] =>
  readFileSync(`${SURFACE_DIR}/${name}`, "utf8").trimEnd().split("\n").slice(1).map((l) => l.split("\t"));

/** The committed rows without Spur's own column, as TSV cells. */
const cells = (rows: readonly object[]): string[][] =>
  rows.map((r) => Object.entries(r).filter(([k]) => k !== "spur").map(([, v]) => v as string));

describe("option data files match the Slurm fact tables", () => {
  it.each([
    ["sbatch-options.tsv", SBATCH_ROWS],
    ["srun-options.tsv", SRUN_ROWS],
    ["salloc-options.tsv", SALLOC_ROWS],
  ] as const)("%s, row by row and column by column", (file, rows) => {
    expect(cells(rows)).toEqual(tsv(file));
  });

  it("every row carries a Spur support decision", () => {
    for (const r of [...SBATCH_ROWS, ...SRUN_ROWS, ...SALLOC_ROWS]) expect(["ok", "warn", "error", "ignore"]).toContain(r.spur);
  });
});

const COMMANDS: Command[] = ["sbatch", "srun", "salloc"];

describe("per-command tables", () => {
  it.each(COMMANDS)("%s: every implemented option and env-only setting has a handler", (cmd) => {
    for (const d of optionsFor(cmd)) if (d.support === "ok") expect(HANDLERS[d.name], `--${d.name}`).toBeDefined();
    for (const e of envInputsFor(cmd)) if (e.support === "ok") expect(HANDLERS[e.target], e.envVar).toBeDefined();
  });

  it("no handler is orphaned", () => {
    const known = new Set(COMMANDS.flatMap((c) => [...optionsFor(c).map((d) => d.name), ...envInputsFor(c).map((e) => e.target)]));
    for (const name of Object.keys(HANDLERS)) expect(known, name).toContain(name);
  });

  it.each([
    ["sbatch", "wrap", true], ["sbatch", "label", false], ["sbatch", "no-shell", false],
    ["srun", "label", true], ["srun", "pty", true], ["srun", "wrap", false], ["srun", "array", false],
    ["salloc", "no-shell", true], ["salloc", "bell", true], ["salloc", "label", false], ["salloc", "wait", false],
    ["salloc", "time", true], ["srun", "time", true], ["srun", "get-user-env", false],
  ] as const)("%s has --%s: %s", (cmd, name, has) => {
    expect(tableFor(cmd).byName.has(name)).toBe(has);
  });

  it.each([
    ["sbatch", "W", "wait", "none"], ["srun", "W", "wait", "required"], ["sbatch", "k", "no-kill", "optional"],
    ["srun", "K", "kill-on-bad-exit", "optional"], ["salloc", "K", "kill-command", "optional"], ["srun", "l", "label", "none"],
    ["sbatch", "n", "ntasks", "required"], ["srun", "I", "immediate", "optional"], ["sbatch", "G", "gpus", "required"],
  ] as const)("%s -%s is --%s (%s argument)", (cmd, letter, name, hasArg) => {
    const d = tableFor(cmd).byShort.get(letter);
    expect([d?.name, d?.hasArg]).toEqual([name, hasArg]);
  });

  it.each([
    ["sbatch", "SBATCH_TIMELIMIT", "time"], ["sbatch", "SBATCH_ARRAY_INX", "array"], ["sbatch", "SBATCH_EXPORT", "export"],
    ["sbatch", "SLURM_UMASK", "umask"], ["sbatch", "SLURM_EXIT_ERROR", "exit-error"], ["sbatch", "SBATCH_DEBUG", "verbose"],
    ["srun", "SLURM_NTASKS", "ntasks"], ["srun", "SLURM_NPROCS", "ntasks"], ["srun", "SLURM_JOB_ID", "jobid"],
    ["srun", "SLURM_JOB_NODELIST", "alloc-nodelist"], ["srun", "SRUN_EXPORT_ENV", "export"], ["srun", "SLURM_LABELIO", "label"],
    ["salloc", "SALLOC_PARTITION", "partition"], ["salloc", "SALLOC_DEBUG", "verbose"], ["salloc", "SALLOC_BELL", "bell"],
  ] as const)("%s reads %s as %s", (cmd, envVar, target) => {
    expect(envInputsFor(cmd).find((e) => e.envVar === envVar)?.target).toBe(target);
  });

  it("srun: SLURM_NTASKS is read after SLURM_NPROCS (so it overrides it)", () => {
    const vars = envInputsFor("srun").map((e) => e.envVar);
    expect(vars.indexOf("SLURM_NTASKS")).toBeGreaterThan(vars.indexOf("SLURM_NPROCS"));
    expect(vars.indexOf("SRUN_EXPORT_ENV")).toBeGreaterThan(vars.indexOf("SLURM_EXPORT_ENV"));
  });

  it("sbatch does not read allocation variables (SLURM_NTASKS, SLURM_JOB_ID)", () => {
    const vars = envInputsFor("sbatch").map((e) => e.envVar);
    expect(vars).not.toContain("SLURM_NTASKS");
    expect(vars).not.toContain("SLURM_JOB_ID");
  });

  it("unsupported options are marked, never silently dropped", () => {
    const sbatch = tableFor("sbatch").byName;
    expect(sbatch.get("mcs-label")?.support).toBe("warn");
    expect(sbatch.get("uid")?.support).toBe("error");
    expect(sbatch.get("container-id")?.support).toBe("error");
    expect(tableFor("srun").byName.get("het-group")?.support).toBe("ok"); // one component at a time (compat/het-env.ts)
  });
});
