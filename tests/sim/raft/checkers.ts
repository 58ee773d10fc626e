/**
 * @module sim/raft/checkers
 * Raft's safety properties (Figure 3) checked incrementally after every simulator step:
 * election safety, log matching, leader completeness, state machine safety, plus "a dropped
 * proposal never applies". Each check looks only at what the step changed, so it stays cheap.
 */
import type { Entry, Ready, Snapshot } from "../../../src/raft/core/types.ts";
import type { SimReplica } from "./replica.ts";

export class SafetyViolation extends Error {}

function fail(message: string): never {
  throw new SafetyViolation(message);
}

interface EntryKey {
  prevTerm: number;
  data: Uint8Array;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}

export class SafetyChecker {
  private readonly leaderOfTerm = new Map<number, number>();
  /** index -> term of the entry known committed there (from any replica's commit index). */
  private readonly committedTerm: number[] = [];
  /** index -> lowest term at which some replica was seen holding it committed. */
  private readonly committedAtTerm: number[] = [];
  maxCommitted = 0;
  /** "index:term" -> (previous term, payload): equal keys must agree (log matching). */
  private readonly entryKeys = new Map<string, EntryKey>();
  /** index -> (term, state hash after applying it) as first applied anywhere. */
  private readonly appliedTerm: number[] = [];
  private readonly appliedHash: number[] = [];
  private readonly recordedCommit = new Map<number, number>();
  private readonly checkedLeaders = new Set<string>();
  /** Op ids in the order they first took effect (the linearization order of writes). */
  readonly opOrder: number[] = [];
  private readonly opSeen = new Set<number>();
  readonly droppedOps = new Set<number>();

  /** After any step that touched `replica`: election safety, commits, leader completeness. */
  afterStep(replica: SimReplica): void {
    const node = replica.node;
    if (node === undefined) return;
    const s = node.basicStatus();
    if (s.state === "leader") {
      const other = this.leaderOfTerm.get(s.term);
      if (other !== undefined && other !== s.id) fail(`election safety: ${other} and ${s.id} both lead term ${s.term}`);
      this.leaderOfTerm.set(s.term, s.id);
    }
    this.recordCommits(replica, s.commit, s.term);
    if (s.state === "leader" && !this.checkedLeaders.has(`${s.id}:${s.term}`)) {
      this.checkedLeaders.add(`${s.id}:${s.term}`);
      this.checkLeaderCompleteness(replica, s.term);
    }
  }

  /** A replica's commit index may drop after a restart (unsynced commit); record from there. */
  restarted(replica: SimReplica): void {
    const commit = replica.node?.basicStatus().commit ?? 0;
    this.recordedCommit.set(replica.id, Math.min(this.recordedCommit.get(replica.id) ?? 0, commit));
  }

  private recordCommits(replica: SimReplica, commit: number, term: number): void {
    const node = replica.node;
    if (node === undefined) return;
    const from = this.recordedCommit.get(replica.id) ?? 0;
    if (commit <= from) return;
    for (let i = from + 1; i <= commit; i++) {
      const t = node.termAt(i);
      if (t === undefined) continue; // compacted into a snapshot: checked when it was applied
      const known = this.committedTerm[i];
      if (known !== undefined && known !== t) fail(`committed entry ${i} changed term ${known} -> ${t} on ${replica.id}`);
      this.committedTerm[i] = t;
      const at = this.committedAtTerm[i];
      if (at === undefined || term < at) this.committedAtTerm[i] = term;
    }
    if (commit > this.maxCommitted) this.maxCommitted = commit;
    this.recordedCommit.set(replica.id, commit);
  }

  /** A leader of term T holds every entry committed in an earlier term (§5.4). */
  private checkLeaderCompleteness(replica: SimReplica, term: number): void {
    const node = replica.node;
    if (node === undefined) return;
    const st = node.status();
    for (let i = Math.max(1, st.firstIndex - 1); i <= this.maxCommitted; i++) {
      const at = this.committedAtTerm[i];
      if (at === undefined || at >= term) continue;
      const t = node.termAt(i);
      if (t !== this.committedTerm[i]) fail(`leader completeness: leader ${replica.id} of term ${term} has term ${t} at committed ${i} (want ${this.committedTerm[i]})`);
    }
  }

  /** Log matching: the same (index, term) always carries the same entry and predecessor. */
  persisting(replica: SimReplica, rd: Ready): void {
    const node = replica.node;
    if (node === undefined) return;
    let prevTerm = rd.entries.length > 0 ? node.termAt((rd.entries[0] as Entry).index - 1) : undefined;
    for (const e of rd.entries) {
      const key = `${e.index}:${e.term}`;
      const seen = this.entryKeys.get(key);
      if (seen === undefined) {
        if (prevTerm !== undefined) this.entryKeys.set(key, { prevTerm, data: e.data });
      } else {
        if (prevTerm !== undefined && seen.prevTerm !== prevTerm) fail(`log matching: ${key} follows term ${prevTerm} on ${replica.id}, ${seen.prevTerm} elsewhere`);
        if (!sameBytes(seen.data, e.data)) fail(`log matching: ${key} has different payloads`);
      }
      prevTerm = e.term;
    }
  }

  /** State machine safety: every replica applies the same entry (and reaches the same state) at each index. */
  appliedEntry(replica: SimReplica, entry: Entry, opId: number | undefined): void {
    const i = entry.index;
    const t = this.appliedTerm[i];
    if (t !== undefined && t !== entry.term) fail(`state machine safety: ${replica.id} applied term ${entry.term} at ${i}, others ${t}`);
    const h = this.appliedHash[i];
    if (h !== undefined && h !== replica.app.hash) fail(`state machine safety: ${replica.id} state differs after ${i}`);
    this.appliedTerm[i] = entry.term;
    this.appliedHash[i] = replica.app.hash;
    if (opId !== undefined) {
      if (this.droppedOps.has(opId)) fail(`op ${opId} applied although its proposal was dropped`);
      if (!this.opSeen.has(opId)) {
        this.opSeen.add(opId);
        this.opOrder.push(opId);
      }
    }
  }

  appliedSnapshot(replica: SimReplica, snapshot: Snapshot): void {
    const i = snapshot.meta.index;
    const t = this.appliedTerm[i];
    if (t !== undefined && t !== snapshot.meta.term) fail(`snapshot at ${i} on ${replica.id} has term ${snapshot.meta.term}, applied ${t}`);
    const h = this.appliedHash[i];
    if (h !== undefined && h !== replica.app.hash) fail(`snapshot state at ${i} on ${replica.id} differs from applied state`);
    this.appliedTerm[i] = snapshot.meta.term;
    this.appliedHash[i] = replica.app.hash;
  }
}
