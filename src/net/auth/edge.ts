/**
 * @module net/auth/edge
 * A CredentialVerifier (one AuthType's, for one audience) as the RPC edge's `verifyCred`
 * (net/cred-header's shape): the header's scheme must be the verifier's, the rest is its.
 */
import { err, ok } from "../../lib/result.ts";
import { splitCred, type CredVerifier } from "../cred-header.ts";
import type { CredentialVerifier } from "./types.ts";

export function edgeVerifier(verifier: CredentialVerifier, audience: string, nowSec: () => number = () => Date.now() / 1000): CredVerifier {
  return async (header) => {
    const parts = splitCred(header);
    if (parts === undefined || parts[0] !== verifier.scheme) return err("invalid", `Invalid credential (a "${parts?.[0] ?? ""}" credential, this cluster uses auth/${verifier.scheme})`);
    const v = await verifier.verify(parts[1], { audience, nowSec: nowSec() });
    return v.ok ? ok({ uid: v.value.uid, gid: v.value.gid }) : v;
  };
}
