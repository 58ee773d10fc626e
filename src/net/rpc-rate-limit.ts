/**
 * @module net/rpc-rate-limit
 * Per-user RPC rate limiting on the controller, shaped like slurmctld's (23.02+):
 * `SlurmctldParameters=rl_enable` turns it on; each uid has a token bucket of
 * `rl_bucket_size` tokens (default 30) refilled with `rl_refill_rate` tokens (default 2)
 * every `rl_refill_period` seconds (default 1); `rl_table_size` users are tracked (default
 * 8192). root, the controller's own user and authenticated node agents are never limited.
 * A refused call is answered before any handler runs (it changed nothing) with HTTP 429
 * and Slurm's SLURMCTLD_COMMUNICATIONS_BACKOFF text; Spur's clients, like Slurm's, wait a
 * second and try again.
 */
import { createRateLimiter } from "./rest/rate-limit.ts";

/** SLURMCTLD_COMMUNICATIONS_BACKOFF (1804), as Slurm prints it. */
export const RATE_LIMITED_MESSAGE = "Rate limit exceeded, please retry momentarily";

export interface RpcRateLimit {
  bucketSize: number;
  refillRate: number;
  refillPeriodSec: number;
  tableSize: number;
}

export const RPC_RATE_LIMIT_DEFAULT: RpcRateLimit = { bucketSize: 30, refillRate: 2, refillPeriodSec: 1, tableSize: 8192 };

/** The limit SlurmctldParameters asks for, or undefined when rl_enable is absent. */
export function rpcRateLimitFrom(slurmctldParameters: string): RpcRateLimit | undefined {
  const opts = new Map<string, string>();
  for (const part of slurmctldParameters.split(",")) {
    const t = part.trim().toLowerCase();
    if (t === "") continue;
    const eq = t.indexOf("=");
    opts.set(eq < 0 ? t : t.slice(0, eq), eq < 0 ? "" : t.slice(eq + 1));
  }
  if (!opts.has("rl_enable")) return undefined;
  const d = RPC_RATE_LIMIT_DEFAULT;
  const pos = (key: string, dflt: number) => {
    const v = Number(opts.get(key));
    return Number.isFinite(v) && v > 0 ? v : dflt;
  };
  return {
    bucketSize: pos("rl_bucket_size", d.bucketSize), refillRate: pos("rl_refill_rate", d.refillRate),
    refillPeriodSec: pos("rl_refill_period", d.refillPeriodSec), tableSize: pos("rl_table_size", d.tableSize),
  };
}

/** `admit(uid, nowSec)`: true when the call may go on (and takes a token). */
export function createRpcRateLimiter(limit: RpcRateLimit, exemptUids: readonly number[]): (uid: number, nowSec: number) => boolean {
  const buckets = createRateLimiter({ perSec: limit.refillRate / limit.refillPeriodSec, burst: limit.bucketSize, usersMax: limit.tableSize });
  const exempt = new Set([0, ...exemptUids]);
  return (uid, nowSec) => exempt.has(uid) || buckets.take(String(uid), nowSec);
}
