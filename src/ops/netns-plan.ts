/**
 * @module ops/netns-plan
 * The layout of `spur up --netns`: which hosts (controllers c1..cK, nodes n1..nN, a login
 * host), each host's network namespace, veth, address on a private bridge, and the one
 * spur.conf every host reads. Names and the /24 come from a hash of the state directory,
 * so clusters in different directories (parallel tests) never collide. Pure: the shell
 * (roles/netns-cluster.ts) runs ip(8), unshare(1) and nsenter(1) from it.
 */
import { createHash } from "node:crypto";

export type HostRole = "controller" | "node" | "login";

export interface NetnsHost {
  name: string;
  role: HostRole;
  /** Address on the cluster's bridge (/24). */
  addr: string;
  /** `ip netns` name (/run/netns/NAME). */
  netns: string;
  /** The host end of its veth pair (the namespace end is eth0). */
  veth: string;
}

export interface NetnsPlan {
  tag: string;
  bridge: string;
  /** The first three octets of the /24. */
  prefix: string;
  hosts: NetnsHost[];
}

export const NODES_MAX = 150;
export const CONTROLLERS_MAX = 7;
/** Every controller listens on this port on its own address (Raft on the next), every node's spurd on AGENT_PORT. */
export const CONTROLLER_PORT = 6817;
export const AGENT_PORT = 6818;

/** The plan for a cluster in `stateDir` (an absolute path). */
export function planNetns(stateDir: string, nodes: number, controllers: number, login: boolean): NetnsPlan {
  if (!(nodes >= 1 && nodes <= NODES_MAX)) throw new Error(`spur: error: --netns takes 1 to ${NODES_MAX} nodes`);
  if (!(controllers >= 1 && controllers <= CONTROLLERS_MAX)) throw new Error(`spur: error: --netns takes 1 to ${CONTROLLERS_MAX} controllers`);
  const h = createHash("sha256").update(stateDir).digest();
  const tag = h.subarray(0, 3).toString("hex");
  // 10.100.0.0 - 10.199.255.0: clear of the 10.0-10.99 ranges sites and containers tend to use
  const prefix = `10.${100 + ((h[3] ?? 0) % 100)}.${h[4] ?? 0}`;
  const hosts: NetnsHost[] = [];
  const add = (name: string, role: HostRole, octet: number): void => {
    hosts.push({ name, role, addr: `${prefix}.${octet}`, netns: `spur-${tag}-${name}`, veth: `sp${tag}${hosts.length}` });
  };
  for (let i = 1; i <= controllers; i++) add(`c${i}`, "controller", 10 + i);
  for (let i = 1; i <= nodes; i++) add(`n${i}`, "node", 100 + i);
  if (login) add("login", "login", 2);
  return { tag, bridge: `spbr${tag}`, prefix, hosts };
}

export interface NetnsConfOptions {
  stateDir: string;
  cpusPerNode: number;
  memPerNodeMiB: number;
  gpusPerNode: number;
  gpuModel: string;
  slurmdTimeoutSec: number;
  authType: string;
  /** TLS on every listener: these spur.conf lines (ops/tls-cert clusterTlsConfLines); absent: plaintext on the private bridge. */
  tlsLines?: readonly string[];
}

/** The spur.conf all hosts share: addresses from the plan, per-host paths through `%h` and per-node spools. */
export function netnsConf(plan: NetnsPlan, o: NetnsConfOptions): string {
  const d = o.stateDir;
  const ctl = plan.hosts.filter((h) => h.role === "controller");
  const nodes = plan.hosts.filter((h) => h.role === "node");
  const logins = plan.hosts.filter((h) => h.role === "login");
  const gres = o.gpusPerNode > 0 ? ` Gres=gpu:${o.gpuModel ? `${o.gpuModel}:` : ""}${o.gpusPerNode}` : "";
  const all = nodes.length === 1 ? "n1" : `n[1-${nodes.length}]`;
  return [
    "# Written by `spur up --netns`: every host (controllers, nodes, login) reads this one file.",
    "ClusterName=spur",
    ...ctl.map((h) => `SlurmctldHost=${h.name}(${h.addr})`),
    `SlurmctldPort=${CONTROLLER_PORT}`,
    `AuthType=${o.authType}`,
    `SpurClusterSecretFile=${d}/cluster-secret`,
    // each host's vouching socket: %h is the host's own name (its UTS namespace)
    `SpurAuthSocket=${d}/hosts/%h/auth.sock`,
    // TLS with a certificate per host, or plaintext: the hosts' bridge is private to this machine (no address on it, no route out)
    ...(o.tlsLines ?? ["SpurAllowPlaintext=yes"]),
    ...(logins.length > 0 ? [`SpurLoginHosts=${logins.map((h) => h.name).join(",")}`] : []),
    `StateSaveLocation=${d}/ctld`,
    `SlurmdSpoolDir=${d}/spool`,
    "DefMemPerCPU=256",
    "MinJobAge=300",
    "KillWait=30",
    `SlurmdTimeout=${o.slurmdTimeoutSec}`,
    ...nodes.map((h) => `NodeName=${h.name} NodeAddr=${h.addr} Port=${AGENT_PORT} CPUs=${o.cpusPerNode} RealMemory=${o.memPerNodeMiB}${gres}`),
    `PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`,
    "",
  ].join("\n");
}

/** `spur up --netns`'s table of hosts. */
export function hostTable(plan: NetnsPlan): string {
  const rows = [["HOST", "ROLE", "ADDRESS", "NETNS"], ...plan.hosts.map((h) => [h.name, h.role, h.addr, h.netns])];
  const widths = [0, 1, 2].map((c) => Math.max(...rows.map((r) => (r[c] ?? "").length)));
  return rows.map((r) => r.map((cell, c) => (c < 3 ? cell.padEnd((widths[c] ?? 0) + 2) : cell)).join("")).join("\n") + "\n";
}
