/**
 * rest/write-parts: a big body goes to the socket in slices no larger than asked, in order,
 * waiting for 'drain' whenever a write reports a full socket, and stops when the client
 * goes away.
 */
import { EventEmitter } from "node:events";
import { describe, expect, it } from "vitest";
import { type PartsSink, writeParts } from "../../../src/net/rest/write-parts.ts";

/** A socket that takes `takeBeforeFull` writes, then reports full until the test drains it. */
class FakeSink extends EventEmitter implements PartsSink {
  written: Uint8Array[] = [];
  ended = false;
  destroyed = false;
  full = false;
  constructor(private readonly takeBeforeFull: number) {
    super();
  }
  write(chunk: Uint8Array): boolean {
    if (this.ended || this.destroyed) throw new Error("write after end or close");
    this.written.push(Uint8Array.from(chunk));
    this.full = this.written.length % this.takeBeforeFull === 0;
    return !this.full;
  }
  end(): void {
    this.ended = true;
  }
  text(): string {
    return Buffer.concat(this.written).toString("utf8");
  }
}

const parts = ["{", '"jobs":[' + "x".repeat(37) + "]", ",", '"tail":1}'].map((t) => Buffer.from(t));
const whole = Buffer.concat(parts).toString("utf8");

/** Drains the sink each time it is full, until writing is done. */
async function pump(sink: FakeSink, done: Promise<void>): Promise<void> {
  let finished = false;
  void done.then(() => (finished = true));
  while (!finished) {
    await new Promise((r) => setImmediate(r));
    if (sink.full) {
      sink.full = false;
      sink.emit("drain");
    }
  }
}

describe("writeParts", () => {
  it("writes the parts' bytes in order, no slice over the size, and ends", async () => {
    for (const slice of [1, 3, 8, 1000]) {
      const sink = new FakeSink(1_000_000);
      await writeParts(sink, parts, slice);
      expect(sink.text()).toBe(whole);
      expect(Math.max(...sink.written.map((w) => w.byteLength))).toBeLessThanOrEqual(slice);
      expect(sink.ended).toBe(true);
    }
  });

  it("waits for 'drain' after a write the socket did not take at once", async () => {
    const sink = new FakeSink(2);
    const done = writeParts(sink, parts, 4);
    await new Promise((r) => setImmediate(r));
    // Two slices taken, the second reported full: nothing more until 'drain'.
    expect(sink.written.length).toBe(2);
    expect(sink.ended).toBe(false);
    await pump(sink, done);
    await done;
    expect(sink.text()).toBe(whole);
    expect(sink.ended).toBe(true);
    expect(sink.listenerCount("drain") + sink.listenerCount("close")).toBe(0);
  });

  it("stops writing when the client goes away while it waits", async () => {
    const sink = new FakeSink(1);
    const done = writeParts(sink, parts, 4);
    await new Promise((r) => setImmediate(r));
    sink.destroyed = true;
    sink.emit("close");
    await done;
    expect(sink.written.length).toBe(1);
    expect(sink.ended).toBe(false);
    expect(sink.listenerCount("drain") + sink.listenerCount("close")).toBe(0);
  });

  it("refuses a slice size that is not positive", async () => {
    await expect(writeParts(new FakeSink(1), parts, 0)).rejects.toThrow(/not positive/);
  });
});
