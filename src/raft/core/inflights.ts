/**
 * @module raft/core/inflights
 * A bounded window of appends sent to one follower but not yet acknowledged, by count and
 * by payload bytes: the flow control behind maxInflightMsgs / maxInflightBytes. A ring
 * buffer, so a busy follower costs no allocation per message.
 */
import { assert } from "../../lib/assert.ts";
import type { LogIndex } from "./types.ts";

export class Inflights {
  private readonly capacity: number;
  private readonly maxBytes: number;
  private readonly indexes: LogIndex[];
  private readonly sizes: number[];
  private start = 0;
  count = 0;
  bytes = 0;

  /** maxBytes 0 means no byte limit. */
  constructor(capacity: number, maxBytes: number) {
    assert(capacity > 0, "inflight capacity must be positive");
    this.capacity = capacity;
    this.maxBytes = maxBytes;
    this.indexes = new Array<LogIndex>(capacity).fill(0);
    this.sizes = new Array<number>(capacity).fill(0);
  }

  /** Record an append whose last entry is `index` (indexes must increase). */
  add(index: LogIndex, bytes: number): void {
    assert(!this.full(), "inflights full");
    const last = this.count === 0 ? -1 : this.indexes[(this.start + this.count - 1) % this.capacity];
    assert(last === undefined || index > last, `inflight index ${index} not increasing`);
    const slot = (this.start + this.count) % this.capacity;
    this.indexes[slot] = index;
    this.sizes[slot] = bytes;
    this.count++;
    this.bytes += bytes;
  }

  /** The follower acknowledged everything up to `to`: free those slots. */
  freeLE(to: LogIndex): void {
    while (this.count > 0) {
      const idx = this.indexes[this.start] as LogIndex;
      if (idx > to) break;
      this.bytes -= this.sizes[this.start] as number;
      this.start = (this.start + 1) % this.capacity;
      this.count--;
    }
    if (this.count === 0) this.start = 0;
    assert(this.bytes >= 0, "inflight bytes non-negative");
  }

  full(): boolean {
    return this.count === this.capacity || (this.maxBytes > 0 && this.bytes >= this.maxBytes);
  }

  reset(): void {
    this.start = 0;
    this.count = 0;
    this.bytes = 0;
  }
}
