/**
 * The Raft transport's stream splitters (raft/wire-stream.ts): lines and binary frames come
 * out whole however the socket cuts the stream (seeded cuttings), the switch line hands over
 * exactly the bytes after it, and an unfinished line or a frame longer than allowed ends the
 * connection.
 */
import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/lib/rng.ts";
import { FrameReader, LineReader, SWITCH_LINE } from "../../../src/raft/wire-stream.ts";

/** `stream` cut into chunks of 1..maxCut bytes by `seed`. */
function cuts(stream: Uint8Array, seed: number, maxCut: number): Uint8Array[] {
  const rng = createRng(seed);
  const out: Uint8Array[] = [];
  for (let at = 0; at < stream.length; ) {
    const size = rng.int(1, maxCut);
    out.push(stream.subarray(at, at + size));
    at += size;
  }
  return out;
}

const frame = (body: Uint8Array): Buffer => {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(body.length);
  return Buffer.concat([head, body]);
};

describe("LineReader", () => {
  it("gives the same lines for any cutting of the stream, multi-byte characters included (seeded)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rng = createRng(seed);
      const lines = Array.from({ length: 20 }, (_, i) => `{"n":${i},"pad":"${"xé€".repeat(rng.int(0, 100))}"}`);
      const reader = new LineReader(1 << 20);
      const out: string[] = [];
      for (const chunk of cuts(Buffer.from(`${lines.join("\n")}\n`), seed, 400)) out.push(...(reader.push(chunk)?.lines ?? ["<cut>"]));
      expect(out, `seed ${seed}`).toEqual(lines);
    }
  });

  it("stops at the switch line and returns the bytes after it, however cut (seeded)", () => {
    const after = Buffer.from([0, 10, 255, 34, 10, 1]);
    const stream = Buffer.concat([Buffer.from(`{"hello":1}\n[1]\n${SWITCH_LINE}\n`), after]);
    for (let seed = 1; seed <= 30; seed++) {
      const reader = new LineReader(4096);
      const lines: string[] = [];
      const rest: Buffer[] = [];
      let switched = false;
      for (const chunk of cuts(stream, seed, 7)) {
        if (switched) {
          rest.push(Buffer.from(chunk));
          continue;
        }
        const got = reader.push(chunk);
        lines.push(...(got?.lines ?? []));
        if (got?.rest !== undefined) {
          switched = true;
          rest.push(got.rest);
        }
      }
      expect(lines, `seed ${seed}`).toEqual(['{"hello":1}', "[1]"]);
      expect([...Buffer.concat(rest)], `seed ${seed}`).toEqual([...after]);
    }
  });

  it("keeps an unfinished line up to its bound and refuses one past it", () => {
    const reader = new LineReader(4096);
    expect(reader.push(Buffer.from("x".repeat(4000)))).toEqual({ lines: [] });
    expect(reader.push(Buffer.from("x".repeat(200)))).toBeUndefined();
    expect(new LineReader(4096).push(Buffer.from(`${"y".repeat(100)}\n${"z".repeat(5000)}`))).toBeUndefined();
    // Raised once the peer is known (the greeting bound, then the message bound).
    const raised = new LineReader(4096);
    raised.maxLineBytes = 1 << 20;
    expect(raised.push(Buffer.from("z".repeat(5000)))).toEqual({ lines: [] });
  });
});

describe("FrameReader", () => {
  it("gives the same bodies for any cutting of the stream (seeded)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rng = createRng(seed);
      const bodies = Array.from({ length: 15 }, () => Buffer.from(Array.from({ length: rng.int(0, 600) }, () => rng.int(0, 255))));
      const reader = new FrameReader(1 << 20);
      const out: number[][] = [];
      // a body is only valid during the call: read it there
      for (const chunk of cuts(Buffer.concat(bodies.map(frame)), seed, rng.int(1, 900))) expect(reader.push(chunk, (b) => out.push([...b]))).toBe(true);
      expect(out, `seed ${seed}`).toEqual(bodies.map((b) => [...b]));
    }
  });

  it("reads a frame of megabytes in many chunks, and small frames after it, in one buffer each (seeded)", () => {
    const rng = createRng(7);
    const big = Buffer.from(Array.from({ length: (2 << 20) + 3 }, () => rng.int(0, 255)));
    const bodies = [Buffer.from([1]), big, Buffer.from([2, 3]), big.subarray(0, 70_000), Buffer.from([4])];
    const reader = new FrameReader(4 << 20);
    const out: Buffer[] = [];
    for (const chunk of cuts(Buffer.concat(bodies.map(frame)), 7, 65_536)) expect(reader.push(chunk, (b) => out.push(Buffer.from(b)))).toBe(true);
    expect(out.length).toBe(bodies.length);
    out.forEach((b, i) => expect(b.equals(bodies[i] as Buffer), `body ${i}`).toBe(true));
  });

  it("does not keep a view of a chunk the socket may reuse", () => {
    const reader = new FrameReader(1024);
    const chunk = frame(Buffer.from([1, 2, 3]));
    const out: number[][] = [];
    expect(reader.push(chunk.subarray(0, 5), (b) => out.push([...b]))).toBe(true);
    chunk.fill(9, 0, 5);
    expect(reader.push(chunk.subarray(5), (b) => out.push([...b]))).toBe(true);
    expect(out).toEqual([[1, 2, 3]]);
  });

  it("refuses a frame that announces more than allowed, before its body arrives", () => {
    const head = Buffer.alloc(4);
    head.writeUInt32LE(1025);
    const none = () => expect.unreachable("no body yet");
    expect(new FrameReader(1024).push(head, none)).toBe(false);
    expect(new FrameReader(1025).push(head, none)).toBe(true);
    // the same when the prefix arrives in pieces, or after a whole frame in the same chunk
    const split = new FrameReader(1024);
    expect(split.push(head.subarray(0, 2), none)).toBe(true);
    expect(split.push(head.subarray(2), none)).toBe(false);
    const seen: number[][] = [];
    expect(new FrameReader(1024).push(Buffer.concat([frame(Buffer.from([7])), head]), (b) => seen.push([...b]))).toBe(false);
    expect(seen).toEqual([[7]]);
  });
});
