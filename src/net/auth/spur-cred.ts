/**
 * @module net/auth/spur-cred
 * auth/spur's credential: what a host's daemon (spurd, or `spur authd` on a login host)
 * signs for a local caller it identified by SO_PEERCRED, and controllers and agents check.
 * Text form `v1.PAYLOAD.MAC`: PAYLOAD is base64url JSON {u, g, h, i, e, n, a} (uid, gid,
 * host, issued and expiry in epoch seconds, a random nonce, the audience), MAC is hex
 * HMAC-SHA256 with a key derived from the cluster secret for this use only (so a MAC made
 * here can never pass as a node agent's call stamp, net/cluster-auth). Functions of
 * (secret, text, clock): the replay cache and the list of known hosts are the verifier's.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { type Result, err, ok } from "../../lib/result.ts";

export interface SpurClaims {
  uid: number;
  gid: number;
  host: string;
  issuedSec: number;
  expirySec: number;
  nonce: string;
  audience: string;
}

/** A credential issued this far in the future of the verifier's clock is refused (MUNGE's "Rewound credential"). */
export const CLOCK_SKEW_MAX_SEC = 60;
/** The longest lifetime a verifier accepts, whatever the issuer wrote. */
export const TTL_MAX_SEC = 300;

const HOST_RE = /^[A-Za-z0-9._-]{1,128}$/;
const NONCE_RE = /^[0-9a-f]{32}$/;
const AUDIENCE_RE = /^[A-Za-z0-9._:-]{1,160}$/;
const TEXT_BYTES_MAX = 2048;

function mac(secret: string, payload: string): string {
  return createHmac("sha256", `spur-user-cred\n${secret}`).update(payload).digest("hex");
}

/** The credential text for `claims`, signed with the cluster secret. */
export function signSpurCred(secret: string, claims: SpurClaims): string {
  const payload = Buffer.from(JSON.stringify({
    u: claims.uid, g: claims.gid, h: claims.host, i: claims.issuedSec, e: claims.expirySec, n: claims.nonce, a: claims.audience,
  })).toString("base64url");
  return `v1.${payload}.${mac(secret, payload)}`;
}

/**
 * The claims of a credential whose MAC, shape and times are right at `nowSec`; the error's
 * message is MUNGE's word for what is wrong. Audience, host and replay are checked by the caller.
 */
export function openSpurCred(secret: string, text: string, nowSec: number): Result<SpurClaims> {
  if (text.length > TEXT_BYTES_MAX) return err("invalid", "Invalid credential (too long)");
  const [version, payload = "", got = "", ...rest] = text.split(".");
  if (version !== "v1" || rest.length > 0 || !/^[0-9a-f]{64}$/.test(got) || !/^[A-Za-z0-9_-]+$/.test(payload)) return err("invalid", "Invalid credential (malformed)");
  if (!timingSafeEqual(Buffer.from(mac(secret, payload), "hex"), Buffer.from(got, "hex"))) return err("invalid", "Invalid credential (not signed with this cluster's key)");
  const claims = parseClaims(payload);
  if (claims === undefined) return err("invalid", "Invalid credential (malformed payload)");
  if (claims.issuedSec > nowSec + CLOCK_SKEW_MAX_SEC) return err("rewound", `Rewound credential (issued ${Math.round(claims.issuedSec - nowSec)} s ahead of this host's clock)`);
  if (nowSec > claims.expirySec || claims.expirySec - claims.issuedSec > TTL_MAX_SEC) return err("expired", `Expired credential (expired ${Math.round(nowSec - claims.expirySec)} s ago)`);
  return ok(claims);
}

function parseClaims(payload: string): SpurClaims | undefined {
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const { u, g, h, i, e, n, a } = raw;
  const whole = (x: unknown): x is number => typeof x === "number" && Number.isInteger(x) && x >= 0 && x < 2 ** 32;
  if (!whole(u) || !whole(g) || !whole(i) || !whole(e) || e < i) return undefined;
  if (typeof h !== "string" || !HOST_RE.test(h) || typeof n !== "string" || !NONCE_RE.test(n) || typeof a !== "string" || !AUDIENCE_RE.test(a)) return undefined;
  return { uid: u, gid: g, host: h, issuedSec: i, expirySec: e, nonce: n, audience: a };
}
