/**
 * @module ctld/replay
 * Single-controller restart: every command of the local log goes through apply()
 * again, in order. apply() is total, so an entry it cannot apply (APPLY_FAILED: a
 * bug, or a command written by a newer version) is skipped exactly as it was when
 * it was first applied, logged once with its index, and the replay goes on: the
 * daemon never stays down on one bad entry (issue 14: a restart used to replay the
 * same entry and die again, for good). Purges replayed write their jobs to the archive
 * again (job-archive.ts: an idempotent upsert).
 */
import { APPLY_FAILED, apply } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState } from "../sched/model/types.ts";
import type { JobArchive } from "./job-archive.ts";

export interface ReplayOutcome {
  replayed: number;
  /** Log indexes of the entries that apply() refused as APPLY_FAILED. */
  failed: number[];
}

export function replayLog(
  state: ClusterState,
  entries: Iterable<{ index: number; command: Command }>,
  warn: (o: object) => void,
  archive?: Pick<JobArchive, "put">,
): ReplayOutcome {
  const out: ReplayOutcome = { replayed: 0, failed: [] };
  for (const { index, command } of entries) {
    const result = apply(state, command);
    out.replayed++;
    // A purge replayed writes the same rows again (an upsert): the archive ends as it was, whatever a crash cut short.
    if (result.purged !== undefined) archive?.put(result.purged);
    if (result.errorCode === APPLY_FAILED) {
      out.failed.push(index);
      warn({ message: "log entry not applied (skipped, as when it was first applied)", index, error: result.error });
    }
  }
  return out;
}
