/**
 * @module tests/conformance/known/why
 * Causes shared by many known differences, written once: each says whether it
 * is a Spur bug, something Spur lacks (with its issue), or a 22.05-vs-26.x
 * table difference (Spur follows ../shared/slurm-surface, i.e. Slurm 26.x).
 */

/** One known difference as listed (the pinned diff is attached by known-differences.ts). */
export interface KnownEntry {
  id: string;
  differs: string;
  why: string;
  /** false: the diff varies from run to run (on the oracle's side), so only "it differs" is checked. */
  pinned?: boolean;
  /** The scenario may also come out identical (the oracle's own timing decides); not reported stale. */
  flaky?: boolean;
  /** The issue that will remove the difference, when the shared cause (ISSUE_OF) does not say. */
  issue?: number;
}

export const WHY = {
  nodeFailRace:
    "Spur bug (fixed by commit 75b7ab7; kept for the runner's taint rule): src/agent/agent.ts reportEnded() declared a job NODE_FAIL (\"stepd lost\") when it ran between spawning the stepd and the stepd's exec (stepd.pid written, /proc/<pid>/cmdline not yet naming stepd); a stepd younger than the exec grace now counts as running",
  gres26:
    "22.05 vs 26.x table: TRES per node is printed gres/gpu:N in 26.x (22.05: gres:gpu:N)",
  accrue:
    "Spur shows AccrueTime=Unknown for a running array task (as golden 059 does); the live oracle shows a time in some runs",
  sacctListing:
    "two causes in one listing (not pinned: the oracle's own timing varies): the afterok:<unknown id> job of 083 runs in 22.05 and is refused by Spur (22.05 vs 26.x table), which shifts the numbering of every later job; and jobs cancelled before they ever became eligible (dep, needsok, heldcancel) sit elsewhere in the oracle's listing (slurmdbd appears to list them where it first recorded them, at their end; Spur lists by job id)",
  states26:
    "22.05 vs 26.x table: the list of valid states is 26.x's",
} as const;

/**
 * The issue that will remove each shared cause: 3 this suite (srun, environment, accounting
 * details), 5 scheduler (priority, backfill, placement, limits), 9 node agent. The 22.05 vs
 * 26.x causes have none: Spur follows the 26.x tables on purpose.
 */
export const ISSUE_OF: Partial<Record<keyof typeof WHY, number>> = {
  nodeFailRace: 9, accrue: 5, sacctListing: 5,
};

/** The issue an entry is listed under: its own, else its first shared cause's; undefined for 22.05 vs 26.x. */
export function issueOf(k: KnownEntry): number | undefined {
  if (k.issue !== undefined) return k.issue;
  for (const [key, text] of Object.entries(WHY)) if (k.why.startsWith(text)) return ISSUE_OF[key as keyof typeof WHY];
  return undefined;
}
