/**
 * @module net/auth/registry
 * The server-side verifier for each AuthType= that uses credentials. auth/loopback has
 * none (the socket table names the caller); auth/munge registers its verifier here.
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

/** Whether `authType` is one Spur knows (loopback included). */
export function knownAuthType(authType: string): boolean {
  return authType.toLowerCase() === "auth/loopback" || VERIFIERS[authType.toLowerCase()] !== undefined;
}

/** The verifier for `authType`, or undefined for auth/loopback. Throws for a type Spur does not know. */
export function verifierFor(authType: string, setup: VerifierSetup): CredentialVerifier | undefined {
  const type = authType.toLowerCase();
  if (type === "auth/loopback") return undefined;
  const make = VERIFIERS[type];
  if (make === undefined) throw new Error(`AuthType=${authType} is not supported (auth/loopback, ${Object.keys(VERIFIERS).join(", ")})`);
  return make(setup);
}
