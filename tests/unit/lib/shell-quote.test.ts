import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { shellQuote, shellQuoteIfNeeded } from "../../../src/lib/shell-quote.ts";

const WORDS = ["plain", "it's", "a b", "$HOME", "`id`", "'", "", "x\ny", "\\", "--flag=1,2"];

describe("lib/shell-quote", () => {
  it("sh reads every quoted word back unchanged", () => {
    for (const quote of [shellQuote, shellQuoteIfNeeded]) {
      const script = WORDS.map((w) => `printf '%s\\0' ${quote(w)}`).join("; ");
      const r = spawnSync("/bin/sh", ["-c", script], { encoding: "utf8" });
      expect(r.stdout.split("\0").slice(0, -1)).toEqual(WORDS);
    }
  });
  it("leaves plain words bare only in the IfNeeded form", () => {
    expect(shellQuoteIfNeeded("wg0.conf")).toBe("wg0.conf");
    expect(shellQuote("wg0.conf")).toBe("'wg0.conf'");
  });
});
