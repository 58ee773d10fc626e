/**
 * A full disk must change nothing: the log keeps its end, no row is written, nothing is
 * applied, the caller hears ENOSPC, and once there is room again appends continue with no
 * gap (a gap made every later answer "internal error", also after a restart).
 * The "disk" is SQLite's max_page_count, which fails writes exactly as a full file system does.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openLogStore } from "../../../src/ctld/log-store.ts";
import { isDiskFull, NO_SPACE_MESSAGE, StoreFullError } from "../../../src/lib/store-full.ts";
import type { Command } from "../../../src/sched/model/commands.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempLog(): string {
  const d = mkdtempSync(join(tmpdir(), "spur-logfull-"));
  dirs.push(d);
  return join(d, "state-log.sqlite");
}
const cmd = (i: number): Command => ({ v: 1, type: "nodeFail", at: i, node: `n${i}`, reason: "x".repeat(2000) }) as unknown as Command;

/** Append until the store refuses; returns how many went in. */
function fill(log: ReturnType<typeof openLogStore>): { stored: number; error: unknown } {
  for (let i = 1; i < 10_000; i++) {
    try {
      log.append(cmd(i));
    } catch (error) {
      return { stored: i - 1, error };
    }
  }
  throw new Error("the capped store never filled up");
}

describe("log store on a full disk", () => {
  it("a refused append leaves the log as it was and says ENOSPC", () => {
    const log = openLogStore(tempLog(), { maxPageCount: 12 });
    const { stored, error } = fill(log);
    expect(stored).toBeGreaterThan(0);
    expect(error).toBeInstanceOf(StoreFullError);
    expect((error as Error).message).toBe(NO_SPACE_MESSAGE);
    expect(isDiskFull(error)).toBe(true);
    expect(log.lastIndex()).toBe(stored);
    // Retrying while still full changes nothing either.
    expect(() => log.append(cmd(99))).toThrow(NO_SPACE_MESSAGE);
    expect(log.lastIndex()).toBe(stored);
    const indexes = [...log.entries()].map((e) => e.index);
    expect(indexes).toEqual(Array.from({ length: stored }, (_, i) => i + 1));
    log.close();
  });

  it("once there is room again the log continues with no gap, also after a restart", () => {
    const path = tempLog();
    const full = openLogStore(path, { maxPageCount: 12 });
    const { stored } = fill(full);
    full.close();
    const roomy = openLogStore(path); // space returned
    expect(roomy.lastIndex()).toBe(stored);
    expect(roomy.append(cmd(500))).toBe(stored + 1);
    roomy.close();
    const again = openLogStore(path);
    const indexes = [...again.entries()].map((e) => e.index);
    expect(indexes).toEqual(Array.from({ length: stored + 1 }, (_, i) => i + 1));
    again.close();
  });

  it("a group commit that does not fit stores none of its commands, and the log goes on with no gap", () => {
    const log = openLogStore(tempLog(), { maxPageCount: 12 });
    const { stored } = fill(log);
    expect(() => log.appendMany([cmd(1), cmd(2), cmd(3)])).toThrow(NO_SPACE_MESSAGE);
    expect(log.lastIndex()).toBe(stored);
    expect([...log.entries()]).toHaveLength(stored);
    log.close();
  });

  it("a group commit gets consecutive indexes after the last append", () => {
    const log = openLogStore(tempLog());
    expect(log.append(cmd(1))).toBe(1);
    expect(log.appendMany([cmd(2), cmd(3), cmd(4)])).toBe(2);
    expect(log.append(cmd(5))).toBe(5);
    expect([...log.entries()].map((e) => [e.index, (e.command as unknown as { at: number }).at])).toEqual([[1, 1], [2, 2], [3, 3], [4, 4], [5, 5]]);
    log.close();
  });

  it("tells a full disk from other failures", () => {
    expect(isDiskFull({ code: "SQLITE_FULL" })).toBe(true);
    expect(isDiskFull({ code: "ENOSPC" })).toBe(true);
    expect(isDiskFull(new Error("database or disk is full"))).toBe(true);
    expect(isDiskFull(new Error("SQLITE_CORRUPT"))).toBe(false);
    expect(isDiskFull(undefined)).toBe(false);
  });
});
