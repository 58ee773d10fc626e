/**
 * @module tests/unit/raft/transcript
 * Runs every tests/sim/raft/testdata/*.txt transcript and compares byte for byte.
 * `UPDATE_TRANSCRIPTS=1 bun --bun vitest run tests/unit/raft/transcript.test.ts` rewrites
 * them; review the diff like any other change.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runTranscript } from "../../sim/raft/transcript.ts";

const dir = join(import.meta.dirname, "../../sim/raft/testdata");

describe("raft transcripts", () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith(".txt")).sort()) {
    it(file, () => {
      const path = join(dir, file);
      const want = readFileSync(path, "utf8");
      const got = runTranscript(want);
      if (process.env.UPDATE_TRANSCRIPTS === "1") writeFileSync(path, got);
      else expect(got).toBe(want);
    });
  }
});
