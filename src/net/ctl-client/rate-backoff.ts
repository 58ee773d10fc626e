/**
 * @module net/ctl-client/rate-backoff
 * What Slurm's clients do when slurmctld answers SLURMCTLD_COMMUNICATIONS_BACKOFF (its
 * per-user rate limit): sleep a second and send the same request again. The refusal comes
 * before any handler ran (net/rpc-rate-limit), so the retry cannot do anything twice.
 * Bounded: after SPUR_RATE_LIMIT_RETRIES (default 30) refusals in a row the answer is
 * handed back and the client prints Slurm's "Rate limit exceeded, please retry momentarily".
 * Every try carries a fresh credential (AuthType=auth/spur or auth/munge): a credential is
 * good once, so a retry with the first one would be refused as a replay. No credential to be
 * had (the local daemon is not running) throws an RpcError saying so.
 */
import { credentialHeaders } from "../auth/client-cred.ts";
import { CTLD_AUDIENCE } from "../auth/types.ts";
import { RpcError } from "../ctl-port.ts";

/** This try's credential (auth/spur: from the local daemon, for the controllers; auth/munge: munged's). */
async function credential(): Promise<Record<string, string>> {
  try {
    return await credentialHeaders(CTLD_AUDIENCE);
  } catch (e) {
    throw new RpcError("unauthenticated", (e as Error).message);
  }
}

const BACKOFF_MS = 1000;

/** How one try is sent: fetch, or controller-port.ts's plain HTTP/1.1 POST (net/ctl-client/http1.ts). */
export type Send = (url: string, init: RequestInit) => Promise<Response>;

export async function fetchWithBackoff(url: string, init: RequestInit, send: Send = fetch): Promise<Response> {
  const retries = Number(process.env.SPUR_RATE_LIMIT_RETRIES ?? "30");
  for (let tried = 0; ; tried++) {
    const res = await send(url, { ...init, headers: { ...(init.headers as Record<string, string> | undefined), ...(await credential()) } });
    if (res.status !== 429 || res.headers.get("retry-after") === null || tried >= retries) return res;
    await res.arrayBuffer().catch(() => undefined);
    await new Promise((r) => setTimeout(r, BACKOFF_MS));
  }
}
