/**
 * @module sim/raft/app
 * The replicated state machine of the simulation: an ordered set of client operation ids
 * (a counter whose value is the set's size). Duplicated proposals apply once, as a real
 * service dedupes by request id. A rolling hash lets checkers compare whole states cheaply.
 */
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export const OP_PREFIX = "op:";

export class CounterApp {
  ops: number[] = [];
  private readonly seen = new Set<number>();
  hash = 2166136261;

  /** Apply one committed payload; returns the op id applied (new or duplicate), if any. */
  apply(data: Uint8Array): number | undefined {
    if (data.byteLength === 0) return undefined;
    const text = decoder.decode(data);
    if (!text.startsWith(OP_PREFIX)) return undefined;
    const id = Number(text.slice(OP_PREFIX.length));
    if (!this.seen.has(id)) {
      this.seen.add(id);
      this.ops.push(id);
      this.hash = Math.imul(this.hash ^ id, 16777619) >>> 0;
    }
    return id;
  }

  has(id: number): boolean {
    return this.seen.has(id);
  }

  serialize(): Uint8Array {
    return encoder.encode(JSON.stringify(this.ops));
  }

  static restore(data: Uint8Array): CounterApp {
    const app = new CounterApp();
    if (data.byteLength === 0) return app;
    for (const id of JSON.parse(decoder.decode(data)) as number[]) app.apply(encoder.encode(OP_PREFIX + id));
    return app;
  }
}

export const encodeOp = (id: number): Uint8Array => encoder.encode(OP_PREFIX + id);
