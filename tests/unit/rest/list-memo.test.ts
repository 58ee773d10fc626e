/**
 * spurrestd's memo of what it built from the controller's last full list (rest/list-memo.ts):
 * served only while the controller says that very list is unchanged, one list at a time.
 */
import { describe, expect, it } from "vitest";
import { createListMemo } from "../../../src/net/rest/list-memo.ts";

describe("createListMemo", () => {
  it("serves a kept result only for listUnchanged of its own version and shape", () => {
    const memo = createListMemo<string>();
    expect(memo.version()).toBe("");
    memo.put("a.1", "v45", "bytes45");
    expect(memo.version()).toBe("a.1");
    expect(memo.get({ listUnchanged: true, listVersion: "a.1" }, "v45")).toBe("bytes45");
    expect(memo.get({ listUnchanged: true, listVersion: "a.1" }, "v44")).toBeUndefined();
    expect(memo.get({ listVersion: "a.1" }, "v45")).toBeUndefined();
    expect(memo.get({ listUnchanged: true, listVersion: "a.2" }, "v45")).toBeUndefined();
  });

  it("drops the old version's results when a new list is kept, and never keeps an unversioned one", () => {
    const memo = createListMemo<string>();
    memo.put("a.1", "v45", "old");
    memo.put("a.2", "v44", "new");
    expect(memo.get({ listUnchanged: true, listVersion: "a.2" }, "v45")).toBeUndefined();
    expect(memo.get({ listUnchanged: true, listVersion: "a.2" }, "v44")).toBe("new");
    memo.put("", "v44", "unversioned");
    expect(memo.version()).toBe("a.2");
    expect(memo.get({ listUnchanged: true, listVersion: "a.2" }, "v44")).toBe("new");
  });

  it("keeps at most shapesMax results under one version", () => {
    const memo = createListMemo<number>(2);
    memo.put("v", "a", 1);
    memo.put("v", "b", 2);
    memo.put("v", "c", 3);
    expect(memo.get({ listUnchanged: true, listVersion: "v" }, "c")).toBeUndefined();
    expect(memo.get({ listUnchanged: true, listVersion: "v" }, "a")).toBe(1);
  });
});
