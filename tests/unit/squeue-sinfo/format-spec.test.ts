/**
 * The shared -o/-O parser and cell printer (Slurm's _parse_token,
 * _parse_long_token and _print_str rules), and the getopt twin.
 */
import { describe, expect, it } from "vitest";
import { padCell, parseLetterFormat, parseNameFormat } from "../../../src/compat/format/format-spec.ts";
import { getoptLong } from "../../../src/compat/format/getopt.ts";

const letters = (l: string): string | undefined => ("ijP".includes(l) ? `key-${l}` : undefined);

describe("-o format", () => {
  it("splits prefix, width, justification and suffix", () => {
    const { items, invalid } = parseLetterFormat("pre %.18i|%9P%j", letters);
    expect(invalid).toEqual([]);
    expect(items).toEqual([
      { kind: "literal", text: "pre " },
      { kind: "field", key: "key-i", width: 18, right: true, computed: false, suffix: "|" },
      { kind: "field", key: "key-P", width: 9, right: false, computed: false, suffix: "" },
      { kind: "field", key: "key-j", width: 0, right: false, computed: false, suffix: "" },
    ]);
  });

  it("keeps unknown letters as %text and treats runs of % as one", () => {
    const { items, invalid } = parseLetterFormat("%i%%j %q!", letters);
    expect(invalid).toEqual(["q"]);
    expect(items.map((i) => (i.kind === "literal" ? i.text : i.key))).toEqual(["key-i", "key-j", "%q!"]);
  });

  it("accepts %#X only for built-in formats", () => {
    expect(parseLetterFormat("%#P", letters, { allowComputed: true }).items[0]).toMatchObject({ key: "key-P", computed: true });
    expect(parseLetterFormat("%#P", letters).invalid).toEqual(["#"]);
  });
});

describe("-O format", () => {
  it("defaults to 20 left-justified and reads [.]width[suffix]", () => {
    const names = (n: string): string | undefined => (["jobid", "name"].includes(n.toLowerCase()) ? n.toLowerCase() : undefined);
    const { items, invalid } = parseNameFormat("JobID,Name:.8 |,Nope:3,name:", names);
    expect(invalid).toEqual(["Nope"]);
    expect(items).toEqual([
      { kind: "field", key: "jobid", width: 20, right: false, suffix: "", computed: false },
      { kind: "field", key: "name", width: 8, right: true, suffix: " |", computed: false },
      { kind: "field", key: "name", width: 0, right: false, suffix: "", computed: false },
    ]);
  });
});

describe("cell printing", () => {
  it("pads, and cuts left-justified cells always, right-justified ones only when allowed", () => {
    expect(padCell("abc", 0, false)).toBe("abc");
    expect(padCell("abc", 5, false)).toBe("abc  ");
    expect(padCell("abcdef", 4, false, false)).toBe("abcd");
    expect(padCell("abc", 5, true)).toBe("  abc");
    expect(padCell("AVAIL_FEATURES", 8, true)).toBe("AVAIL_FE");
    expect(padCell("1-02:03:04", 5, true, false)).toBe("1-02:03:04");
  });
});

describe("getopt twin", () => {
  const rows = [
    { id: "long", long: ["long"], short: "l", arg: "none" as const },
    { id: "jobs", long: ["jobs"], short: "j", arg: "optional" as const },
    { id: "format", long: ["format"], short: "o", arg: "required" as const },
    { id: "format2", long: ["Format"], short: "O", arg: "required" as const },
  ];

  it("handles bundles, attached and separate values, optional args and permutation", () => {
    const r = getoptLong("cmd", ["-lj17", "x", "-o%i", "--form", "%j", "-j", "--", "-l"], rows);
    expect(r.error).toBeUndefined();
    expect(r.options).toEqual([
      { id: "long", value: undefined },
      { id: "jobs", value: "17" },
      { id: "format", value: "%i" },
      { id: "format", value: "%j" },
      { id: "jobs", value: undefined },
    ]);
    expect(r.positionals).toEqual(["x", "-l"]);
  });

  it("is case-sensitive for long names and reports ambiguity", () => {
    expect(getoptLong("cmd", ["--Form=x"], rows).options).toEqual([{ id: "format2", value: "x" }]);
    expect(getoptLong("cmd", ["--lo", "--bad"], rows)).toEqual({
      options: [{ id: "long", value: undefined }],
      positionals: [],
      error: "cmd: unrecognized option '--bad'",
    });
  });
});
