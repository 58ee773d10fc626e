/**
 * @module raft/wire-binary
 * Raft messages as length-prefixed binary frames, which two controllers of this version
 * speak once their greeting has agreed to it (raft/transport-tcp). Entry payloads and
 * snapshot chunks travel as their own bytes: no base64 and no JSON.parse of a batch line of
 * megabytes. With JSON lines, base64 decoding was 6% of a follower's time at 64 submissions
 * in flight and the parse of each batch line about as much again (docs/startup.md).
 *
 * Frame: u32 LE byte length of the body, then the body: u32 message count, then each message:
 *   u8 length + ASCII type; f64 from, to, term, logTerm, index, commit, rejectHint;
 *   u8 flags (1 reject, 2 leaderTransfer, 4 chunk); u32 length + UTF-8 context;
 *   u32 entry count, each: f64 term, f64 index, u8 kind (0 normal, 1 conf-change), u32 length + data;
 *   with flag 4: u32 length + UTF-8 JSON of the chunk's meta, f64 offset, f64 totalBytes, u32 length + data.
 * Numbers are f64 so that every safe integer a term or an index can reach survives.
 * Failure policy: a body that does not parse exactly (a length past its end, an unknown type
 * or kind, bytes left over) throws; the transport then closes the connection.
 */
import type { Entry, Message, MessageType, SnapshotChunk } from "./core/index.ts";

/** Every message type, as a record so that the compiler names one added to the core but not here. */
const TYPE_NAMES: Record<MessageType, true> = {
  prop: true, app: true, "app-resp": true, vote: true, "vote-resp": true, "pre-vote": true, "pre-vote-resp": true, heartbeat: true,
  "heartbeat-resp": true, snap: true, "snap-resp": true, "transfer-leader": true, "timeout-now": true, "read-index": true, "read-index-resp": true,
};
const TYPES: ReadonlySet<string> = new Set(Object.keys(TYPE_NAMES));
const NUMBERS = ["from", "to", "term", "logTerm", "index", "commit", "rejectHint"] as const;
const FLAG_REJECT = 1;
const FLAG_TRANSFER = 2;
const FLAG_CHUNK = 4;
/** Bytes of a message before its variable parts: type length, 7 numbers, flags, context length, entry count. */
const MESSAGE_FIXED = 1 + 8 * NUMBERS.length + 1 + 4 + 4;
const ENTRY_FIXED = 8 + 8 + 1 + 4;

/** One frame (length prefix included) carrying `messages`. */
export function encodeFrame(messages: readonly Message[]): Buffer {
  let size = 4 + 4;
  const contexts: Buffer[] = [];
  const metas: (Buffer | undefined)[] = [];
  for (const m of messages) {
    const context = Buffer.from(m.context, "utf8");
    const meta = m.chunk === undefined ? undefined : Buffer.from(JSON.stringify(m.chunk.meta), "utf8");
    contexts.push(context);
    metas.push(meta);
    size += MESSAGE_FIXED + m.type.length + context.length;
    for (const e of m.entries) size += ENTRY_FIXED + e.data.length;
    if (m.chunk !== undefined && meta !== undefined) size += 4 + meta.length + 8 + 8 + 4 + m.chunk.data.length;
  }
  const out = Buffer.allocUnsafe(size);
  let at = out.writeUInt32LE(size - 4, 0);
  at = out.writeUInt32LE(messages.length, at);
  messages.forEach((m, i) => {
    at = out.writeUInt8(m.type.length, at);
    at += out.write(m.type, at, "latin1");
    for (const k of NUMBERS) at = out.writeDoubleLE(m[k], at);
    at = out.writeUInt8((m.reject ? FLAG_REJECT : 0) | (m.leaderTransfer ? FLAG_TRANSFER : 0) | (m.chunk !== undefined ? FLAG_CHUNK : 0), at);
    at = putBytes(out, at, contexts[i] as Buffer);
    at = out.writeUInt32LE(m.entries.length, at);
    for (const e of m.entries) {
      at = out.writeDoubleLE(e.term, at);
      at = out.writeDoubleLE(e.index, at);
      at = out.writeUInt8(e.type === "normal" ? 0 : 1, at);
      at = putBytes(out, at, e.data);
    }
    const meta = metas[i];
    if (m.chunk !== undefined && meta !== undefined) {
      at = putBytes(out, at, meta);
      at = out.writeDoubleLE(m.chunk.offset, at);
      at = out.writeDoubleLE(m.chunk.totalBytes, at);
      at = putBytes(out, at, m.chunk.data);
    }
  });
  return out;
}

function putBytes(out: Buffer, at: number, bytes: Uint8Array): number {
  const next = out.writeUInt32LE(bytes.length, at);
  out.set(bytes, next);
  return next + bytes.length;
}

/** Reads a frame's body front to back; every read checks that the body holds it. */
class Cursor {
  at = 0;
  constructor(private readonly body: Buffer) {}
  need(n: number): void {
    if (n < 0 || this.at + n > this.body.length) throw new RangeError("raft frame: truncated");
  }
  u8(): number {
    this.need(1);
    return this.body.readUInt8(this.at++);
  }
  u32(): number {
    this.need(4);
    const v = this.body.readUInt32LE(this.at);
    this.at += 4;
    return v;
  }
  f64(): number {
    this.need(8);
    const v = this.body.readDoubleLE(this.at);
    this.at += 8;
    return v;
  }
  /** `n` bytes, copied: a view would keep the whole frame alive for as long as the entry stays in the log. */
  bytes(n: number): Uint8Array {
    this.need(n);
    const out = new Uint8Array(n);
    out.set(this.body.subarray(this.at, this.at + n));
    this.at += n;
    return out;
  }
  text(n: number, encoding: "latin1" | "utf8"): string {
    this.need(n);
    const s = this.body.toString(encoding, this.at, this.at + n);
    this.at += n;
    return s;
  }
  done(): void {
    if (this.at !== this.body.length) throw new RangeError("raft frame: bytes after the last message");
  }
}

/** The messages of one frame's body (the bytes after its length prefix). */
export function decodeFrameBody(body: Buffer): Message[] {
  const c = new Cursor(body);
  const count = c.u32();
  const out: Message[] = [];
  for (let i = 0; i < count; i++) out.push(decodeOne(c));
  c.done();
  return out;
}

function decodeOne(c: Cursor): Message {
  const type = c.text(c.u8(), "latin1");
  if (!TYPES.has(type)) throw new RangeError(`raft frame: unknown message type ${JSON.stringify(type)}`);
  const [from, to, term, logTerm, index, commit, rejectHint] = NUMBERS.map(() => c.f64()) as [number, number, number, number, number, number, number];
  const flags = c.u8();
  const context = c.text(c.u32(), "utf8");
  const n = c.u32();
  const entries: Entry[] = [];
  for (let i = 0; i < n; i++) {
    const eTerm = c.f64();
    const eIndex = c.f64();
    const kind = c.u8();
    if (kind > 1) throw new RangeError(`raft frame: unknown entry kind ${kind}`);
    entries.push({ term: eTerm, index: eIndex, type: kind === 0 ? "normal" : "conf-change", data: c.bytes(c.u32()) });
  }
  const m: Message = { type: type as MessageType, from, to, term, logTerm, index, entries, commit, reject: (flags & FLAG_REJECT) !== 0, rejectHint, context, leaderTransfer: (flags & FLAG_TRANSFER) !== 0 };
  if ((flags & FLAG_CHUNK) !== 0) {
    const meta = JSON.parse(c.text(c.u32(), "utf8")) as SnapshotChunk["meta"];
    const offset = c.f64();
    const totalBytes = c.f64();
    m.chunk = { meta, offset, totalBytes, data: c.bytes(c.u32()) };
  }
  return m;
}
