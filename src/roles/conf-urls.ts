/**
 * @module roles/conf-urls
 * Where the controllers are, from a parsed spur.conf (and the membership file's text):
 * pure (apart from reading $SPUR_CONF), and free of node:fs, so a CLI that read the files itself with Bun.file
 * (roles/cli/client-env.ts) does not load it. roles/conf-file.ts re-exports all of it.
 */
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import { rpcScheme, tlsEnabled } from "../net/client-tls.ts";
import { configureCredentials } from "../net/auth/client-cred.ts";

export const DEFAULT_CONF = "/etc/spur/spur.conf";

/** spur.conf's path: --conf, then $SPUR_CONF, then $SLURM_CONF, then /etc/spur/spur.conf. */
export function confPath(explicit?: string): string {
  return explicit || process.env.SPUR_CONF || process.env.SLURM_CONF || DEFAULT_CONF;
}

/** Beside spur.conf: `SpurControllers=` as the replicas last applied it (plus `# index N`). */
export function membershipFile(confFile: string): string {
  const slash = confFile.lastIndexOf("/");
  return `${slash < 0 ? "" : confFile.slice(0, slash + 1)}spur-controllers.conf`;
}

/** The controller's address: ControlAddr/ControlPort, or slurm.conf's SlurmctldHost/SlurmctldPort. */
export function controllerAddress(conf: ParsedConf): { host: string; port: number } {
  const slurmHost = conf.globals.get("slurmctldhost")?.replace(/^[^(]*\(([^)]*)\).*$/, "$1");
  const host = conf.globals.get("controladdr") ?? slurmHost ?? "127.0.0.1";
  const port = Number(conf.globals.get("controlport") ?? conf.globals.get("slurmctldport") ?? "6817");
  return { host, port };
}

/**
 * Make this process's calls carry the credential AuthType= asks for (auth/spur: from the
 * daemon on SpurAuthSocket=, `%h` = `hostname`'s short form; auth/munge: from munged,
 * AuthInfo=socket=...); auth/loopback: none.
 */
export function configureClientAuth(conf: ParsedConf, hostname: string | (() => string)): void {
  const socket = conf.globals.get("spurauthsocket") ?? "/run/spur/auth.sock";
  // The host's name only when the path names it: a user command asks the system for it only then.
  const host = !socket.includes("%h") ? "" : typeof hostname === "string" ? hostname : hostname();
  configureCredentials(conf.globals.get("authtype") ?? "auth/loopback", socket.replaceAll("%h", host.split(".")[0] ?? host), conf.globals.get("authinfo"));
}

/** https when the cluster's listeners speak TLS (net/tls.ts), else http. */
export function schemeOf(conf: ParsedConf): "https" | "http" {
  return tlsEnabled(conf.globals) ? "https" : "http";
}

export function controllerUrl(conf: ParsedConf): string {
  const { host, port } = controllerAddress(conf);
  return `${schemeOf(conf)}://${host}:${port}`;
}

/** One replica of a replicated controller (spur.conf `SpurControllers=1@host:port,...`). */
export interface ControllerPeer {
  id: number;
  host: string;
  port: number;
  /** Port for Raft traffic between controllers (default: port + 1). */
  raftPort: number;
  url: string;
}

/**
 * The replicated controllers, in order; empty for a single controller. Format (or, without
 * it, two or more SlurmctldHost= lines; see below):
 * `SpurControllers=1@10.0.0.1:6817,2@10.0.0.2:6817,3@10.0.0.3:6817` (ids are Raft ids);
 * `ID@HOST:PORT:RAFTPORT` sets the port controllers use among themselves (default PORT+1).
 */
export function controllerPeers(conf: ParsedConf): ControllerPeer[] {
  const listed = parsePeerList(conf.globals.get("spurcontrollers") ?? "", schemeOf(conf));
  if (listed.length > 0) return listed;
  // Slurm's syntax: several SlurmctldHost=NAME[(ADDR)] lines are the replicas, ids 1..N in
  // file order, all on SlurmctldPort (ControlPort), Raft on the port after it.
  const hosts = conf.slurmctldHosts ?? [];
  if (hosts.length < 2) return [];
  const port = Number((conf.globals.get("controlport") ?? conf.globals.get("slurmctldport") ?? "6817").split("-")[0]);
  return hosts.map((value, i) => {
    const m = /^([^(]*)(?:\(([^)]*)\))?$/.exec(value.trim());
    const host = (m?.[2] || m?.[1] || "").trim();
    if (host === "") throw new Error(`spur.conf: bad SlurmctldHost entry "${value}" (want NAME or NAME(ADDR))`);
    return { id: i + 1, host, port, raftPort: port + 1, url: `${schemeOf(conf)}://${host.includes(":") ? `[${host}]` : host}:${port}` };
  });
}

/** `1@host:port[:raftport],2@...` (throws on a malformed entry). */
export function parsePeerList(text: string, scheme: "http" | "https" = rpcScheme()): ControllerPeer[] {
  if (text.trim() === "") return [];
  return text.split(",").map((item) => {
    const m = /^(\d+)@(\[[^\]]+\]|[^:]+):(\d+)(?::(\d+))?$/.exec(item.trim());
    if (m === null) throw new Error(`spur.conf: bad SpurControllers entry "${item}" (want ID@HOST:PORT or ID@HOST:PORT:RAFTPORT)`);
    const host = (m[2] as string).replace(/^\[(.*)\]$/, "$1");
    const port = Number(m[3]);
    const raftPort = m[4] === undefined ? port + 1 : Number(m[4]);
    return { id: Number(m[1]), host, port, raftPort, url: `${scheme}://${host.includes(":") ? `[${host}]` : host}:${port}` };
  });
}

/** `HOST:PORT[:RAFTPORT]` of controller `id` (as carried by a membership change), or undefined when malformed. */
export function parseControllerAddress(id: number, address: string): ControllerPeer | undefined {
  const m = /^(\[[^\]]+\]|[^:]+):(\d+)(?::(\d+))?$/.exec(address.trim());
  if (m === null || !(id > 0)) return undefined;
  const host = (m[1] as string).replace(/^\[(.*)\]$/, "$1");
  const port = Number(m[2]);
  const raftPort = m[3] === undefined ? port + 1 : Number(m[3]);
  if (!(port > 0 && port < 65536 && raftPort > 0 && raftPort < 65536)) return undefined;
  return { id, host, port, raftPort, url: `${rpcScheme()}://${host.includes(":") ? `[${host}]` : host}:${port}` };
}

/** The membership file's text → its controllers and the Raft index they are as of (none or malformed: empty, index 0). */
export function parseMembershipText(text: string): { peers: ControllerPeer[]; index: number } {
  const line = /^SpurControllers=(\S+)/m.exec(text)?.[1];
  const index = Number(/^# index (\d+)/m.exec(text)?.[1] ?? 0);
  try {
    return line === undefined ? { peers: [], index: 0 } : { peers: parsePeerList(line), index };
  } catch {
    return { peers: [], index: 0 };
  }
}

/**
 * Every controller a client may try, in order (one for a single controller). The membership
 * file the replicas keep beside spur.conf (`membershipText`, rewritten after each
 * `spur controller add/remove`) replaces spur.conf's SpurControllers= list.
 */
export function controllerUrlsOf(conf: ParsedConf, membershipText: string | undefined): string[] {
  const current = membershipText === undefined ? [] : parseMembershipText(membershipText).peers;
  if (current.length > 0) return current.map((p) => p.url);
  const peers = controllerPeers(conf);
  return peers.length > 0 ? peers.map((p) => p.url) : [controllerUrl(conf)];
}
