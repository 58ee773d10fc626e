import { describe, expect, it } from "vitest";
import { flagErrorText, parseFlags, type FlagSpec } from "../../../src/lib/flags.ts";

const SPEC = {
  values: [["--conf", "-f"], ["--node", "-N"], ["--port"]],
  booleans: [["--force"], ["--detach", "-d"], ["--dry-run", "-n"]],
  operands: 1,
} as const satisfies FlagSpec;

const parse = (argv: string[]) => parseFlags(argv, SPEC);
const errorOf = (argv: string[]): string => {
  const r = parse(argv);
  if (r.ok) throw new Error(`accepted ${argv.join(" ")}`);
  return `${r.error.code}: ${r.error.message}`;
};

describe("lib/flags parseFlags", () => {
  it("reads every accepted form, by canonical name", () => {
    const r = parse(["--conf", "/a", "-N", "n1", "--port=7", "--force", "-dn", "op"]);
    expect(r.ok && r.value).toEqual({ values: { "--conf": "/a", "--node": "n1", "--port": "7" }, on: { "--force": true, "--detach": true, "--dry-run": true }, operands: ["op"] });
    const s = parse(["-f/b", "--node=", "-nNn2"]);
    expect(s.ok && s.value).toEqual({ values: { "--conf": "/b", "--node": "n2" }, on: { "--dry-run": true }, operands: [] });
  });
  it("takes the next word as a value even when it looks like a flag, and keeps the last of a repeated one", () => {
    const r = parse(["--conf", "--force", "--conf", "/c", "-N", "-x"]);
    expect(r.ok && r.value.values).toEqual({ "--conf": "/c", "--node": "-x" });
    expect(r.ok && r.value.on).toEqual({});
  });
  it("treats everything after -- and a lone - as operands", () => {
    expect(parseFlags(["-", "--", "--force", "-x"], { operands: 3 })).toEqual({ ok: true, value: { values: {}, on: {}, operands: ["-", "--force", "-x"] } });
  });
  it("refuses in getopt's words", () => {
    expect(errorOf(["--cnof", "x"])).toBe("UnrecognizedOption: unrecognized option '--cnof'");
    expect(errorOf(["--cnof=x"])).toBe("UnrecognizedOption: unrecognized option '--cnof=x'");
    expect(errorOf(["--con", "x"])).toBe("UnrecognizedOption: unrecognized option '--con'"); // no abbreviations
    expect(errorOf(["-q"])).toBe("InvalidOption: invalid option -- 'q'");
    expect(errorOf(["-dq"])).toBe("InvalidOption: invalid option -- 'q'");
    expect(errorOf(["--conf"])).toBe("MissingArgument: option '--conf' requires an argument");
    expect(errorOf(["-N"])).toBe("MissingArgument: option requires an argument -- 'N'");
    expect(errorOf(["-dN"])).toBe("MissingArgument: option requires an argument -- 'N'");
    expect(errorOf(["--force=yes"])).toBe("UnexpectedArgument: option '--force' doesn't allow an argument");
    expect(errorOf(["a", "b"])).toBe("ExtraOperand: extra operand 'b'");
    expect(errorOf(["--", "a", "b"])).toBe("ExtraOperand: extra operand 'b'");
    expect(parseFlags(["x"], {}).ok).toBe(false);
  });
  it("reports the first refused word", () => {
    expect(errorOf(["--bad", "-q"])).toBe("UnrecognizedOption: unrecognized option '--bad'");
  });
  it("refuses a malformed or duplicated spec (a programming error)", () => {
    expect(() => parseFlags([], { booleans: [["-long"]] })).toThrow(/bad flag name/);
    expect(() => parseFlags([], { values: [["--a"]], booleans: [["--a"]] })).toThrow(/declared twice/);
  });
});

describe("lib/flags flagErrorText", () => {
  it("prints getopt's line and Slurm's --help hint", () => {
    const r = parse(["--cnof"]);
    expect(!r.ok && flagErrorText("spurd", r.error)).toBe(`spurd: unrecognized option '--cnof'\nTry "spurd --help" for more information\n`);
    expect(!r.ok && flagErrorText("spur", r.error, "spur up")).toBe(`spur: unrecognized option '--cnof'\nTry "spur up --help" for more information\n`);
  });
});
