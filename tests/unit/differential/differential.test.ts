/**
 * @module tests/unit/differential/differential.test
 * The pure parts of the differential tester (tests/differential): one seed always makes
 * the same case; what it renders is what getopt reads back (Spur's own parser, which the
 * option table drives); the comparison parses scontrol/squeue/sacct lines field by field;
 * known differences match by field and option; shrinking keeps only what still fails.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { NEVER, generateCase, uniquePrefix, type Case, type SubmitCase } from "../../differential/generator.ts";
import { cellIds, idCells, isSlurmdbdStub, keyValues, pipeTable } from "../../differential/compare.ts";
import { knownFor } from "../../differential/known.ts";
import { modeInEffect, render, scriptOf, spell } from "../../differential/render.ts";
import { shrink, simplerVariants } from "../../differential/shrink.ts";

const submits = (n: number): SubmitCase[] =>
  Array.from({ length: n }, (_, i) => generateCase(i + 1)).filter((c): c is SubmitCase => c.kind === "sbatch");

describe("differential generator", () => {
  it("makes the same case from the same seed, and different cases from different seeds", () => {
    expect(generateCase(42)).toEqual(generateCase(42));
    const labels = new Set(Array.from({ length: 50 }, (_, i) => JSON.stringify(generateCase(i))));
    expect(labels.size).toBeGreaterThan(45);
  });

  it("never generates the options it must not (blocking, or touching what is not ours)", () => {
    for (const c of submits(400)) for (const o of c.options) if (!["hold", "test-only", "parsable"].includes(o.name)) expect(NEVER[o.name]).toBeUndefined();
  });

  it("spells every option so that getopt reads back the same option and value", () => {
    for (const c of submits(300)) {
      for (const o of c.options) {
        const parsed = parseArgs("sbatch", [...spell(o), "job.sh"]);
        expect(parsed.ok, `${o.name} ${spell(o).join(" ")}`).toBe(true);
        if (!parsed.ok) continue;
        expect(parsed.value.options.map((p) => p.def.name)).toEqual([o.name]);
        expect(parsed.value.options[0]?.value).toBe(o.value);
        expect(parsed.value.operands).toEqual(["job.sh"]);
      }
    }
  });

  it("abbreviates to a prefix that names one option", () => {
    expect(uniquePrefix("partition")).toBe("part"); // "par" is also --parsable
    expect(uniquePrefix("hold")).toBe("ho");
  });

  it("puts directives in the script's leading block unless they follow the first command", () => {
    const c: SubmitCase = {
      kind: "sbatch", seed: 0, mode: "hold", wrap: false, layout: ["comment", "D", "command", "D"],
      options: [
        { name: "time", value: "10", form: "valid", placement: "directive", spelling: "long=" },
        { name: "comment", value: "a b", form: "edge", placement: "directive", spelling: "long-space", trailingComment: true },
        { name: "hold", form: "valid", placement: "cli", spelling: "short" },
      ],
    };
    expect(scriptOf(c)).toBe('#!/bin/bash\n# a comment line\n#SBATCH --time=10\ntrue\n#SBATCH --comment "a b" # why\nexit 0\n');
    expect(render(c, "N").cmd).toBe("sbatch -J N -H job.sh");
  });

  it("knows when --hold/--test-only does not take effect (a directive after the first command: the job may run)", () => {
    const base: SubmitCase = { kind: "sbatch", seed: 0, mode: "hold", wrap: false, layout: ["D", "command", "D"], options: [] };
    const time = { name: "time", value: "10", form: "valid", placement: "directive", spelling: "long=" } as const;
    const hold = { name: "hold", form: "valid", placement: "directive", spelling: "short" } as const;
    expect(modeInEffect({ ...base, options: [time, hold] })).toBe(false);
    expect(modeInEffect({ ...base, options: [hold, time] })).toBe(true);
    expect(modeInEffect({ ...base, options: [time, { ...hold, placement: "cli" }] })).toBe(true);
    expect(modeInEffect({ ...base, mode: "plain", options: [time] })).toBe(false);
  });
});

describe("differential comparison", () => {
  it("splits a scontrol -o line into keys, values with spaces included", () => {
    const m = keyValues("JobId=5 JobName=a b Comment=x=y ReqB:S:C:T=0:0:*:* CPUs/Task=1 Power=");
    expect([...m]).toEqual([["JobId", "5"], ["JobName", "a b"], ["Comment", "x=y"], ["ReqB:S:C:T", "0:0:*:*"], ["CPUs/Task", "1"], ["Power", ""]]);
  });

  it("names the case's job id in any '|' cell of a command's output, not inside other numbers (seed 12314)", () => {
    expect(idCells("dt-s1|1|256M|288|x\n288.batch|y|1288|2880\n", "288")).toBe("dt-s1|1|256M|<J>|x\n<J>.batch|y|1288|2880\n");
    expect(idCells("288|x", undefined)).toBe("288|x");
    // in a table, the id columns name it; a bare number elsewhere is a value that happens to equal it
    const rows = cellIds(pipeTable("JobID|JobIDRaw|TimelimitRaw|JobName|STEPID\n240|240|240|240.x|240.0\n240.batch|240.batch|240||240.1\n"), "240");
    expect(rows.map((r) => [...r.values()])).toEqual([["<J>", "<J>", "240", "<J>.x", "<J>.0"], ["<J>.batch", "<J>.batch", "240", "", "<J>.1"]]);
  });

  it("knows 22.05 slurmdbd's stub record of a job that ended before its start record arrived (seed 12737)", () => {
    expect(isSlurmdbdStub(pipeTable("JobID|JobName|Partition|QOS\n<J>|allocation||Unknown\n"))).toBe(true);
    expect(isSlurmdbdStub(pipeTable("JobID|JobName|Partition|QOS\n<J>|allocation|debug|normal\n"))).toBe(false);
    expect(isSlurmdbdStub([])).toBe(false);
  });

  it("names repeated columns of a table", () => {
    expect(pipeTable("A|B|A\n1|2|3\n")).toEqual([new Map([["A", "1"], ["B", "2"], ["A#2", "3"]])]);
  });

  it("knows a difference only for the field and option an entry names", () => {
    const c = generateCase(3);
    const withSegment: Case = { kind: "sbatch", seed: 0, mode: "hold", wrap: true, layout: [], options: [{ name: "segment", value: "1", form: "valid", placement: "cli", spelling: "long=" }] };
    expect(knownFor(withSegment, { field: "stderr", slurm: "x", spur: "y" })).toBeDefined();
    expect(knownFor(c, { field: "job.Nonexistent", slurm: "x", spur: "y" })).toBeUndefined();
    expect(knownFor(c, { field: "stderr", slurm: "", spur: "sbatch: warning: --network is not supported by Spur and was ignored\n" })).toBeDefined();
  });
});

describe("differential shrinking", () => {
  it("drops options down to the one that fails, keeping the mode", async () => {
    const c = submits(400).find((x) => x.options.length >= 4 && x.mode === "hold") as SubmitCase;
    const culprit = c.options.find((o) => o.name !== "hold") as SubmitCase["options"][number];
    const r = await shrink(c, async (v) => v.kind === "sbatch" && v.options.some((o) => o.name === culprit.name), 100);
    const s = r.case as SubmitCase;
    expect(s.options.map((o) => o.name).sort()).toEqual([culprit.name, "hold"].sort());
    expect(s.options.find((o) => o.name === culprit.name)?.placement).toBe("cli");
  });

  it("offers only simpler variants", () => {
    for (const c of submits(100)) for (const v of simplerVariants(c)) expect(v.options.length + v.layout.length).toBeLessThanOrEqual(c.options.length + c.layout.length);
  });
});
