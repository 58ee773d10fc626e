/**
 * @module net/auth/registry
 * The server-side verifier for each AuthType= that uses credentials and a cluster key.
 * auth/loopback has none (the socket table names the caller); auth/munge's verifier asks
 * munged and is wired by roles/ctld-auth.ts.
 */
import { createSpurVerifier } from "./spur-verifier.ts";
import type { CredentialVerifier } from "./types.ts";

export interface VerifierSetup {
  /** The cluster secret (SpurClusterSecretFile=); undefined when the conf names none. */
  secret: string | undefined;
  /** Hosts whose daemons may vouch for callers. */
  knownHosts: ReadonlySet<string>;
}

const VERIFIERS: Record<string, (s: VerifierSetup) => CredentialVerifier> = {
  "auth/spur": (s) => {
    if (s.secret === undefined) throw new Error("AuthType=auth/spur needs SpurClusterSecretFile= (the key daemons sign credentials with)");
    return createSpurVerifier({ secret: s.secret, knownHosts: s.knownHosts });
  },
};

/** The verifier for `authType`, or undefined when this registry has none for it (auth/loopback, auth/munge). */
export function verifierFor(authType: string, setup: VerifierSetup): CredentialVerifier | undefined {
  return VERIFIERS[authType.toLowerCase()]?.(setup);
}
