/**
 * @module tests/unit/ops/check
 * `spur check` on the fixture scripts, and the property that makes it trustworthy: it can
 * never be milder than sbatch itself (same table, same parser, same buildSpec).
 */
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { checkOne, checkScripts, type Verdict } from "../../../src/ops/check.ts";
import { checkReportJson, formatCheckReport } from "../../../src/ops/check-format.ts";
import { checkMain } from "../../../src/ops/check-cli.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { optionsFor } from "../../../src/compat/options/table.ts";

const DIR = resolve(import.meta.dirname, "../../fixtures/ops/scripts");
const NOW = 1_700_000_000;
const fixtures = readdirSync(DIR).sort().map((name) => ({ path: name, text: readFileSync(join(DIR, name), "utf8") }));

const EXPECTED: Record<string, Verdict> = {
  "01-simple.sh": "unchanged",
  "02-gpu-array.sh": "unchanged",
  "03-tuning-warnings.sh": "warnings",
  "04-container.sh": "fails",
  "05-no-shebang.sh": "fails",
  "06-late-directive.sh": "warnings",
  "07-pbs.sh": "warnings",
  "08-unknown-option.sh": "fails",
  "09-bad-time.sh": "fails",
  "10-hetjob.sh": "fails",
};

const brief = (path: string, text: string) => checkOne(path, text, { now: NOW }).findings.map((f) => [f.line, f.severity, f.code]);

describe("spur check on the fixture scripts", () => {
  const report = checkScripts(fixtures, { now: NOW });

  it("gives each script its verdict and counts them", () => {
    expect(Object.fromEntries(report.scripts.map((s) => [s.path, s.verdict]))).toEqual(EXPECTED);
    expect(report.summary).toEqual({ total: 10, unchanged: 2, warnings: 3, fails: 5 });
  });

  it("reports per line what Spur ignores, rejects or treats differently", () => {
    const by = new Map(report.scripts.map((s) => [s.path, s.findings]));
    expect(by.get("03-tuning-warnings.sh")?.map((f) => [f.line, f.code, f.option])).toEqual([
      [3, "Ignored", "--mcs-label"], [4, "Ignored", "--reboot"], [5, "Differs", "--exclusive"],
    ]);
    expect(by.get("04-container.sh")).toEqual([
      { line: 3, severity: "error", code: "Unsupported", option: "--container-id", message: "--container-id is not supported by Spur" },
    ]);
    expect(by.get("05-no-shebang.sh")?.map((f) => [f.line, f.code])).toEqual([[1, "NoShebang"]]);
    expect(by.get("06-late-directive.sh")?.map((f) => [f.line, f.severity, f.code])).toEqual([
      [3, "info", "NotADirective"], [5, "warn", "LateDirective"],
    ]);
    expect(by.get("07-pbs.sh")?.map((f) => [f.line, f.code])).toEqual([[2, "ForeignDirective"], [3, "ForeignDirective"]]);
    expect(by.get("08-unknown-option.sh")?.[0]?.message).toBe("sbatch: unrecognized option '--frobnicate=yes' (Slurm refuses it too)");
    expect(by.get("09-bad-time.sh")?.map((f) => [f.line, f.code, f.message])).toEqual([
      [2, "BadValue", "Invalid --time specification (Slurm refuses it too)"],
    ]);
    expect(by.get("10-hetjob.sh")?.map((f) => [f.line, f.code])).toEqual([[3, "Hetjob"]]);
  });

  it("fails exactly the scripts sbatch refuses, and repeats every warning sbatch gives", () => {
    for (const f of fixtures) {
      const s = checkOne(f.path, f.text, { now: NOW });
      const r = sbatchRequest({ cmd: "sbatch", argv: [], env: {}, invoker: { cwd: "/", hostname: "h" }, now: NOW }, [], { text: f.text, from: "file", path: f.path, args: [] });
      if (!r.ok) expect(s.verdict, f.path).toBe("fails");
      else {
        for (const w of r.value.warnings) expect(s.findings.some((x) => x.message.startsWith(w)), `${f.path}: ${w}`).toBe(true);
        expect(s.verdict, f.path).not.toBe("fails");
      }
    }
  });

  it("flags every option the table marks warn or error, with sbatch's own words", () => {
    for (const def of optionsFor("sbatch")) {
      if (def.support === "ok" || def.support === "ignore") continue;
      // a value Slurm accepts where an ignored option's value is still checked (compat/options/ignored-checks.ts)
      const value = ({ "mem-bind": "local", "wait-all-nodes": "1" } as Record<string, string>)[def.name] ?? "x";
      const word = def.hasArg === "required" ? `--${def.name}=${value}` : `--${def.name}`;
      const s = checkOne("t.sh", `#!/bin/sh\n#SBATCH ${word}\ntrue\n`);
      expect([def.name, s.verdict]).toEqual([def.name, def.support === "warn" ? "warnings" : "fails"]);
      expect(s.findings[0]?.code).toBe(def.support === "warn" ? "Ignored" : "Unsupported");
      expect(s.findings[0]?.line).toBe(2);
    }
  });
});

describe("spur check details", () => {
  it("reads directive words as one argv, as sbatch does (a value on the next #SBATCH line)", () => {
    expect(brief("a.sh", "#!/bin/sh\n#SBATCH --time\n#SBATCH 10\n#SBATCH --mcs-label=x\ntrue\n")).toEqual([[4, "warn", "Ignored"]]);
  });

  it("treats #PBS lines as notes when the script asks for --ignore-pbs, and flags #BSUB", () => {
    expect(brief("p.sh", "#!/bin/sh\n#SBATCH --ignore-pbs\n#PBS -N x\ntrue\n")).toEqual([[3, "info", "ForeignDirective"]]);
    expect(brief("b.sh", "#!/bin/sh\n#BSUB -n 4\ntrue\n")).toEqual([[2, "warn", "ForeignDirective"]]);
  });

  it("refuses DOS line breaks and empty scripts, like sbatch", () => {
    expect(checkOne("d.sh", "#!/bin/sh\r\n#SBATCH -n 1\r\ntrue\r\n").findings.map((f) => f.code)).toEqual(["DosLineBreaks"]);
    expect(checkOne("e.sh", "").verdict).toBe("fails");
  });

  it("finds sbatch's whole-script refusals too (a stray word after the options)", () => {
    expect(brief("s.sh", "#!/bin/sh\n#SBATCH -n 1 oops\ntrue\n")).toEqual([[2, "error", "InvalidDirective"]]);
  });
});

describe("spur check output", () => {
  const report = checkScripts(fixtures.slice(2, 4), { now: NOW });

  it("prints a block per script and the summary table", () => {
    expect(formatCheckReport(report)).toBe(
      "03-tuning-warnings.sh: runs with warnings\n" +
        "  line 3: warning: --mcs-label is not supported by Spur and was ignored\n" +
        "  line 4: warning: --reboot is not supported by Spur and was ignored\n" +
        "  line 5: warning: --exclusive=mcs is not supported by Spur; whole nodes are allocated instead\n" +
        "04-container.sh: will not run\n" +
        "  line 3: error: --container-id is not supported by Spur\n" +
        "\n" +
        "Summary (2 scripts):\n" +
        "  run unchanged      0\n" +
        "  run with warnings  1\n" +
        "  will not run       1\n" +
        "  total              2\n",
    );
  });

  it("gives tooling the report itself as JSON", () => {
    const parsed = JSON.parse(checkReportJson(report)) as typeof report;
    expect(parsed).toEqual(report);
    expect(Object.keys(parsed.scripts[0] ?? {})).toEqual(["path", "verdict", "findings"]);
  });

  it("walks a directory; exit 1 when a script will not run", () => {
    const r = checkMain({ paths: [DIR], json: true }, NOW);
    expect(r.exitCode).toBe(1);
    const parsed = JSON.parse(r.stdout) as typeof report;
    expect(parsed.summary.total).toBe(10);
    expect(parsed.scripts[0]?.path).toBe(join(DIR, "01-simple.sh"));
    const tmp = mkdtempSync(join(tmpdir(), "spur-check-"));
    writeFileSync(join(tmp, "ok.sh"), "#!/bin/sh\n#SBATCH -n 1\ntrue\n");
    writeFileSync(join(tmp, "blob.bin"), Buffer.from([0, 1, 2]));
    expect(checkMain({ paths: [tmp] }, NOW)).toMatchObject({ exitCode: 0, stdout: expect.stringContaining("ok.sh: runs unchanged") });
    expect(checkMain({ paths: [] }, NOW).exitCode).toBe(2);
    expect(checkMain({ paths: [join(tmp, "missing")] }, NOW).exitCode).toBe(2);
  });
});
