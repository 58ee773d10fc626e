/**
 * @module net/munge/auth-munge
 * AuthType=auth/munge on both ends. The client asks its host's munged for a credential per
 * request (header `x-spur-cred: munge:<credential>`); the controller decodes it through its
 * own munged, which checks the key, the expiry and replays, and takes the uid/gid munged
 * vouches for. `AuthInfo=socket=PATH,ttl=SEC` (Slurm's syntax) names the socket.
 * Two shapes of each side: functions on the whole header value (net/cred-header, used by
 * net/rpc-server today) and a scheme + verify(text) / credential(audience) pair that drops
 * into a per-AuthType registry of verifiers and sources.
 * Failure policy: a refused credential is a Result error carrying Slurm's log wording
 * ("Munge decode failed: Replayed credential"); the caller logs it and answers
 * "Protocol authentication error". An unreachable munged on the client sends no header.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { splitCred, type CredIdentity, type CredSource, type CredVerifier } from "../cred-header.ts";
import { MUNGE_SOCKET_DEFAULT, mungeDecode, mungeEncode } from "./client.ts";
import { MungeErr, mungeErrorText } from "./wire.ts";

export const MUNGE_SCHEME = "munge";

export interface MungeAuthInfo {
  socketPath: string;
  /** 0: munged's default (300 s). */
  ttlSec: number;
}

/** Slurm's AuthInfo= for auth/munge: comma-separated `socket=PATH`, `ttl=SEC`; other keys ignored. */
export function parseAuthInfo(text: string | undefined): MungeAuthInfo {
  const info: MungeAuthInfo = { socketPath: MUNGE_SOCKET_DEFAULT, ttlSec: 0 };
  for (const part of (text ?? "").split(",")) {
    const [key = "", ...rest] = part.trim().split("=");
    const value = rest.join("=").trim();
    if (key.toLowerCase() === "socket" && value !== "") info.socketPath = value;
    if (key.toLowerCase() === "ttl" && /^\d+$/.test(value)) info.ttlSec = Number(value);
  }
  return info;
}

/** The client side: a fresh credential per request from the local munged. */
export function mungeCredSource(info: MungeAuthInfo): CredSource {
  return async () => {
    const r = await mungeCredential(info);
    return r.ok ? r.value : undefined;
  };
}

/** The client side, for a caller that must say why there is no credential. */
export async function mungeCredential(info: MungeAuthInfo): Promise<Result<string>> {
  const r = await mungeEncode({ socketPath: info.socketPath, ttlSec: info.ttlSec });
  if (!r.ok) return err(r.error.code, `Munge encode failed: ${r.error.message}`);
  if (r.value.errorNum !== MungeErr.success) return err("MungeEncode", `Munge encode failed: ${mungeErrorText(r.value.errorNum, r.value.errorText)}`);
  return ok(`${MUNGE_SCHEME}:${r.value.credential}`);
}

/**
 * The client side in the shape of a pluggable credential source (`credential(audience)` gives
 * the whole header value; MUNGE credentials name no audience). Throws with Slurm's words
 * ("Munge encode failed: ...") when munged cannot give one.
 */
export function mungeSource(info: MungeAuthInfo): { credential(audience: string): Promise<string> } {
  return {
    async credential() {
      const r = await mungeCredential(info);
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    },
  };
}

/** Who a MUNGE credential names: munged's uid/gid, and the address of the host that encoded it. */
export interface MungeIdentity extends CredIdentity {
  host: string;
}

/**
 * The controller side in the shape of a pluggable verifier: `verify` takes the credential
 * without its "munge:" scheme and decodes it through this host's munged; a refusal's message
 * is Slurm's log wording ("Munge decode failed: Replayed credential (...)").
 */
export function createMungeVerifier(info: MungeAuthInfo): { scheme: string; verify(text: string): Promise<Result<MungeIdentity>> } {
  return {
    scheme: MUNGE_SCHEME,
    async verify(text) {
      const r = await mungeDecode(text, info.socketPath);
      if (!r.ok) return err("AuthMungeSocket", `Munge decode failed: ${r.error.message}`);
      const d = r.value;
      if (d.errorNum !== MungeErr.success) {
        const clock = d.errorNum === MungeErr.credRewound ? " (Check for out of sync clocks)" : "";
        const origin = d.originAddr === "" ? "" : ` (encoded on ${d.originAddr} by uid ${d.uid})`;
        return err("AuthCredInvalid", `Munge decode failed: ${mungeErrorText(d.errorNum, d.errorText)}${origin}${clock}`);
      }
      return ok({ uid: d.uid, gid: d.gid, host: d.originAddr });
    },
  };
}

/** The controller side on the whole header value (`munge:<credential>`), for net/rpc-server's verifyCred. */
export function mungeCredVerifier(info: MungeAuthInfo): CredVerifier {
  const verifier = createMungeVerifier(info);
  return async (headerValue): Promise<Result<CredIdentity>> => {
    const parts = splitCred(headerValue);
    if (parts === undefined || parts[0] !== MUNGE_SCHEME) {
      return err("AuthCredInvalid", `auth/munge: credential of another kind (${parts?.[0] ?? "no scheme"}) refused`);
    }
    const v = await verifier.verify(parts[1]);
    if (!v.ok) return err(v.error.code, `auth/munge: _decode_cred: ${v.error.message}`);
    return ok({ uid: v.value.uid, gid: v.value.gid });
  };
}
