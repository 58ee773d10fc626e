/** Shared listings: one in-flight call per key, raw members spliced into valid JSON. */
import { describe, expect, it } from "vitest";
import { RawMembers, rawBody, singleFlight } from "../../../src/net/rest/raw-json.ts";

describe("raw-json", () => {
  it("shares one in-flight call per key, and starts afresh once it is done", async () => {
    const flight = singleFlight<number>();
    let calls = 0;
    let release: (v: number) => void = () => {};
    const f = () => {
      calls++;
      return new Promise<number>((r) => (release = r));
    };
    const a = flight("k", f);
    const b = flight("k", f);
    const other = flight("other", () => Promise.resolve(7));
    release(42);
    expect(await Promise.all([a, b, other])).toEqual([42, 42, 7]);
    expect(calls).toBe(1);
    const c = flight("k", f);
    release(43);
    expect(await c).toBe(43);
    expect(calls).toBe(2);
  });

  it("splices raw members into the envelope as valid JSON", () => {
    const body = rawBody(new RawMembers('"jobs":[{"a":1}]', { last_update: 5 }) as RawMembers & { text: string }, { errors: [], warnings: [] });
    expect(JSON.parse(body)).toEqual({ jobs: [{ a: 1 }], last_update: 5, errors: [], warnings: [] });
    expect(JSON.parse(rawBody(new RawMembers('"x":1', {}) as RawMembers & { text: string }, {}))).toEqual({ x: 1 });
  });

  it("sends members given as UTF-8 chunks byte for byte as the text form", () => {
    const text = '"jobs":[{"a":"ü"},{"b":2}]';
    const chunks = [Buffer.from('"jobs":['), Buffer.from('{"a":"ü"}'), Buffer.from(","), Buffer.from('{"b":2}'), Buffer.from("]")];
    const env = { errors: [], warnings: [] };
    const bytes = rawBody(new RawMembers(chunks, { last_update: 5 }), env);
    expect(bytes).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(bytes as Uint8Array).toString("utf8")).toBe(rawBody(new RawMembers(text, { last_update: 5 }) as RawMembers & { text: string }, env));
  });
});
