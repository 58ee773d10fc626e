/**
 * @module tests/conformance/known-differences
 * Scenarios where Spur is known to differ from real Slurm 22.05, each with what
 * differs and why ("Spur bug: ..." or "22.05 vs 26.x table: ..."). A listed
 * scenario passes only while it still differs (and, when `diff` is pinned, only
 * with exactly that diff); an entry that stops differing fails, so remove it.
 */

export interface KnownDifference {
  /** Scenario id (golden file name without .txt, or x-... for the extra scenarios). */
  id: string;
  /** What differs, in a few words. */
  differs: string;
  /** Why: "Spur bug: ...", "Spur lacks: ...", or "22.05 vs 26.x table: ...". */
  why: string;
  /** The exact normalised diff ("-" real Slurm, "+" Spur), when it is stable from run to run. */
  diff?: string[];
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [];
