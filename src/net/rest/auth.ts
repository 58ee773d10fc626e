/**
 * @module rest/auth
 * rest_auth/jwt as slurmrestd applies it: the token comes from
 * `X-SLURM-USER-TOKEN` or `Authorization: Bearer` (both at once is ambiguous
 * and refused; an Authorization header without "Bearer " is refused); a user
 * name without a token is refused. `X-SLURM-USER-NAME` naming someone other
 * than the token's user is impersonation, allowed only to root and operators
 * (Slurm: SlurmUser/root); spurrestd then mints a short token for that user so
 * that spurctld, which verifies every token itself, acts as them.
 */
import type { VerifyResult } from "./jwt.ts";
import { RestError } from "./errors.ts";

export interface Caller {
  user: string;
  uid: number;
  group: string;
  /** The token spurctld will see (the caller's own, or a minted one when impersonating). */
  token: string;
}

export interface AuthDeps {
  verify(token: string, nowSec: number): Promise<VerifyResult>;
  mint(user: string, lifespanSec: number, nowSec: number): Promise<string>;
  isPrivileged(user: string): boolean;
  lookupUser(name: string): { uid: number; group: string } | undefined;
}

/** Lifetime of tokens minted for impersonation (one request's worth). */
export const IMPERSONATION_TOKEN_SEC = 60;
const CACHE_ENTRIES_MAX = 4096;
const CACHE_TTL_SEC = 5;

const REASONS: Record<Exclude<VerifyResult, { ok: true }>["reason"], string> = {
  malformed: "Invalid token: malformed JWT",
  signature: "Invalid token: signature verification failed",
  expired: "Invalid token: expired",
  claims: "Invalid token: missing or invalid claims",
};

export interface Authenticator {
  authenticate(header: (name: string) => string | undefined, nowSec: number): Promise<Caller>;
  /**
   * rest_auth/local: the caller is `peerUser` (from the Unix socket's peer credentials);
   * X-SLURM-USER-NAME is honoured only when that peer is root. spurctld gets a minted token.
   */
  authenticateLocal(peerUser: string, header: (name: string) => string | undefined, nowSec: number): Promise<Caller>;
}

export function createAuthenticator(deps: AuthDeps): Authenticator {
  const cache = new Map<string, { user: string; exp: number; checkedSec: number }>();

  async function verified(token: string, nowSec: number): Promise<{ user: string }> {
    const hit = cache.get(token);
    if (hit !== undefined && hit.exp > nowSec && nowSec - hit.checkedSec < CACHE_TTL_SEC) return hit;
    let r: VerifyResult;
    try {
      r = await deps.verify(token, nowSec);
    } catch (e) {
      // No readable key file: nobody can be authenticated, which is the caller's 401, not a crash.
      throw new RestError("AuthRequired", `Unable to verify tokens: ${String((e as Error).message ?? e).slice(0, 200)}`, "rest_auth/jwt");
    }
    if (!r.ok) {
      cache.delete(token);
      throw new RestError("AuthRequired", REASONS[r.reason], "rest_auth/jwt");
    }
    if (cache.size >= CACHE_ENTRIES_MAX) cache.clear();
    const entry = { user: r.claims.sun, exp: r.claims.exp, checkedSec: nowSec };
    cache.set(token, entry);
    return entry;
  }

  return {
    async authenticate(header, nowSec) {
      const token = tokenFrom(header);
      const named = header("x-slurm-user-name");
      const { user } = await verified(token, nowSec);
      const target = named === undefined || named === "" ? user : named;
      if (target !== user && !deps.isPrivileged(user)) {
        throw new RestError("AuthRequired", `User ${user} may not act as ${target}`, "rest_auth/jwt", "Access/permission denied", 2002);
      }
      const entry = deps.lookupUser(target);
      if (entry === undefined) throw new RestError("AuthRequired", `Unknown user ${target}`, "rest_auth/jwt");
      const forwarded = target === user ? token : await deps.mint(target, IMPERSONATION_TOKEN_SEC, nowSec);
      return { user: target, uid: entry.uid, group: entry.group, token: forwarded };
    },
    async authenticateLocal(peerUser, header, nowSec) {
      const named = header("x-slurm-user-name");
      const target = named !== undefined && named !== "" && peerUser === "root" ? named : peerUser;
      const entry = deps.lookupUser(target);
      if (entry === undefined) throw new RestError("AuthRequired", `Unknown user ${target}`, "rest_auth/local");
      return { user: target, uid: entry.uid, group: entry.group, token: await deps.mint(target, IMPERSONATION_TOKEN_SEC, nowSec) };
    },
  };
}

function tokenFrom(header: (name: string) => string | undefined): string {
  const slurmToken = header("x-slurm-user-token");
  const authz = header("authorization");
  if (slurmToken !== undefined && authz !== undefined) {
    throw new RestError("AuthRequired", "Both X-SLURM-USER-TOKEN and Authorization given: ambiguous", "rest_auth/jwt");
  }
  if (authz !== undefined) {
    if (!authz.startsWith("Bearer ")) throw new RestError("AuthRequired", "Authorization header must be a Bearer token", "rest_auth/jwt");
    return authz.slice("Bearer ".length).trim();
  }
  if (slurmToken !== undefined && slurmToken !== "") return slurmToken;
  if (header("x-slurm-user-name") !== undefined) throw new RestError("AuthRequired", "missing header user token: X-SLURM-USER-TOKEN", "rest_auth/jwt");
  throw new RestError("AuthRequired", "Authentication required: send X-SLURM-USER-TOKEN (see scontrol token)", "rest_auth/jwt");
}
