/**
 * @module compat/output-lines
 * srun's default output handling (without `-u/--unbuffered`): a task's output
 * reaches srun's stdout/stderr (or its `-o/-e` file) in whole lines, so that
 * lines of several tasks do not interleave mid-line; a partial line waits for
 * its newline, for the task's end, or until it reaches `lineBytesMax` (a line
 * without newlines cannot grow without bound). `-u` passes chunks through as
 * they arrive. Bytes, not text: a newline byte never occurs inside a UTF-8
 * sequence, so splitting at 0x0A cannot cut a character.
 */
import { assert } from "../lib/assert.ts";

/** A partial line is passed on once it holds this many bytes. */
export const LINE_BYTES_MAX = 64 * 1024;

const NEWLINE = 0x0a;

/** Holds one stream's partial line; `push` returns what may be written now, in order. */
export class LineBuffer {
  private pending: Uint8Array = new Uint8Array(0);

  constructor(private readonly lineBytesMax = LINE_BYTES_MAX) {
    assert(lineBytesMax > 0, "lineBytesMax must be positive");
  }

  /** Add `chunk`; returns the complete lines (and any over-long partial line) to write now. */
  push(chunk: Uint8Array): Uint8Array {
    const joined = concat(this.pending, chunk);
    const cut = joined.lastIndexOf(NEWLINE) + 1;
    if (joined.length - cut >= this.lineBytesMax) {
      this.pending = new Uint8Array(0);
      return joined;
    }
    this.pending = joined.slice(cut);
    assert(this.pending.length < this.lineBytesMax, "a held partial line stays under the limit");
    return joined.subarray(0, cut);
  }

  /** The held partial line (the stream ended); empty when none. */
  flush(): Uint8Array {
    const rest = this.pending;
    this.pending = new Uint8Array(0);
    return rest;
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
