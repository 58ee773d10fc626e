/**
 * The Raft transport's line splitter (raft/transport-tcp.ts takeLines): lines come out whole
 * however the socket cuts them, a chunk without a newline is only kept, and an unfinished line
 * longer than allowed (4 KiB before the greeting) ends the connection.
 */
import { describe, expect, it } from "vitest";
import { takeLines } from "../../../src/raft/transport-tcp.ts";
import { createRng } from "../../../src/lib/rng.ts";

describe("takeLines", () => {
  it("gives the same lines for any cutting of the stream (seeded)", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const rng = createRng(seed);
      const lines = Array.from({ length: 20 }, (_, i) => `{"n":${i},"pad":"${"x".repeat(rng.int(0, 300))}"}`);
      const stream = `${lines.join("\n")}\n`;
      const conn = { buf: "", authed: true };
      const out: string[] = [];
      for (let at = 0; at < stream.length; ) {
        const size = rng.int(1, 400);
        out.push(...(takeLines(conn, stream.slice(at, at + size)) ?? ["<cut>"]));
        at += size;
      }
      expect(out, `seed ${seed}`).toEqual(lines);
      expect(conn.buf).toBe("");
    }
  });

  it("keeps a chunk without a newline and refuses an unfinished greeting past 4 KiB", () => {
    const conn = { buf: "", authed: false };
    expect(takeLines(conn, "x".repeat(4000))).toEqual([]);
    expect(conn.buf.length).toBe(4000);
    expect(takeLines(conn, "x".repeat(200))).toBeUndefined();
    const fresh = { buf: "", authed: false };
    expect(takeLines(fresh, `${"y".repeat(100)}\n${"z".repeat(5000)}`)).toBeUndefined();
  });
});
