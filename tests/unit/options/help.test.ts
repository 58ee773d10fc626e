import { describe, expect, it } from "vitest";
import { helpText, usageText, versionText } from "../../../src/compat/options/help.ts";
import { optionsFor, type Command } from "../../../src/compat/options/table.ts";

describe("--help / --usage / --version come from the table", () => {
  it.each(["sbatch", "srun", "salloc"] as Command[])("%s --help lists every documented option once", (cmd) => {
    const text = helpText(cmd);
    expect(text.startsWith(`Usage: ${cmd} [OPTIONS...]`)).toBe(true);
    for (const d of optionsFor(cmd)) {
      const count = text.split(`--${d.name}`).length - 1;
      if (d.documented && d.key === d.name) expect(count, d.name).toBeGreaterThanOrEqual(1);
      if (!d.documented) expect(text.includes(`--${d.name}=`) || text.includes(`--${d.name} `), d.name).toBe(false);
    }
  });

  it("marks what Spur ignores or rejects", () => {
    const text = helpText("sbatch");
    expect(text).toMatch(/--mcs-label=.*\(ignored by Spur\)/);
    expect(text).toMatch(/--uid=.*\(not supported by Spur\)/);
    expect(text).toMatch(/-t, --time=<time> +\S/);
  });

  it("usage lines stay within 80 columns and end with the operands", () => {
    for (const cmd of ["sbatch", "srun", "salloc"] as Command[]) {
      const lines = usageText(cmd).trimEnd().split("\n");
      for (const l of lines) expect(l.length).toBeLessThanOrEqual(80);
      expect(lines[0]?.startsWith(`Usage: ${cmd} [-N minnodes[-maxnodes]]`)).toBe(true);
    }
    expect(usageText("sbatch").trimEnd().endsWith("script [args...]")).toBe(true);
    expect(usageText("sbatch")).toContain("[-t time]");
    expect(usageText("sbatch")).toContain("[--nice[=adjustment]]");
  });

  it("version has Slurm's '<package> <version>' shape", () => {
    // Tools parse "slurm X.Y.Z" to pick options: the Slurm release Spur follows, not Spur's own.
    expect(versionText()).toBe("slurm 26.05.0\n");
  });
});
