/**
 * @module raft/driver/apply
 * Applying committed entries in order and answering their proposers. Failure policy: an entry
 * the application cannot apply (or decode) is skipped, identically on every replica, instead of
 * wedging the cluster (see skipFailed).
 */
import { assert } from "../../lib/assert.ts";
import type { Entry } from "../core/index.ts";
import { type Envelope, decoder } from "./api.ts";
import type { DriverContext } from "./context.ts";
import type { Outcome, Proposals } from "./proposals.ts";

export interface Applier {
  apply(e: Entry): void;
  /** Committed entries this replica could not apply and skipped. */
  failures(): number;
}

export function createApplier(ctx: DriverContext, proposals: Proposals): Applier {
  let failures = 0;

  /**
   * A committed entry the application could not apply (or decode) must not wedge the
   * cluster: stopping here would stop every replica on the same entry, and every restart
   * would replay it and stop again. It is recorded (logged once here, counted) and
   * skipped, identically on every replica, since every replica applies the same entries
   * in the same order. The application is responsible for not half-applying it: Spur's
   * apply() validates before it mutates and never throws (sched/model/apply.ts).
   */
  function skipFailed(e: Entry, error: unknown): Error {
    failures += 1;
    ctx.ports.onEntrySkipped?.(e.index);
    ctx.ports.logger?.warn({ message: "committed entry not applied: skipped", index: e.index, term: e.term, error: String((error as Error).stack ?? error) });
    return new Error(`entry ${e.index} could not be applied: ${String((error as Error).message ?? error)}`);
  }

  function apply(e: Entry): void {
    assert(e.index === ctx.appliedIndex + 1, `apply ${e.index} right after ${ctx.appliedIndex}`);
    ctx.appliedIndex = e.index;
    if (e.type !== "normal" || e.data.length === 0) return;
    let env: Envelope | undefined;
    let outcome: Outcome;
    try {
      env = JSON.parse(decoder.decode(e.data)) as Envelope;
      outcome = { ok: true, value: ctx.ports.applyCommand(env.c, e.index) };
    } catch (error) {
      outcome = { ok: false, error: skipFailed(e, error) };
    }
    if (env !== undefined) proposals.settle(env.p, outcome);
  }

  return { apply, failures: () => failures };
}
