/**
 * @module net/wireguard
 * The multi-site overlay as data (pure): sites with nodes → an address plan (one block per
 * site inside the overlay CIDR, default 10.100.0.0/16) → one wg-quick config per node with
 * a [Peer] per reachable node. Reachability: a node can be dialled at its endpoint unless
 * its site is behind NAT and the caller is outside that site; a NATed node keeps its
 * mapping open with PersistentKeepalive; two nodes that cannot reach each other either way
 * talk through the first public node (a relay, which must forward IPv4). Keys are inputs:
 * key generation lives in net/wireguard-keys.ts, and a config can name a key file instead
 * of holding the private key, so private keys never leave the node that made them.
 */
import { err, ok, type Result } from "../lib/result.ts";

export interface NetNodeInput {
  name: string;
  /** Address (and optionally port) others dial: "203.0.113.5", "gw.example.org:51821", "[2001:db8::1]:51820". */
  endpoint?: string;
  listenPort?: number;
  /** Base64 public key made on the node (`spur net keygen` / `wg pubkey`). */
  publicKey?: string;
}

export interface NetSiteInput {
  name: string;
  /** Behind NAT: its endpoints (if any) are reachable only from inside the site. */
  nat?: boolean;
  nodes: NetNodeInput[];
}

export interface NetPlanInput {
  /** IPv4 overlay network; default 10.100.0.0/16. */
  cidr?: string;
  /** Default UDP port; default 51820. */
  listenPort?: number;
  /** Seconds; default 25. */
  keepaliveSec?: number;
  sites: NetSiteInput[];
}

export interface PlannedNode {
  name: string;
  site: string;
  nat: boolean;
  /** Overlay address, e.g. "10.100.1.3". */
  address: string;
  publicKey: string;
  listenPort: number;
  /** "host:port" others dial, when it has one. */
  endpoint?: string;
  /** Forwards traffic between nodes that cannot reach each other. */
  relay: boolean;
}

export interface NetPlan {
  cidr: string;
  prefix: number;
  keepaliveSec: number;
  /** Site name → its block ("10.100.1.0/24"). */
  siteSubnets: Record<string, string>;
  nodes: PlannedNode[];
}

export interface Peer {
  node: PlannedNode;
  allowedIps: string[];
  endpoint?: string;
  keepaliveSec?: number;
}

const DEFAULT_CIDR = "10.100.0.0/16";
const DEFAULT_PORT = 51820;
const DEFAULT_KEEPALIVE_SEC = 25;
/** Upper bound on nodes in one overlay (a /16 of /24 sites holds 65k; beyond that a plan is a mistake). */
const MAX_NODES = 65_536;
/** The exact shape of 32 bytes in base64 (the last character carries 4 bits, then "="). */
const KEY_RE = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$/;

export const isWgKey = (key: string): boolean => KEY_RE.test(key);

export function parseCidr(cidr: string): Result<{ base: number; prefix: number }> {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/.exec(cidr);
  const octets = m?.slice(1, 5).map(Number) ?? [];
  const prefix = Number(m?.[5]);
  if (m === null || octets.some((o) => o > 255) || prefix > 30) return err("BadCidr", `invalid overlay network "${cidr}" (want IPv4 a.b.c.d/len, len <= 30)`);
  const base = octets.reduce((acc, o) => acc * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  if (base % size !== 0) return err("BadCidr", `overlay network "${cidr}" has host bits set`);
  return ok({ base, prefix });
}

export const ipText = (n: number): string => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join(".");

const bitsFor = (n: number): number => (n <= 1 ? 0 : Math.ceil(Math.log2(n)));

/** "host" | "host:port" | "[v6]:port" | bare IPv6 → "host:port" with the default port filled in. */
export function endpointText(endpoint: string, port: number): string {
  if (endpoint.startsWith("[")) return endpoint.includes("]:") ? endpoint : `${endpoint}:${port}`;
  const colons = endpoint.split(":").length - 1;
  if (colons === 0) return `${endpoint}:${port}`;
  return colons === 1 ? endpoint : `[${endpoint}]:${port}`;
}

function checkInput(input: NetPlanInput, keys: Readonly<Record<string, string>>): Result<void> {
  const names = new Set<string>();
  const sites = new Set<string>();
  for (const site of input.sites) {
    if (!NAME_RE.test(site.name) || sites.has(site.name)) return err("BadPlan", `bad or repeated site name "${site.name}"`);
    sites.add(site.name);
    for (const node of site.nodes) {
      if (!NAME_RE.test(node.name) || names.has(node.name)) return err("BadPlan", `bad or repeated node name "${node.name}"`);
      names.add(node.name);
      const key = node.publicKey ?? keys[node.name];
      if (key === undefined || !isWgKey(key)) return err("BadPlan", `node ${node.name} has no valid public key`);
    }
  }
  if (names.size === 0) return err("BadPlan", "the plan has no nodes");
  if (names.size > MAX_NODES) return err("BadPlan", `the plan has ${names.size} nodes (at most ${MAX_NODES})`);
  return ok(undefined);
}

/**
 * Addresses: each site gets a block of 2^hostBits addresses (at least a /24 when the CIDR
 * has room), in input order; node j of a site gets block + j + 1. `keys` supplies public
 * keys for nodes whose input has none.
 */
export function planNetwork(input: NetPlanInput, keys: Readonly<Record<string, string>> = {}): Result<NetPlan> {
  const checked = checkInput(input, keys);
  if (!checked.ok) return checked;
  const cidr = input.cidr ?? DEFAULT_CIDR;
  const net = parseCidr(cidr);
  if (!net.ok) return net;
  const available = 32 - net.value.prefix;
  const needHost = bitsFor(Math.max(...input.sites.map((s) => s.nodes.length)) + 2);
  const needSite = bitsFor(input.sites.length);
  if (needHost + needSite > available) return err("BadCidr", `overlay network ${cidr} is too small for ${input.sites.length} sites of this size`);
  const hostBits = Math.max(needHost, Math.min(8, available - needSite));
  const port = input.listenPort ?? DEFAULT_PORT;
  const siteSubnets: Record<string, string> = {};
  const nodes: PlannedNode[] = [];
  input.sites.forEach((site, i) => {
    const block = net.value.base + i * 2 ** hostBits;
    siteSubnets[site.name] = `${ipText(block)}/${32 - hostBits}`;
    site.nodes.forEach((n, j) => {
      const listenPort = n.listenPort ?? port;
      nodes.push({
        name: n.name, site: site.name, nat: site.nat === true, address: ipText(block + j + 1),
        publicKey: n.publicKey ?? keys[n.name] ?? "", listenPort, relay: false,
        ...(n.endpoint === undefined ? {} : { endpoint: endpointText(n.endpoint, listenPort) }),
      });
    });
  });
  const plan: NetPlan = { cidr, prefix: net.value.prefix, keepaliveSec: input.keepaliveSec ?? DEFAULT_KEEPALIVE_SEC, siteSubnets, nodes };
  const relays = markRelays(plan);
  return relays.ok ? ok(plan) : relays;
}

/** `a` can send the first packet to `b`. */
const canDial = (a: PlannedNode, b: PlannedNode): boolean => b.endpoint !== undefined && (!b.nat || a.site === b.site);
const direct = (a: PlannedNode, b: PlannedNode): boolean => canDial(a, b) || canDial(b, a);

function relayFor(plan: NetPlan, a: PlannedNode, b: PlannedNode): PlannedNode | undefined {
  return plan.nodes.find((r) => r !== a && r !== b && r.endpoint !== undefined && !r.nat);
}

function markRelays(plan: NetPlan): Result<void> {
  for (const a of plan.nodes) {
    for (const b of plan.nodes) {
      if (a === b || direct(a, b)) continue;
      const r = relayFor(plan, a, b);
      if (r === undefined) return err("BadPlan", `${a.name} and ${b.name} cannot reach each other and no public node can relay`);
      r.relay = true;
    }
  }
  return ok(undefined);
}

/** The peers of one node: every node it reaches directly; the rest ride on a relay's AllowedIPs. */
export function peersOf(plan: NetPlan, name: string): Peer[] {
  const self = plan.nodes.find((n) => n.name === name);
  if (self === undefined) return [];
  const peers = new Map<string, Peer>();
  for (const b of plan.nodes) {
    if (b === self || !direct(self, b)) continue;
    const dial = canDial(self, b);
    const keepalive = dial && self.nat && self.site !== b.site;
    peers.set(b.name, {
      node: b, allowedIps: [`${b.address}/32`],
      ...(dial && b.endpoint !== undefined ? { endpoint: b.endpoint } : {}),
      ...(keepalive ? { keepaliveSec: plan.keepaliveSec } : {}),
    });
  }
  for (const b of plan.nodes) {
    if (b === self || direct(self, b)) continue;
    const r = relayFor(plan, self, b);
    if (r !== undefined) peers.get(r.name)?.allowedIps.push(`${b.address}/32`);
  }
  return [...peers.values()];
}

/** How the [Interface] gets its private key: inline, or set from a file on the node at PostUp. */
export type KeySource = { privateKey: string } | { privateKeyFile: string };

/** The wg-quick config text of one node. */
export function wgQuickConfig(plan: NetPlan, name: string, key: KeySource): Result<string> {
  const self = plan.nodes.find((n) => n.name === name);
  if (self === undefined) return err("BadPlan", `no node ${name} in the plan`);
  if ("privateKey" in key && !isWgKey(key.privateKey)) return err("BadKey", `the private key for ${name} is not a WireGuard key`);
  if ("privateKeyFile" in key && !/^\/[^\s]*$/.test(key.privateKeyFile)) return err("BadKey", "the private key file must be an absolute path without spaces");
  const lines = [
    `# Spur overlay: wg-quick config for ${name} (site ${self.site}, ${self.address}), written by spur net init.`,
    "[Interface]",
    ...("privateKey" in key ? [`PrivateKey = ${key.privateKey}`] : []),
    `Address = ${self.address}/${plan.prefix}`,
    `ListenPort = ${self.listenPort}`,
    ...("privateKeyFile" in key ? [`PostUp = wg set %i private-key ${key.privateKeyFile}`] : []),
    ...(self.relay ? ["# This node relays between sites that cannot reach each other: it needs net.ipv4.ip_forward=1."] : []),
  ];
  for (const p of peersOf(plan, name)) {
    lines.push("", "[Peer]", `# ${p.node.name} (site ${p.node.site})`, `PublicKey = ${p.node.publicKey}`, `AllowedIPs = ${p.allowedIps.join(", ")}`);
    if (p.endpoint !== undefined) lines.push(`Endpoint = ${p.endpoint}`);
    if (p.keepaliveSec !== undefined) lines.push(`PersistentKeepalive = ${p.keepaliveSec}`);
  }
  return ok(`${lines.join("\n")}\n`);
}
