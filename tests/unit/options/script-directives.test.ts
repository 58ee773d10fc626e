import { describe, expect, it } from "vitest";
import {
  checkScript, lineWords, parseDirectives, scanDirectives, wrapScript,
} from "../../../src/compat/options/script-directives.ts";
import { readGolden } from "./helpers.ts";

describe("batch script checks", () => {
  it("wraps a command in Slurm's exact script", () => {
    expect(wrapScript("true")).toBe("#!/bin/sh\n# This script was created by sbatch --wrap.\n\ntrue\n");
  });

  it.each([
    ["", "EmptyScript"],
    ["echo hi\n", "NoShebang"],
    [" #!/bin/sh\n", "NoShebang"],
    ["#!/bin/sh\r\necho\r\n", "DosLineBreaks"],
  ])("%j is refused (%s)", (script, code) => {
    expect(checkScript(script)).toMatchObject({ ok: false, error: { code } });
  });

  it("accepts a script with a shebang", () => {
    expect(checkScript("#!/bin/bash\necho hi\n")).toEqual({ ok: true, value: undefined });
  });
});

describe("#SBATCH directives", () => {
  it("reads the golden job script (042)", () => {
    const script = readGolden("042-sbatch-script-directives-cat.txt").stdout;
    expect(scanDirectives(script).words).toEqual([
      "--job-name=golden", "--output=%x-%j.out", "--gres=gpu:2", "--ntasks=2", "--time=00:10:00", "--array=1-3",
    ]);
  });

  it("stops at the first command line; blank lines and comments do not stop it", () => {
    const script = "#!/bin/sh\n\n# comment\n#SBATCH -n 2\n   \n#SBATCH -J a\necho\n#SBATCH -J late\n";
    expect(scanDirectives(script).words).toEqual(["-n", "2", "-J", "a"]);
  });

  it("needs #SBATCH at the start of the line; indented ones end the block", () => {
    expect(scanDirectives("#!/bin/sh\n  #SBATCH -n 2\n#SBATCH -J x\n").words).toEqual([]);
    expect(scanDirectives("#!/bin/sh\n# SBATCH -n 2\n#sbatch -J x\n").words).toEqual([]);
  });

  it.each([
    [' --job-name="my job" -n 2', ["--job-name=my job", "-n", "2"]],
    [" --comment='a b'  # trailing comment", ["--comment=a b"]],
    [' -J "x y"z', ["-J", "x yz"]],
    ["\t-N\t2", ["-N", "2"]],
    // 22.05: an unquoted '#' ends the line inside a word too (#SBATCH --comment=a#b -> Comment=a)
    [" --comment=a#b", ["--comment=a"]],
    [" --ntasks=1#128#512", ["--ntasks=1"]],
    [' -J "a#b"', ["-J", "a#b"]],
    [" --comment=c\\#d x", ["--comment=c#d", "x"]],
    [' --comment=""', ["--comment="]],
    // oracle 22.05: a backslash escapes inside quotes too (JobName=a"b c, a'b) but not unquoted whitespace
    [' -J "a\\"b c" --hold', ["-J", 'a"b c', "--hold"]],
    [" -J 'a\\'b'", ["-J", "a'b"]],
    [" -J a\\ b", ["-J", "a", "b"]],
    // oracle 22.05: an empty word ends the line (`-o "" -J x`: no JobName x)
    [' -o "" -J x', ["-o"]],
    [" -J x '' --hold", ["-J", "x"]],
  ])("splits %j", (line, words) => {
    expect(lineWords(line)).toEqual(words);
  });

  it("an empty word leaves its option to take the next line's first word (22.05: StdOut=<dir>/--hold)", () => {
    expect(scanDirectives('#!/bin/sh\n#SBATCH -o ""\n#SBATCH --hold\ntrue\n').words).toEqual(["-o", "--hold"]);
  });

  it("notes #PBS lines and het-job separators", () => {
    const d = scanDirectives("#!/bin/sh\n#PBS -l nodes=1\n#SBATCH -n 1\n#SBATCH hetjob\n#SBATCH -n 2\n");
    expect([d.pbs, d.hetjob, d.words]).toEqual([true, true, ["-n", "1", "-n", "2"]]);
    expect(parseDirectives(d)).toMatchObject({ ok: false, error: { code: "Unsupported" } });
  });

  it("a stray word is Slurm's 'Invalid directive' (exit 255)", () => {
    const d = scanDirectives("#!/bin/sh\n#SBATCH --nice 0\n");
    expect(parseDirectives(d)).toEqual({
      ok: false, error: { code: "InvalidDirective", message: "Invalid directive found in batch script: 0", exitCode: 255 },
    });
  });

  it("an unknown option in a directive fails like on the command line", () => {
    const r = parseDirectives(scanDirectives("#!/bin/sh\n#SBATCH --bogus\n"));
    expect(r).toMatchObject({ ok: false, error: { code: "UsageError", exitCode: 255 } });
  });
});
