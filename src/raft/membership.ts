/**
 * @module raft/membership
 * Adding and removing a controller replica at run time, on the leader, one server at a time
 * (thesis §4.1): a new replica joins as a learner (it replicates, never votes), is promoted to
 * voter only once its match index is within `catchUpEntries` of the leader's last index, and a
 * voter is removed only when the remaining voters still form a safe quorum.
 * Failure policy: every refusal is a MembershipError with a message for the operator; a change
 * whose commit could not be confirmed (failover) is reported as such, never retried blindly.
 * A learner that never catches up within `catchUpTimeoutMs` stays a learner (reported), so
 * the operator can remove it or retry; it never counts toward any quorum.
 */
import type { Clock } from "../lib/clock.ts";
import { systemClock } from "../lib/system-clock.ts";
import type { ConfState, NodeId } from "./core/index.ts";
import { ProposalError, RaftChangeError, type RaftDriver } from "./driver.ts";

/** Voters kept by a removal unless forced: three survive the loss of one. */
export const MIN_SAFE_VOTERS = 3;

export interface AddOptions {
  /** The learner is promoted once its match index is at most this far behind the leader's last index. */
  catchUpEntries: number;
  catchUpTimeoutMs: number;
  pollMs: number;
  /** Time for the deadline and the polls (simulated in tests). */
  clock: Clock;
}

export const DEFAULT_ADD_OPTIONS: AddOptions = { catchUpEntries: 100, catchUpTimeoutMs: 60_000, pollMs: 20, clock: systemClock };

export class MembershipError extends Error {
  constructor(
    readonly code: "NotLeader" | "Refused" | "Timeout" | "Pending",
    message: string,
  ) {
    super(message);
  }
}

const sleep = (clock: Clock, ms: number) => new Promise<void>((res) => clock.setTimeout(res, ms));

/** Add `id` (address in `context`) as a learner, wait for it to catch up, promote it to voter. */
export async function addReplica(driver: RaftDriver, id: NodeId, context: string, options: Partial<AddOptions> = {}): Promise<ConfState> {
  const o = { ...DEFAULT_ADD_OPTIONS, ...options };
  const st = driver.status();
  if (!driver.isServing()) throw new MembershipError("NotLeader", "not the leader");
  if (st.confState.voters.includes(id)) throw new MembershipError("Refused", `controller ${id} is already a voter`);
  const clock = o.clock;
  const deadline = clock.now() + o.catchUpTimeoutMs;
  if (!st.confState.learners.includes(id)) await retryTransient(clock, () => driver.changeMembership({ type: "add-learner", nodeId: id, context }), deadline, o.pollMs);
  for (;;) {
    const now = driver.status();
    if (now.state !== "leader") throw new MembershipError("NotLeader", `lost leadership while controller ${id} was catching up; it stays a learner (run the command again)`);
    const pr = now.progress.get(id);
    if (pr !== undefined && pr.match >= now.lastIndex - o.catchUpEntries && pr.match >= now.commit) {
      try {
        return await driver.changeMembership({ type: "add-node", nodeId: id, context });
      } catch (e) {
        // Behind again (the log moved on between our check and the proposal), or a transient
        // refusal (a leadership hand-over, a change still applying): keep waiting.
        if (!(e instanceof RaftChangeError && TRANSIENT.has(e.code))) throw translate(e);
      }
    }
    if (clock.now() > deadline) {
      throw new MembershipError("Timeout", `controller ${id} did not catch up within ${o.catchUpTimeoutMs} ms (match ${pr?.match ?? 0}, leader at ${now.lastIndex}); it stays a learner: check that it runs and that its Raft port is reachable, or remove it`);
    }
    await sleep(clock, o.pollMs);
  }
}

/** Why removing `id` now would be unsafe, or undefined when it is allowed. Pure. */
export function removalRefusal(conf: ConfState, activeVoters: readonly NodeId[], id: NodeId, force: boolean): string | undefined {
  if (conf.learners.includes(id)) return undefined;
  if (!conf.voters.includes(id)) return `controller ${id} is not a member (voters ${conf.voters.join(",")}${conf.learners.length > 0 ? `, learners ${conf.learners.join(",")}` : ""})`;
  const rest = conf.voters.filter((v) => v !== id);
  if (rest.length === 0) return "cannot remove the last controller";
  if (rest.length < MIN_SAFE_VOTERS && !force) {
    return `removing controller ${id} would leave ${rest.length} voting controller${rest.length === 1 ? "" : "s"}, fewer than ${MIN_SAFE_VOTERS}: the cluster could then not survive losing one more (add a controller first, or use --force)`;
  }
  const quorum = Math.floor(rest.length / 2) + 1;
  const reachable = rest.filter((v) => activeVoters.includes(v)).length;
  if (reachable < quorum) return `removing controller ${id} would leave ${reachable} reachable of ${rest.length} voters, fewer than the ${quorum} needed for a quorum`;
  return undefined;
}

/** Remove voter or learner `id` (the leader itself included: it then steps down). */
export async function removeReplica(driver: RaftDriver, id: NodeId, force = false, clock: Clock = systemClock): Promise<ConfState> {
  // A new leader learns who is reachable within a heartbeat or two: give it that long.
  const settleBy = clock.now() + 1_000;
  for (;;) {
    if (!driver.isServing()) throw new MembershipError("NotLeader", "not the leader");
    const st = driver.status();
    const active = [...st.progress].filter(([v, pr]) => v === st.id || pr.recentActive).map(([v]) => v);
    const refused = removalRefusal(st.confState, active, id, force);
    if (refused === undefined) break;
    if (!refused.includes("reachable") || clock.now() > settleBy) throw new MembershipError("Refused", refused);
    await sleep(clock, 20);
  }
  return retryTransient(clock, () => driver.changeMembership({ type: "remove-node", nodeId: id }), clock.now() + 2_000, 20);
}

/** Core refusals that pass on their own: a hand-over in progress, a change applying, a learner a little behind. */
const TRANSIENT = new Set(["ProposalDropped", "ConfChangePending", "LearnerBehind"]);

async function retryTransient(clock: Clock, run: () => Promise<ConfState>, deadline: number, pollMs: number): Promise<ConfState> {
  for (;;) {
    try {
      return await run();
    } catch (e) {
      if (!(e instanceof RaftChangeError && TRANSIENT.has(e.code)) || clock.now() > deadline) throw translate(e);
    }
    await sleep(clock, pollMs);
  }
}

function translate(e: unknown): unknown {
  if (e instanceof ProposalError && e.reason === "not-leader") return new MembershipError("NotLeader", "not the leader");
  if (!(e instanceof RaftChangeError)) return e;
  if (e.code === "ConfChangePending") return new MembershipError("Pending", "another membership change is still being applied: try again in a moment");
  if (e.code === "NotLeader") return new MembershipError("NotLeader", "not the leader");
  if (e.code === "ProposalDropped") return new MembershipError("Pending", `${e.message}: try again in a moment`);
  return new MembershipError("Refused", e.message);
}
