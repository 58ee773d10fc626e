/**
 * @module net/auth/types
 * The pluggable parts of user authentication across hosts (AuthType=). A client asks a
 * CredentialSource for a credential naming its audience (the controllers, or one node's
 * agent) and sends it as `x-spur-cred: SCHEME:TEXT`; the server hands TEXT to the
 * CredentialVerifier registered for SCHEME (registry.ts), which answers who is calling or
 * why not. auth/spur (spur-*.ts) is one pair; auth/munge drops in as another.
 * auth/loopback has neither: the kernel's socket table names the caller (net/peer-identity).
 */
import type { Result } from "../../lib/result.ts";

/** The RPC header carrying a caller's credential: `SCHEME:TEXT` ("spur:...", "munge:..."). */
export const CRED_HEADER = "x-spur-cred";

/** What a client with a credential that does not verify is told (Slurm's SLURM_PROTOCOL_AUTHENTICATION_ERROR). */
export const AUTH_ERROR_MESSAGE = "Protocol authentication error";

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
