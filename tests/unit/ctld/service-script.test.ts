/**
 * Who may read a batch job's script (ctld/service-script): its owner, root and the
 * operators (SpurOperators=); nobody else, whatever their name looks like.
 */
import { describe, expect, it } from "vitest";
import { mayReadScript } from "../../../src/ctld/service-script.ts";

describe("mayReadScript", () => {
  const ownerUid = 1001;
  it("lets the owner, root and an operator read it", () => {
    expect(mayReadScript({ uid: 1001, user: "alice" }, ownerUid, [])).toBe(true);
    expect(mayReadScript({ uid: 0, user: "root" }, ownerUid, [])).toBe(true);
    expect(mayReadScript({ uid: 1003, user: "op" }, ownerUid, ["op"])).toBe(true);
  });
  it("refuses anyone else", () => {
    expect(mayReadScript({ uid: 1002, user: "bob" }, ownerUid, ["op"])).toBe(false);
    expect(mayReadScript({ uid: 1002, user: "alice" }, ownerUid, [])).toBe(false);
  });
});
