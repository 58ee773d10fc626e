/**
 * @module sched/acct/purged-usage-types
 * The shape of state.purgedUsage (purged-usage.ts), a leaf so that the state's types can name
 * it without importing the code that reads the state.
 */
import type { TresAmounts } from "./usage.ts";

export interface PurgedSums {
  /** The fair tree's decayed CPU-seconds, times the QOS's UsageFactor. */
  cpuFair: number;
  /** Decayed TRES-seconds and wall seconds (usage.ts), times the UsageFactor. */
  tresSec: TresAmounts;
  wallSec: number;
}

export interface PurgedUsage {
  /** Epoch seconds the sums are decayed to. */
  at: number;
  /** By leaf association id. */
  assoc: Record<string, PurgedSums>;
  qos: Record<string, PurgedSums>;
  /** Classic fair share (priority.ts): decayed CPU-seconds by user, no UsageFactor. */
  user: Record<string, number>;
}

