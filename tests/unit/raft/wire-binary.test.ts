/**
 * Raft messages as binary frames (raft/wire-binary.ts): every field of generated messages
 * survives a round trip, as it does through the JSON wire, and a damaged body throws (the
 * transport then closes the connection) instead of yielding a wrong message.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import type { Message, MessageType } from "../../../src/raft/core/index.ts";
import { decodeFrameBody, encodeFrame } from "../../../src/raft/wire-binary.ts";
import { decodeMessage, encodeMessage } from "../../../src/raft/wire.ts";

const TYPES: MessageType[] = ["prop", "app", "app-resp", "vote", "vote-resp", "pre-vote", "pre-vote-resp", "heartbeat", "heartbeat-resp", "snap", "snap-resp", "transfer-leader", "timeout-now", "read-index", "read-index-resp"];

function generated(seed: number): Message[] {
  const rng = createRng(seed);
  const big = () => (rng.int(0, 3) === 0 ? Number.MAX_SAFE_INTEGER - rng.int(0, 1000) : rng.int(0, 100000));
  const bytes = (n: number) => new Uint8Array(Array.from({ length: n }, () => rng.int(0, 255)));
  return Array.from({ length: rng.int(0, 6) }, (): Message => {
    const type = TYPES[rng.int(0, TYPES.length - 1)] as MessageType;
    const m: Message = {
      type, from: rng.int(1, 9), to: rng.int(1, 9), term: big(), logTerm: big(), index: big(), commit: big(), rejectHint: big(),
      reject: rng.int(0, 1) === 1, leaderTransfer: rng.int(0, 1) === 1,
      context: rng.int(0, 1) === 0 ? "" : `ctx-${rng.int(0, 999)}-é€`,
      entries: Array.from({ length: rng.int(0, 4) }, () => ({ term: big(), index: big(), type: rng.int(0, 1) === 0 ? ("normal" as const) : ("conf-change" as const), data: bytes(rng.int(0, 300)) })),
    };
    if (type === "snap" || type === "snap-resp") {
      m.chunk = { meta: { index: big(), term: big(), confState: { voters: [1, 2, 3], learners: rng.int(0, 1) === 0 ? [] : [4] } }, offset: big(), totalBytes: big(), data: bytes(rng.int(0, 2000)) };
    }
    return m;
  });
}

const plain = (ms: Message[]) => ms.map((m) => ({ ...m, entries: m.entries.map((e) => ({ ...e, data: [...e.data] })), ...(m.chunk === undefined ? {} : { chunk: { ...m.chunk, data: [...m.chunk.data] } }) }));

describe("binary Raft frames", () => {
  it("round-trip every field of generated messages, as the JSON wire does (seeded)", () => {
    for (let seed = 1; seed <= 200; seed++) {
      const ms = generated(seed);
      const frame = encodeFrame(ms);
      expect(frame.readUInt32LE(0), `seed ${seed}`).toBe(frame.length - 4);
      const back = decodeFrameBody(frame.subarray(4));
      expect(plain(back), `seed ${seed}`).toEqual(plain(ms));
      expect(plain(back), `seed ${seed}`).toEqual(plain(ms.map((m) => decodeMessage(JSON.parse(JSON.stringify(encodeMessage(m)))))));
    }
  });

  it("keeps no view of the body it decoded: the socket's chunk or the reader's buffer is reused (seeded)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const ms = generated(seed);
      const frame = encodeFrame(ms);
      const back = decodeFrameBody(frame.subarray(4));
      const before = plain(back);
      frame.fill(0xee);
      expect(plain(back), `seed ${seed}`).toEqual(before);
    }
  });

  it("throws on a truncated body, bytes left over, an unknown type or entry kind", () => {
    const ms: Message[] = generated(7).length > 0 ? generated(7) : generated(8);
    const body = encodeFrame(ms).subarray(4);
    for (let cut = 0; cut < body.length; cut += Math.max(1, Math.floor(body.length / 50))) expect(() => decodeFrameBody(body.subarray(0, cut)), `cut ${cut}`).toThrow();
    expect(() => decodeFrameBody(Buffer.concat([body, Buffer.from([0])]))).toThrow();
    const one: Message = { type: "app", from: 1, to: 2, term: 1, logTerm: 1, index: 1, commit: 0, rejectHint: 0, reject: false, leaderTransfer: false, context: "", entries: [{ term: 1, index: 2, type: "normal", data: new Uint8Array([1]) }] };
    const badType = Buffer.from(encodeFrame([one]).subarray(4));
    badType.write("zzz", 5, "latin1");
    expect(() => decodeFrameBody(badType)).toThrow(/unknown message type/);
    const badKind = Buffer.from(encodeFrame([one]).subarray(4));
    // count(4) + type(1+3) + 7 numbers + flags(1) + context(4) + entry count(4) + term, index (16): the kind byte.
    badKind.writeUInt8(7, 4 + 4 + 56 + 1 + 4 + 4 + 16);
    expect(() => decodeFrameBody(badKind)).toThrow(/unknown entry kind/);
  });
});
