/**
 * @module raft/wire-stream
 * Splitting the Raft transport's byte stream: newline-ended JSON lines (the greeting, the
 * JSON wire of older peers, the switch marker) and, after the switch, length-prefixed binary
 * frames (raft/wire-binary). What they keep of a chunk is copied (the socket's buffer is not
 * ours to keep): the lines' pieces, joined once a line is complete, and an unfinished
 * frame, copied into one buffer the frame's size; a line or a frame of megabytes arriving
 * in many chunks costs one copy, not one per chunk.
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

/**
 * Whole frame bodies (what follows each u32 LE length prefix) out of a byte stream, however
 * the socket cuts it. A body is handed to `onBody` during push() and is only valid until
 * onBody returns: it is a view of the socket's chunk when the frame lies whole in it (no
 * copy at all, the usual case), else of the reader's own buffer, reused for the next frame.
 * The caller decodes it there and then and copies what it keeps (raft/wire-binary copies
 * entry data). Copying every chunk into a fresh buffer first cost a follower about a tenth of
 * its samples under 64 submissions in flight (allocation and first touch of new memory).
 */
export class FrameReader {
  /** The unfinished frame, prefix included: buf[0, filled). */
  private buf = Buffer.allocUnsafeSlow(0);
  private filled = 0;
  /** Body length of the unfinished frame; -1 until its prefix is in. */
  private need = -1;
  constructor(private readonly maxBodyBytes: number) {}

  /** Hands each body completed by `chunk` to onBody; false when a frame announces more than allowed. */
  push(chunk: Uint8Array, onBody: (body: Buffer) => void): boolean {
    // Bun's sockets hand over Buffers; reading .buffer of one costs the engine an ArrayBuffer object each time
    const bytes = chunk instanceof Buffer ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    let at = 0;
    if (this.filled > 0) {
      at = this.fill(bytes, 0);
      if (at < 0) return false;
      if (this.need < 0 || this.filled < 4 + this.need) return true; // the chunk ended inside the frame
      const body = this.buf.subarray(4, 4 + this.need);
      this.filled = 0;
      this.need = -1;
      // A large frame's buffer is not kept for the small ones that follow.
      if (this.buf.length > KEEP_BUFFER_BYTES) this.buf = Buffer.allocUnsafeSlow(0);
      onBody(body);
    }
    // Frames that lie whole in the chunk: views of it.
    while (bytes.length - at >= 4) {
      const need = bytes.readUInt32LE(at);
      if (need > this.maxBodyBytes) return false;
      if (bytes.length - at < 4 + need) break;
      onBody(bytes.subarray(at + 4, at + 4 + need));
      at += 4 + need;
    }
    return at === bytes.length || this.fill(bytes, at) >= 0;
  }

  /** Copy from bytes[at] into the unfinished frame, up to its end; where it stopped, or -1 for a frame over the limit. */
  private fill(bytes: Buffer, at: number): number {
    if (this.need < 0) {
      const take = Math.min(4 - this.filled, bytes.length - at);
      this.reserve(4);
      this.buf.set(bytes.subarray(at, at + take), this.filled);
      this.filled += take;
      at += take;
      if (this.filled < 4) return at;
      this.need = this.buf.readUInt32LE(0);
      if (this.need > this.maxBodyBytes) return -1;
    }
    const take = Math.min(4 + this.need - this.filled, bytes.length - at);
    this.reserve(4 + this.need);
    this.buf.set(bytes.subarray(at, at + take), this.filled);
    this.filled += take;
    return at + take;
  }

  private reserve(size: number): void {
    if (this.buf.length >= size) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(size, Math.min(2 * this.buf.length, KEEP_BUFFER_BYTES)));
    grown.set(this.buf.subarray(0, this.filled));
    this.buf = grown;
  }
}

/** The unfinished-frame buffer is kept for reuse up to this size. */
const KEEP_BUFFER_BYTES = 1 << 20;
