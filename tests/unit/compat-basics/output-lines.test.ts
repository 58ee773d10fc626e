/**
 * srun's line buffering of task output (compat/output-lines): whole lines pass,
 * a partial line waits for its newline or the end, and a line over the limit is
 * passed on rather than held for ever.
 */
import { describe, expect, it } from "vitest";
import { LineBuffer } from "../../../src/compat/output-lines.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const dec = (b: Uint8Array) => new TextDecoder().decode(b);

describe("LineBuffer", () => {
  it("holds a partial line until its newline", () => {
    const b = new LineBuffer();
    expect(dec(b.push(enc("ab")))).toBe("");
    expect(dec(b.push(enc("c\nde")))).toBe("abc\n");
    expect(dec(b.push(enc("f\ng\nh")))).toBe("def\ng\n");
    expect(dec(b.flush())).toBe("h");
    expect(dec(b.flush())).toBe("");
  });

  it("passes several whole lines at once", () => {
    expect(dec(new LineBuffer().push(enc("1\n2\n3\n")))).toBe("1\n2\n3\n");
  });

  it("passes a partial line on once it reaches the limit", () => {
    const b = new LineBuffer(4);
    expect(dec(b.push(enc("abc")))).toBe("");
    expect(dec(b.push(enc("de")))).toBe("abcde");
    expect(dec(b.push(enc("x\nyyyy")))).toBe("x\nyyyy");
    expect(dec(b.flush())).toBe("");
  });

  it("never splits a UTF-8 character (the cut is after a newline byte)", () => {
    const b = new LineBuffer();
    const bytes = enc("é\nü");
    expect(dec(b.push(bytes.subarray(0, 4)))).toBe("é\n");
    expect(dec(b.push(bytes.subarray(4)))).toBe("");
    expect(dec(b.flush())).toBe("ü");
  });
});
