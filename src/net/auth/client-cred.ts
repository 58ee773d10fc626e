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

/** Client sources by AuthType (auth/munge adds its own here). */
const SOURCES: Record<string, (socketPath: string) => CredentialSource> = {
  "auth/spur": authdSource,
};

/** Use the source of `authType` (socketPath: the local daemon's socket); auth/loopback and unknown types: none. */
export function configureCredentials(authType: string, socketPath: string): void {
  const make = SOURCES[authType.toLowerCase()];
  source = make === undefined ? undefined : make(socketPath);
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
