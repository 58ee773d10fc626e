/**
 * @module tests/conformance/known-differences
 * Scenarios where Spur is known to differ from real Slurm 22.05, each with what
 * differs and why ("Spur bug: ...", "Spur lacks: ...", "22.05 vs 26.x table: ...").
 * A listed scenario passes only while it still differs, and, for a pinned entry,
 * only with exactly the diff in known/pinned-diffs.json; an entry that stops
 * differing fails (remove it), so the list stays honest.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { EXTRA_KNOWN } from "./known/extra.ts";
import { GOLDEN_KNOWN } from "./known/golden.ts";
import type { KnownEntry } from "./known/why.ts";

export interface KnownDifference extends KnownEntry {
  /** The exact normalised diff ("-" real Slurm, "+" Spur), for pinned entries. */
  diff?: string[];
}

export const PINNED_DIFFS_PATH = resolve(__dirname, "known/pinned-diffs.json");

const pins = JSON.parse(readFileSync(PINNED_DIFFS_PATH, "utf8")) as Record<string, string[]>;

export const KNOWN_DIFFERENCES: KnownDifference[] = [...GOLDEN_KNOWN, ...EXTRA_KNOWN].map((k) => {
  const diff = k.pinned === false ? undefined : pins[k.id];
  return diff ? { ...k, diff } : k;
});
