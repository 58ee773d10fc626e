/**
 * @module net/cred-header
 * The one header a user command sends to say who it is on a cluster that spans hosts
 * (`x-spur-cred: <scheme>:<credential>`, e.g. `munge:MUNGE:...:`), the verifier type a
 * controller plugs in for its AuthType, and the client's credential source. A credential is
 * good for one request (munged refuses a replay), so the client asks for a fresh one per call.
 */
import type { Result } from "../lib/result.ts";

export const CRED_HEADER = "x-spur-cred";
/** Slurm's words for a request whose credential does not verify (SLURM_PROTOCOL_AUTHENTICATION_ERROR). */
export const AUTH_ERROR_MESSAGE = "Protocol authentication error";
/** Its number in Slurm's slurm_errno.h (sent as x-slurm-errno, as typed rejections are). */
export const AUTH_ERROR_ERRNO = 1007;

export interface CredIdentity {
  uid: number;
  gid: number;
}

/** Checks one header value; the error message says why (logged by the controller, not sent). */
export type CredVerifier = (headerValue: string) => Promise<Result<CredIdentity>>;

/** Makes the header value for one request; undefined when this host has no credential to give. */
export type CredSource = () => Promise<string | undefined>;

let source: CredSource | undefined;

/** Set by the client's environment loader from AuthType= (roles/cli/client-env.ts). */
export function setCredSource(s: CredSource | undefined): void {
  source = s;
}

/** The headers to add to one request: `{}` on a loopback cluster. */
export async function credHeaders(): Promise<Record<string, string>> {
  if (source === undefined) return {};
  const value = await source();
  return value === undefined ? {} : { [CRED_HEADER]: value };
}

/** "munge:MUNGE:abc:" → ["munge", "MUNGE:abc:"]; undefined without a scheme. */
export function splitCred(value: string): [scheme: string, credential: string] | undefined {
  const at = value.indexOf(":");
  if (at <= 0) return undefined;
  return [value.slice(0, at), value.slice(at + 1)];
}
