/**
 * @module net/auth/replay-cache
 * Nonces of credentials already accepted, each kept until its credential expires: a
 * second use within the lifetime is a replay (MUNGE keeps the same cache in munged).
 * An in-memory structure with a bound: expired entries are swept when it fills, and if
 * it is still full every new credential is refused (fail closed) rather than the cache
 * growing without limit.
 */

export const REPLAY_ENTRIES_MAX = 200_000;
/** Expired entries are swept every this many admissions, so a quiet cache stays small too. */
const SWEEP_EVERY = 4096;

export type ReplayVerdict = "fresh" | "replayed" | "full";

export class ReplayCache {
  private readonly expiryByNonce = new Map<string, number>();
  private admitted = 0;

  constructor(private readonly entriesMax = REPLAY_ENTRIES_MAX) {}

  /** Record `nonce` (valid until `expirySec`) unless it was seen: the first use is "fresh". */
  admit(nonce: string, expirySec: number, nowSec: number): ReplayVerdict {
    const seen = this.expiryByNonce.get(nonce);
    if (seen !== undefined && seen >= nowSec) return "replayed";
    if (++this.admitted % SWEEP_EVERY === 0 || this.expiryByNonce.size >= this.entriesMax) this.sweep(nowSec);
    if (this.expiryByNonce.size >= this.entriesMax) return "full";
    this.expiryByNonce.set(nonce, expirySec);
    return "fresh";
  }

  get size(): number {
    return this.expiryByNonce.size;
  }

  /** Forget the nonces of expired credentials (they would be refused as expired anyway). */
  sweep(nowSec: number): void {
    for (const [nonce, expiry] of this.expiryByNonce) if (expiry < nowSec) this.expiryByNonce.delete(nonce);
  }
}
