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
  /** --overlay wireguard: its address on the overlay (what spur.conf names) and its WireGuard interface. */
  overlayAddr?: string;
  wgIface?: string;
}

/** Where a host's daemons listen and are reached: its overlay address when there is one. */
export const serviceAddr = (h: NetnsHost): string => h.overlayAddr ?? h.addr;

/** The overlay's addresses: a /16 no bridge of `spur up --netns` uses (those are 10.100-10.199). */
export const OVERLAY_CIDR = "10.96.0.0/16";
/** WireGuard's UDP port on every host (each host has its own address). */
export const OVERLAY_PORT = 51820;

/** `spur net init`'s input for the plan's hosts: one site, each host reached at its bridge address. */
export function overlayInput(plan: NetnsPlan): { cidr: string; sites: { name: string; nodes: { name: string; endpoint: string }[] }[] } {
  return { cidr: OVERLAY_CIDR, sites: [{ name: "box", nodes: plan.hosts.map((h) => ({ name: h.name, endpoint: `${h.addr}:${OVERLAY_PORT}` })) }] };
}

/** The plan with each host's overlay address (from `spur net init`'s plan.json nodes) and interface name. */
export function withOverlay(plan: NetnsPlan, addresses: ReadonlyMap<string, string>): NetnsPlan {
  return {
    ...plan,
    hosts: plan.hosts.map((h, i) => {
      const overlayAddr = addresses.get(h.name);
      if (overlayAddr === undefined) throw new Error(`spur: error: the overlay plan has no address for ${h.name}`);
      // wireguard-go keeps one control socket per interface name machine-wide: the tag keeps clusters apart
      return { ...h, overlayAddr, wgIface: `wg${plan.tag}${i}` };
    }),
  };
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
    ...ctl.map((h) => `SlurmctldHost=${h.name}(${serviceAddr(h)})`),
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
    ...nodes.map((h) => `NodeName=${h.name} NodeAddr=${serviceAddr(h)} Port=${AGENT_PORT} CPUs=${o.cpusPerNode} RealMemory=${o.memPerNodeMiB}${gres}`),
    `PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`,
    "",
  ].join("\n");
}

/** `spur up --netns`'s table of hosts. */
export function hostTable(plan: NetnsPlan): string {
  const overlay = plan.hosts.some((h) => h.overlayAddr !== undefined);
  const rows = [
    ["HOST", "ROLE", "ADDRESS", ...(overlay ? ["OVERLAY"] : []), "NETNS"],
    ...plan.hosts.map((h) => [h.name, h.role, h.addr, ...(overlay ? [`${h.overlayAddr ?? ""} (${h.wgIface ?? ""})`] : []), h.netns]),
  ];
  const last = (rows[0]?.length ?? 1) - 1;
  const widths = rows[0]?.map((_, c) => Math.max(...rows.map((r) => (r[c] ?? "").length))) ?? [];
  return rows.map((r) => r.map((cell, c) => (c < last ? cell.padEnd((widths[c] ?? 0) + 2) : cell)).join("")).join("\n") + "\n";
}
