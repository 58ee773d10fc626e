/**
 * @module raft/core/quorum
 * Majority arithmetic over one voter set (Spur changes membership one server at a time,
 * so no joint quorums): the committed index of a set of match indexes, and vote tallies.
 */
import type { LogIndex, NodeId } from "./types.ts";

export type VoteResult = "won" | "lost" | "pending";

export const majority = (voterCount: number): number => Math.floor(voterCount / 2) + 1;

/**
 * The highest index replicated on a majority of `voters`. An empty voter set commits
 * nothing special: it returns Infinity so joint-free callers never block on it (etcd's rule).
 */
export function committedIndex(voters: readonly NodeId[], matchOf: (id: NodeId) => LogIndex): LogIndex {
  const n = voters.length;
  if (n === 0) return Number.POSITIVE_INFINITY;
  const matches = voters.map(matchOf).sort((a, b) => b - a);
  // Sorted descending, the majority-th largest match is on at least a majority of voters.
  return matches[majority(n) - 1] as LogIndex;
}

/** Tally `votes` (true granted, false rejected, missing pending) among `voters`. */
export function voteResult(voters: readonly NodeId[], votes: ReadonlyMap<NodeId, boolean>): VoteResult {
  if (voters.length === 0) return "won";
  let granted = 0;
  let rejected = 0;
  for (const id of voters) {
    const v = votes.get(id);
    if (v === true) granted++;
    else if (v === false) rejected++;
  }
  const need = majority(voters.length);
  if (granted >= need) return "won";
  if (granted + (voters.length - granted - rejected) >= need) return "pending";
  return "lost";
}
