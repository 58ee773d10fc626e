/**
 * @module rest/jwt
 * HS256 JSON Web Tokens as Slurm's auth/jwt issues them: header
 * {"alg":"HS256","typ":"JWT"}, claims {exp, iat, sun} (sun = Slurm user name).
 * Signing and verification use WebCrypto HMAC; the clock is passed in, so this
 * module is pure apart from the crypto. A keyring holds the current key and,
 * during rotation, the previous one until its grace period ends.
 */

export interface JwtClaims {
  /** Expiry, epoch seconds. */
  exp: number;
  /** Issued at, epoch seconds. */
  iat: number;
  /** Slurm user name the token speaks for. */
  sun: string;
}

export type VerifyResult = { ok: true; claims: JwtClaims } | { ok: false; reason: "malformed" | "signature" | "expired" | "claims" };

/** Bounds: no token longer than this is even parsed (Slurm's are ~150 bytes). */
export const TOKEN_BYTES_MAX = 4096;

const encoder = new TextEncoder();

function base64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | undefined {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return undefined;
  const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
  try {
    const bin = atob(padded);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  } catch {
    return undefined;
  }
}

/** An HMAC-SHA256 key for signing and verifying. */
export async function importKey(secret: Uint8Array): Promise<CryptoKey> {
  if (secret.length < 16) throw new Error("JWT key too short: at least 16 bytes are needed");
  return crypto.subtle.importKey("raw", secret as Uint8Array<ArrayBuffer>, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

const HEADER = base64url(encoder.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));

export async function signToken(key: CryptoKey, claims: JwtClaims): Promise<string> {
  const body = base64url(encoder.encode(JSON.stringify({ exp: claims.exp, iat: claims.iat, sun: claims.sun })));
  const input = `${HEADER}.${body}`;
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(input)));
  return `${input}.${base64url(sig)}`;
}

function parseClaims(bytes: Uint8Array): JwtClaims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.exp !== "number" || typeof v.sun !== "string" || v.sun === "") return undefined;
  return { exp: v.exp, iat: typeof v.iat === "number" ? v.iat : 0, sun: v.sun };
}

function headerOk(bytes: Uint8Array): boolean {
  try {
    const h = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
    return h.alg === "HS256";
  } catch {
    return false;
  }
}

/** Verify with any key of the ring (newest first); `nowSec` decides expiry. */
export async function verifyToken(keys: readonly CryptoKey[], token: string, nowSec: number): Promise<VerifyResult> {
  if (token.length > TOKEN_BYTES_MAX) return { ok: false, reason: "malformed" };
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "malformed" };
  const [h, b, s] = parts as [string, string, string];
  const header = fromBase64url(h);
  const body = fromBase64url(b);
  const sig = fromBase64url(s);
  if (header === undefined || body === undefined || sig === undefined || !headerOk(header)) return { ok: false, reason: "malformed" };
  const input = encoder.encode(`${h}.${b}`);
  let valid = false;
  for (const key of keys) {
    if (await crypto.subtle.verify("HMAC", key, sig as Uint8Array<ArrayBuffer>, input)) {
      valid = true;
      break;
    }
  }
  if (!valid) return { ok: false, reason: "signature" };
  const claims = parseClaims(body);
  if (claims === undefined) return { ok: false, reason: "claims" };
  if (claims.exp <= nowSec) return { ok: false, reason: "expired" };
  return { ok: true, claims };
}
