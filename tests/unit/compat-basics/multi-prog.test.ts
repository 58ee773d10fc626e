/**
 * srun --multi-prog (compat/multi-prog): srun's check of the file and the
 * command line each task gets. Every expectation was seen on the Slurm 22.05
 * oracle (`srun -n N -l --multi-prog FILE`, 2026-12-04).
 */
import { describe, expect, it } from "vitest";
import { checkMultiProg, multiProgArgv } from "../../../src/compat/multi-prog.ts";

const argv = (text: string, rank: number, extra: string[] = []) => {
  const r = multiProgArgv(text, rank, extra);
  return r.ok ? r.argv : r.error;
};

describe("srun's check of the file", () => {
  it("accepts a file naming every task; without -n the file sets the count", () => {
    expect(checkMultiProg("0 echo zero %t %o\n1-2 echo r %t %o\n", "mp1.conf", 3, true)).toEqual({ ok: true, ntasks: 3 });
    expect(checkMultiProg("0-3 echo a %t\n", "mp4.conf", 1, false)).toEqual({ ok: true, ntasks: 4 });
    expect(checkMultiProg("* echo a\n", "f", 1, false)).toEqual({ ok: true, ntasks: 1 });
    expect(checkMultiProg("# c\n  # c\n\n1,3 echo odd\n0,2 echo even\n", "f", 4, true)).toEqual({ ok: true, ntasks: 4 });
  });

  it("a task nobody names", () => {
    expect(checkMultiProg("0 echo zero\n1-2 echo r\n", "mp1.conf", 4, true)).toEqual({ ok: false, lines: ["Configuration file mp1.conf invalid, no record for task id 3"] });
  });

  it("a line without a program, a task twice, a task beyond -n (or SLURM_NTASKS)", () => {
    expect(checkMultiProg("0 echo zero\n1\n", "mp2.conf", 2, true)).toEqual({ ok: false, lines: ["Line 2 of configuration file mp2.conf invalid"] });
    expect(checkMultiProg("0   \n", "mpc3.conf", 1, true)).toEqual({ ok: false, lines: ["Line 1 of configuration file mpc3.conf invalid"] });
    expect(checkMultiProg("0-1 echo a\n1 echo b\n", "mp3.conf", 2, true)).toEqual({ ok: false, lines: ["Duplicate record for task 1", "Line 2 of configuration file mp3.conf invalid"] });
    expect(checkMultiProg("0-3 echo a %t\n", "mp4.conf", 2, true)).toEqual({ ok: false, lines: ["Invalid task id, 3 >= ntasks", "Line 1 of configuration file mp4.conf invalid"] });
  });

  it("bad rank words", () => {
    const bad = (ranks: string) => checkMultiProg(`${ranks} echo a\n`, "mpe.conf", 3, true);
    const line = "Line 1 of configuration file mpe.conf invalid";
    expect(bad("1-2x")).toEqual({ ok: false, lines: ["Invalid task range specification", line] });
    expect(bad("2-1")).toEqual({ ok: false, lines: ["Invalid task range, 2-1", line] });
    expect(bad("a")).toEqual({ ok: false, lines: ["Invalid task range specification (a)", line] });
    expect(bad("0,x")).toEqual({ ok: false, lines: ["Invalid task range specification (x)", line] });
    expect(bad("-2")).toEqual({ ok: false, lines: ["Invalid task id, -2 < 0", line] });
  });

  it("`*` must be the last line", () => {
    expect(checkMultiProg("* echo a\n0 echo b\n", "mpe.conf", 2, true)).toEqual({
      ok: false, lines: ["Task range specification with asterisk must be last", "Line 2 of configuration file mpe.conf invalid"],
    });
  });

  it("a continued line's next line is part of it, not a record", () => {
    expect(checkMultiProg("0 echo a \\\n b c\n1 echo x\n", "mpc.conf", 2, true)).toEqual({ ok: true, ntasks: 2 });
  });

  it("a line of 16 KiB is too long", () => {
    expect(checkMultiProg(`0 echo ${"x".repeat(16_400)}\n`, "f", 1, true)).toEqual({ ok: false, lines: ["Line 1 of configuration file f too long"] });
  });
});

describe("each task's command line", () => {
  it("%t is the task id, %o the offset within the line's ranks", () => {
    const file = "0 echo zero %t %o\n1-2 echo r %t %o\n";
    expect(argv(file, 0)).toEqual(["echo", "zero", "0", "0"]);
    expect(argv(file, 2)).toEqual(["echo", "r", "2", "1"]);
    const lists = "# comment\n1,3 echo odd %t %o\n0,2 echo even %t %o\n";
    expect(argv(lists, 3, ["extra1"])).toEqual(["echo", "odd", "3", "1", "extra1"]);
    expect(argv(lists, 2, ["extra1"])).toEqual(["echo", "even", "2", "1", "extra1"]);
  });

  it("quotes, escapes and unknown %-letters (oracle: `all 0 q %t a b  end`)", () => {
    expect(argv("* echo all %t 'q %t' a\\ b %x end\n", 0)).toEqual(["echo", "all", "0", "q %t", "a b", "", "end"]);
    expect(argv('0 echo "a b"\n', 0)).toEqual(["echo", '"a', 'b"']);
    expect(argv("0 echo a%\n", 0)).toEqual(["echo", "a"]);
  });

  it("a backslash at the end of a line continues the command (oracle: `a  b c`)", () => {
    expect(argv("0 echo a \\\n b c\n1 echo x\n", 0)).toEqual(["echo", "a", "", "b", "c"]);
    expect(argv("0 echo a \\\n b c\n1 echo x\n", 1)).toEqual(["echo", "x"]);
    expect(argv("0 echo 'a \\\nb' c\n", 0)).toEqual(["echo", "a \\", "c"]); // 22.05 keeps the first line's part
  });

  it("an unclosed quote, or a rank no line names: slurmstepd's error", () => {
    expect(argv("0 echo 'unclosed\n", 0)).toBe("No executable program specified for this task");
    expect(argv("0 echo a\n", 1)).toBe("No executable program specified for this task");
  });
});
