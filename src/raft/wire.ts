/**
 * @module raft/wire
 * Raft messages as compact JSON for the transport: entry payloads and snapshot chunks in
 * base64, entry types as 0/1, everything else as the core's own field names.
 */
import type { Entry, Message } from "./core/index.ts";

interface WireEntry {
  t: number;
  i: number;
  k: 0 | 1;
  d: string;
}
type WireMessage = Omit<Message, "entries" | "chunk"> & {
  entries: WireEntry[];
  chunk?: { meta: NonNullable<Message["chunk"]>["meta"]; offset: number; totalBytes: number; data: string };
};

const b64 = (u: Uint8Array): string => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64");
const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

export function encodeMessage(m: Message): WireMessage {
  const { chunk, entries, ...rest } = m;
  const w: WireMessage = { ...rest, entries: entries.map((e) => ({ t: e.term, i: e.index, k: e.type === "normal" ? 0 : 1, d: b64(e.data) })) };
  if (chunk !== undefined) w.chunk = { ...chunk, data: b64(chunk.data) };
  return w;
}

export function decodeMessage(w: WireMessage): Message {
  const { chunk, entries, ...rest } = w;
  const m: Message = {
    ...rest,
    entries: entries.map((e): Entry => ({ term: e.t, index: e.i, type: e.k === 0 ? "normal" : "conf-change", data: unb64(e.d) })),
  };
  if (chunk !== undefined) m.chunk = { ...chunk, data: unb64(chunk.data) };
  return m;
}
