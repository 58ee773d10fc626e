/**
 * @module net/auth/types
 * The pluggable parts of user authentication across hosts (AuthType=). A client asks a
 * CredentialSource for a credential naming its audience (the controllers, or one node's
 * agent) and sends it as `x-spur-cred: SCHEME:TEXT`; the server hands TEXT to the
 * CredentialVerifier registered for SCHEME (registry.ts), which answers who is calling or
 * why not; roles/auth-setup.ts turns it into the RPC edge's `verifyCred` (net/cred-header's
 * shape, which auth/munge's verifier has too: roles/ctld-auth.ts). auth/spur (spur-*.ts) is
 * one pair.
 * auth/loopback has neither: the kernel's socket table names the caller (net/peer-identity).
 */
import type { Result } from "../../lib/result.ts";

/** The RPC header (`SCHEME:TEXT`) and Slurm's words for a refusal: one definition, net/cred-header's. */
export { AUTH_ERROR_MESSAGE, CRED_HEADER } from "../cred-header.ts";

/** The audience of calls to the controllers (any replica). */
export const CTLD_AUDIENCE = "slurmctld";

/** The audience of calls to node `node`'s agent. */
export const nodeAudience = (node: string): string => `slurmd:${node}`;

/** Who a verified credential names. */
export interface CallerIdentity {
  uid: number;
  gid: number;
  /** The host whose daemon vouched for the caller. */
  host: string;
}

export interface VerifyContext {
  /** The audience this server answers to (CTLD_AUDIENCE, or nodeAudience(its node)). */
  audience: string;
  nowSec: number;
}

/**
 * Server side of one AuthType. `verify` may be asynchronous (MUNGE asks the local munged).
 * A refusal's message is MUNGE's wording for the case ("Expired credential", "Replayed
 * credential", "Invalid credential", "Unauthorized credential ..."): it is logged, and the
 * client is told AUTH_ERROR_MESSAGE only.
 */
export interface CredentialVerifier {
  /** The SCHEME in `x-spur-cred: SCHEME:TEXT` this verifier reads. */
  scheme: string;
  verify(text: string, ctx: VerifyContext): Result<CallerIdentity> | Promise<Result<CallerIdentity>>;
}

/** Client side of one AuthType: the full header value (`SCHEME:TEXT`) for a call to `audience`. */
export interface CredentialSource {
  credential(audience: string): Promise<string>;
}
