/**
 * @module roles/auth-setup
 * AuthType= wiring for the daemons: the verifier a controller or an agent checks client
 * credentials with (net/auth/registry), the hosts allowed to vouch (every NodeName= and
 * NodeHostname=, every SlurmctldHost= name, SpurLoginHosts=), the local vouching socket
 * (SpurAuthSocket=, `%h` = this host's short name; default /run/spur/auth.sock), and
 * starting that socket's daemon on a node (spurd) or a login host (`spur authd`).
 */
import { hostname } from "node:os";
import type { ConsolaInstance } from "consola/core";
import { confGet, type ParsedConf } from "../compat/conf/slurm-conf.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import { verifierFor } from "../net/auth/registry.ts";
import type { RpcServerExtras } from "../net/rpc-server.ts";
import { edgeVerifier } from "../net/auth/edge.ts";
import { startAuthd } from "../net/auth/authd.ts";
import { optionalClusterSecret } from "./conf-file.ts";

export const DEFAULT_AUTH_SOCKET = "/run/spur/auth.sock";

export function authType(conf: ParsedConf): string {
  return (conf.globals.get("authtype") ?? "auth/loopback").toLowerCase();
}

/** This host's short name (the UTS name: in `spur up --netns` each host has its own). */
export function shortHostname(): string {
  return hostname().split(".")[0] ?? hostname();
}

/** SpurAuthSocket= with `%h` as `host`. */
export function authSocketPath(conf: ParsedConf, host: string): string {
  return (conf.globals.get("spurauthsocket") ?? DEFAULT_AUTH_SOCKET).replaceAll("%h", host);
}

function expand(list: string): string[] {
  const r = expandHostlist(list);
  return r.ok ? r.value : [];
}

/** Hosts whose daemons may vouch for callers. */
export function knownAuthHosts(conf: ParsedConf): Set<string> {
  const hosts = new Set<string>();
  for (const rec of conf.nodes) {
    for (const key of ["NodeName", "NodeHostname"]) for (const h of expand(confGet(rec, key) ?? "")) if (h !== "DEFAULT") hosts.add(h);
  }
  for (const entry of conf.slurmctldHosts ?? []) {
    const name = entry.trim().replace(/\(.*$/, "");
    if (name !== "") hosts.add(name);
  }
  for (const h of expand(conf.globals.get("spurloginhosts") ?? "")) hosts.add(h);
  return hosts;
}

const REFUSAL_LOG_INTERVAL_MS = 1000;

/**
 * The RPC edge's credential check (net/cred-header's `verifyCred`) of a daemon answering to
 * `audience`, with AuthType's verifier (net/auth/registry); undefined when the registry has
 * none (auth/loopback; auth/munge is roles/ctld-auth.ts's). Each refusal is logged with its
 * reason, at most once a second per reason (a client retrying in a loop cannot flood the log).
 */
export function serverAuth(conf: ParsedConf, confFile: string, audience: string, logger: ConsolaInstance): Pick<RpcServerExtras, "verifyCred" | "onCredRefused"> | undefined {
  const verifier = verifierFor(authType(conf), { secret: optionalClusterSecret(conf, confFile), knownHosts: knownAuthHosts(conf) });
  if (verifier === undefined) return undefined;
  const log = logger.withTag("auth");
  const lastMs = new Map<string, number>();
  return {
    verifyCred: edgeVerifier(verifier, audience),
    onCredRefused: (why, peerAddr) => {
      const t = Date.now();
      if (t - (lastMs.get(why) ?? 0) < REFUSAL_LOG_INTERVAL_MS) return;
      lastMs.set(why, t);
      log.warn({ message: `auth/${verifier.scheme}: credential refused: ${why}`, peerAddr });
    },
  };
}

/** With auth/spur: serve this host's vouching socket as `host` (stop() on shutdown); else undefined. */
export function startLocalAuthd(conf: ParsedConf, confFile: string, host: string, logger: ConsolaInstance): { stop(): void; path: string } | undefined {
  if (authType(conf) !== "auth/spur") return undefined;
  const secret = optionalClusterSecret(conf, confFile);
  if (secret === undefined) throw new Error(`${confFile}: AuthType=auth/spur needs SpurClusterSecretFile=`);
  const path = authSocketPath(conf, shortHostname());
  const log = logger.withTag("authd");
  const served = startAuthd({
    path, secret, host,
    onIssue: (e) => {
      if ("refused" in e) log.warn({ message: `credential refused: ${e.refused}`, pid: e.pid });
    },
  });
  log.info({ message: "vouching for local callers", socket: path, host });
  return { stop: served.stop, path };
}
