/**
 * @module roles/ctld-auth
 * Which credential verifier a controller plugs into its RPC server, from spur.conf's
 * AuthType= (auth/munge: decode through this host's munged, AuthInfo=socket=...), and the
 * log line of each refusal (Slurm's "Munge decode failed: ..."), at most one a second per
 * reason so that a client retrying in a loop cannot flood the log.
 */
import type { ConsolaInstance } from "consola/core";
import type { RpcServerExtras } from "../net/rpc-server.ts";
import { mungeCredVerifier, parseAuthInfo } from "../net/munge/auth-munge.ts";

const LOG_INTERVAL_MS = 1000;

export function credAuthExtras(globals: ReadonlyMap<string, string>, logger: ConsolaInstance): Pick<RpcServerExtras, "verifyCred" | "onCredRefused"> {
  const authType = (globals.get("authtype") ?? "auth/loopback").toLowerCase();
  if (authType !== "auth/munge") return {};
  const info = parseAuthInfo(globals.get("authinfo"));
  logger.info({ message: "auth/munge: credentials decoded through munged", socket: info.socketPath });
  const lastMs = new Map<string, number>();
  return {
    verifyCred: mungeCredVerifier(info),
    onCredRefused(why, peerAddr) {
      const t = Date.now();
      if (t - (lastMs.get(why) ?? 0) < LOG_INTERVAL_MS) return;
      lastMs.set(why, t);
      logger.error({ message: why.startsWith("auth/munge:") ? why : `auth/munge: ${why}`, peer: peerAddr });
    },
  };
}
