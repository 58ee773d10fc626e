import { describe, expect, it } from "vitest";
import { ok } from "../../src/lib/result.ts";
import { Database } from "bun:sqlite";

describe("toolchain", () => {
  it("runs under bun with bun:sqlite", () => {
    const db = new Database(":memory:");
    expect(db.query("select 1 + 1 as v").get()).toEqual({ v: 2 });
    expect(ok(1)).toEqual({ ok: true, value: 1 });
  });
});
