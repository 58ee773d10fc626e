/**
 * @module raft/wire-stream
 * Splitting the Raft transport's byte stream: newline-ended JSON lines (the greeting, the
 * JSON wire of older peers, the switch marker) and, after the switch, length-prefixed binary
 * frames (raft/wire-binary). Both keep received chunks (copied: the socket's buffer is not
 * ours to keep) and join them once a line or a frame is complete: a line or a frame of
 * megabytes arriving in many chunks costs one copy, not one per chunk.
 */

/** A copy of `bytes` (a plain memcpy: Buffer.from(view) is several times slower in Bun 1.4). */
function copyOf(bytes: Uint8Array): Buffer {
  const out = Buffer.allocUnsafeSlow(bytes.length);
  out.set(bytes);
  return out;
}

/** The line a dialer sends, once the listener has offered binary frames, right before its first frame. */
export const SWITCH_LINE = '"binary"';

/**
 * Whole lines out of a byte stream. A line equal to SWITCH_LINE ends the line part: push()
 * then returns what follows it in the chunk as `rest`, and the reader takes nothing more.
 */
export class LineReader {
  private partial: Buffer[] = [];
  private partialBytes = 0;
  /** `maxLineBytes`: the longest unfinished line allowed (may be lowered, e.g. once a peer is known). */
  constructor(public maxLineBytes: number) {}

  /** Lines completed by `chunk`, and the bytes after a switch line; undefined when an unfinished line is too long. */
  push(chunk: Uint8Array): { lines: string[]; rest?: Buffer } | undefined {
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: string[] = [];
    let start = 0;
    for (let nl = bytes.indexOf(10, start); nl >= 0; nl = bytes.indexOf(10, start)) {
      const piece = bytes.subarray(start, nl);
      const line = this.partialBytes === 0 ? piece.toString("utf8") : Buffer.concat([...this.partial, piece]).toString("utf8");
      this.partial = [];
      this.partialBytes = 0;
      start = nl + 1;
      if (line === SWITCH_LINE) return { lines, rest: copyOf(bytes.subarray(start)) };
      lines.push(line);
    }
    if (start < bytes.length) {
      this.partial.push(copyOf(bytes.subarray(start)));
      this.partialBytes += bytes.length - start;
    }
    return this.partialBytes > this.maxLineBytes ? undefined : { lines };
  }
}

/** Whole frame bodies (what follows each u32 LE length prefix) out of a byte stream, however the socket cuts it. */
export class FrameReader {
  private chunks: Buffer[] = [];
  private total = 0;
  /** Body length of the frame being read; -1 until its prefix is in. */
  private need = -1;
  constructor(private readonly maxBodyBytes: number) {}

  /** The bodies completed by `chunk`; undefined when a frame announces more than allowed. */
  push(chunk: Uint8Array): Buffer[] | undefined {
    if (chunk.length > 0) {
      this.chunks.push(copyOf(chunk));
      this.total += chunk.length;
    }
    const out: Buffer[] = [];
    for (;;) {
      if (this.need < 0) {
        if (this.total < 4) return out;
        if ((this.chunks[0] as Buffer).length < 4) this.join();
        this.need = (this.chunks[0] as Buffer).readUInt32LE(0);
        if (this.need > this.maxBodyBytes) return undefined;
      }
      if (this.total < 4 + this.need) return out;
      const all = this.join();
      out.push(all.subarray(4, 4 + this.need));
      const rest = all.subarray(4 + this.need);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.total = rest.length;
      this.need = -1;
    }
  }

  private join(): Buffer {
    const all = this.chunks.length === 1 ? (this.chunks[0] as Buffer) : Buffer.concat(this.chunks, this.total);
    this.chunks = [all];
    return all;
  }
}
