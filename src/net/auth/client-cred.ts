/**
 * @module net/auth/client-cred
 * The credential every client call carries when the cluster's AuthType needs one
 * (auth/spur, auth/munge): set once per process from spur.conf (roles/cli/client-env.ts,
 * roles/auth-setup.ts), read by every place that calls a controller or an agent. With no
 * source set (auth/loopback) calls carry nothing and the kernel's socket table names the
 * caller. Free of node:fs and node:net: every user command loads it.
 */
import type { Interceptor } from "@connectrpc/connect";
import { CRED_HEADER, type CredentialSource } from "./types.ts";
import { authdSource } from "./authd-client.ts";
import { credHeaders } from "../cred-header.ts";

let source: CredentialSource | undefined;

/** auth/munge: a credential from this host's munged per call (loaded on first use: loopback clusters load none of it). */
function mungeSource(authInfo: string | undefined): CredentialSource {
  return {
    credential: async () => {
      const m = await import("../munge/auth-munge.ts");
      const r = await m.mungeCredential(m.parseAuthInfo(authInfo));
      if (!r.ok) throw new Error(r.error.message);
      return r.value;
    },
  };
}

/** Client sources by AuthType. */
const SOURCES: Record<string, (o: { socketPath: string; authInfo: string | undefined }) => CredentialSource> = {
  "auth/spur": (o) => authdSource(o.socketPath),
  "auth/munge": (o) => mungeSource(o.authInfo),
};

/**
 * Use the source of `authType` (auth/spur: the local daemon's socket `socketPath`; auth/munge:
 * munged, AuthInfo=socket=...); auth/loopback and unknown types: none.
 */
export function configureCredentials(authType: string, socketPath: string, authInfo?: string): void {
  const make = SOURCES[authType.toLowerCase()];
  source = make === undefined ? undefined : make({ socketPath, authInfo });
}

export function setCredentialSource(s: CredentialSource | undefined): void {
  source = s;
}

export function credentialsEnabled(): boolean {
  return source !== undefined;
}

/**
 * The header to add to one call to `audience` (empty with auth/loopback). A fresh credential
 * each time: each is good once. Without an audience-aware source (auth/munge's credentials
 * name no audience) it is net/cred-header's, set by client-env.ts.
 */
export async function credentialHeaders(audience: string): Promise<Record<string, string>> {
  return source === undefined ? credHeaders() : { [CRED_HEADER]: await source.credential(audience) };
}

/** The same for Connect clients (srun's calls to agents). */
export function credentialInterceptor(audience: string): Interceptor {
  return (next) => async (req) => {
    for (const [k, v] of Object.entries(await credentialHeaders(audience))) req.header.set(k, v);
    return next(req);
  };
}
