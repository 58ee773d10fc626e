/**
 * @module net/munge/auth-munge
 * AuthType=auth/munge on both ends. The client asks its host's munged for a credential per
 * request (header `x-spur-cred: munge:<credential>`); the controller decodes it through its
 * own munged, which checks the key, the expiry and replays, and takes the uid/gid munged
 * vouches for. `AuthInfo=socket=PATH,ttl=SEC` (Slurm's syntax) names the socket.
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
    const r = await mungeEncode({ socketPath: info.socketPath, ttlSec: info.ttlSec });
    return r.ok && r.value.errorNum === MungeErr.success ? `${MUNGE_SCHEME}:${r.value.credential}` : undefined;
  };
}

/** The client side, for a caller that must say why there is no credential (bench, spur exec). */
export async function mungeCredential(info: MungeAuthInfo): Promise<Result<string>> {
  const r = await mungeEncode({ socketPath: info.socketPath, ttlSec: info.ttlSec });
  if (!r.ok) return r;
  if (r.value.errorNum !== MungeErr.success) return err("MungeEncode", `Munge encode failed: ${mungeErrorText(r.value.errorNum, r.value.errorText)}`);
  return ok(`${MUNGE_SCHEME}:${r.value.credential}`);
}

/** The controller side: decode through this host's munged; every refusal in Slurm's log words. */
export function mungeCredVerifier(info: MungeAuthInfo): CredVerifier {
  return async (headerValue): Promise<Result<CredIdentity>> => {
    const parts = splitCred(headerValue);
    if (parts === undefined || parts[0] !== MUNGE_SCHEME) {
      return err("AuthCredInvalid", `auth/munge: credential of another kind (${parts?.[0] ?? "no scheme"}) refused`);
    }
    const r = await mungeDecode(parts[1], info.socketPath);
    if (!r.ok) return err("AuthMungeSocket", `auth/munge: _decode_cred: Munge decode failed: ${r.error.message}`);
    const d = r.value;
    if (d.errorNum !== MungeErr.success) {
      const clock = d.errorNum === MungeErr.credRewound ? " (Check for out of sync clocks)" : "";
      const origin = d.originAddr === "" ? "" : ` (encoded on ${d.originAddr} by uid ${d.uid})`;
      return err("AuthCredInvalid", `auth/munge: _decode_cred: Munge decode failed: ${mungeErrorText(d.errorNum, d.errorText)}${origin}${clock}`);
    }
    return ok({ uid: d.uid, gid: d.gid });
  };
}
