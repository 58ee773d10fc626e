/**
 * @module raft/core/confchange
 * Membership changes one server at a time (thesis §4.1): a new server joins as a learner,
 * is promoted only once it has caught up, and a leader proposes no change while another is
 * unapplied or before its own term has committed. Changes take effect when applied.
 */
import { assert } from "../../lib/assert.ts";
import { type Result, err, ok } from "../../lib/result.ts";
import { bcastAppend, maybeCommit, maybeSendAppend, members } from "./replicate.ts";
import { type RaftState, appendEntries, becomeFollower } from "./state.ts";
import { type ConfChange, type Entry, NONE, RaftErrorCode } from "./types.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeConfChange(cc: ConfChange): Uint8Array {
  return encoder.encode(JSON.stringify(cc.context === undefined ? { type: cc.type, nodeId: cc.nodeId } : { type: cc.type, nodeId: cc.nodeId, context: cc.context }));
}

export function decodeConfChange(data: Uint8Array): ConfChange {
  const v = JSON.parse(decoder.decode(data)) as Partial<ConfChange>;
  assert(v.type === "add-learner" || v.type === "add-node" || v.type === "remove-node", "conf change type");
  assert(typeof v.nodeId === "number" && v.nodeId > 0, "conf change node id");
  return typeof v.context === "string" ? { type: v.type, nodeId: v.nodeId, context: v.context } : { type: v.type, nodeId: v.nodeId };
}

/**
 * The log a brand-new cluster starts from (etcd's Bootstrap): one committed "add-node" per
 * initial voter at term 1. Servers added later replay these, so every replica learns the
 * initial membership from the log itself rather than from out-of-band configuration.
 */
export function bootstrapEntries(voters: readonly number[]): Entry[] {
  return voters.map((id, i) => ({ term: 1, index: i + 1, type: "conf-change" as const, data: encodeConfChange({ type: "add-node", nodeId: id }) }));
}

/** Why `cc` may not be proposed now, or undefined when it may. */
function refusal(r: RaftState, cc: ConfChange): Result<never> | undefined {
  const t = r.tracker;
  if (r.state !== "leader") return err(RaftErrorCode.notLeader, "not the leader");
  if (r.leadTransferee !== NONE) return err(RaftErrorCode.proposalDropped, "leadership transfer in progress");
  if (r.pendingConfIndex > r.log.applied) return err(RaftErrorCode.confChangePending, "a membership change is still being applied");
  if (!(cc.nodeId > 0)) return err(RaftErrorCode.badConfChange, "node id must be positive");
  const pr = t.progress.get(cc.nodeId);
  if (cc.type === "add-learner" && pr !== undefined) return err(RaftErrorCode.badConfChange, `node ${cc.nodeId} is already a member`);
  if (cc.type === "remove-node") {
    if (pr === undefined) return err(RaftErrorCode.badConfChange, `node ${cc.nodeId} is not a member`);
    if (!pr.isLearner && t.voters.length === 1) return err(RaftErrorCode.badConfChange, "cannot remove the last voter");
  }
  if (cc.type === "add-node") {
    if (pr === undefined || !pr.isLearner) return err(RaftErrorCode.badConfChange, `node ${cc.nodeId} must join as a learner first`);
    // Promoting a lagging learner would add a voter that cannot help commit for a while.
    if (pr.match < r.log.committed) return err(RaftErrorCode.learnerBehind, `learner ${cc.nodeId} has not caught up`);
  }
  return undefined;
}

/** Leader: append a conf-change entry for `cc` if allowed. */
export function proposeConfChange(r: RaftState, cc: ConfChange): Result<void> {
  const refused = refusal(r, cc);
  if (refused !== undefined) return refused;
  if (!appendEntries(r, [{ type: "conf-change", data: encodeConfChange(cc) }])) {
    return err(RaftErrorCode.proposalDropped, "too many uncommitted entries");
  }
  r.pendingConfIndex = r.log.lastIndex();
  bcastAppend(r);
  return ok(undefined);
}

/** Apply a committed conf-change entry (called from advance(), in log order). */
export function applyConfChangeEntry(r: RaftState, entry: Entry): void {
  assert(entry.type === "conf-change", "conf change entry");
  if (entry.index <= r.confIndex) return; // already reflected (a restored snapshot covers it)
  const cc = decodeConfChange(entry.data);
  const t = r.tracker;
  const pr = t.progress.get(cc.nodeId);
  if (cc.type === "add-learner" && pr === undefined) t.addMember(cc.nodeId, true, r.log.lastIndex());
  if (cc.type === "add-node") {
    if (pr === undefined) t.addMember(cc.nodeId, false, r.log.lastIndex());
    else if (pr.isLearner) t.promote(cc.nodeId);
  }
  if (cc.type === "remove-node" && pr !== undefined) t.removeMember(cc.nodeId);
  r.confIndex = entry.index;
  afterConfChange(r);
}

function afterConfChange(r: RaftState): void {
  if (r.state !== "leader") return;
  if (!r.tracker.isVoter(r.id)) {
    // We were removed: stop leading; the remaining voters elect a new leader.
    becomeFollower(r, r.term, NONE);
    return;
  }
  if (r.leadTransferee !== NONE && !r.tracker.isVoter(r.leadTransferee)) r.leadTransferee = NONE;
  // A smaller quorum may commit more; a new member needs its first append.
  if (maybeCommit(r)) bcastAppend(r);
  else for (const id of members(r)) if (id !== r.id) maybeSendAppend(r, id, false);
}
