/**
 * @module net/overlay-peers
 * WireGuard peer distribution, pure. The controller side keeps a soft registry of overlay
 * members (node, public key, overlay address, endpoint) that agents re-announce every
 * refresh; a member not heard from for MEMBER_TTL_REFRESHES refreshes, or whose node is
 * DOWN, has left. The agent side turns the member list into the peers its interface
 * should have (full mesh; keepalive when it cannot be dialled itself) and diffs that
 * against the peers it has, as `wg set` commands. Only public keys ever appear here.
 */
import { err, ok, type Result } from "../lib/result.ts";
import { isWgKey } from "./wireguard.ts";

export interface OverlayMember {
  node: string;
  publicKey: string;
  address: string;
  /** "host:port"; "" when the node cannot be dialled. */
  endpoint: string;
}

export interface OverlayPeer {
  /** Node name, for comments and logs; peers are keyed by public key. */
  node: string;
  publicKey: string;
  allowedIps: string[];
  endpoint?: string;
  keepaliveSec?: number;
}

export const OVERLAY_REFRESH_MS = 5000;
export const MEMBER_TTL_REFRESHES = 4;
export const OVERLAY_KEEPALIVE_SEC = 25;
/** An overlay larger than this is a mistake (the address plan holds 65k at most). */
export const MAX_MEMBERS = 65_536;

/** Soft state: node name → the member and when it was last announced (seconds). */
export type OverlayRegistry = Map<string, { member: OverlayMember; seenAt: number }>;

const IPV4_RE = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;
const ENDPOINT_RE = /^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/;

export function checkMember(m: OverlayMember): Result<OverlayMember> {
  if (!isWgKey(m.publicKey)) return err("BadMember", `node ${m.node}: overlay public key is not a WireGuard key`);
  const ip = IPV4_RE.exec(m.address);
  if (ip === null || ip.slice(1).some((o) => Number(o) > 255)) return err("BadMember", `node ${m.node}: bad overlay address "${m.address}"`);
  if (m.endpoint !== "" && !ENDPOINT_RE.test(m.endpoint)) return err("BadMember", `node ${m.node}: bad overlay endpoint "${m.endpoint}" (want host:port)`);
  return ok(m);
}

/**
 * A node announces itself. Refused: an invalid record, or an address or public key another
 * live member holds (two nodes with one address would steal each other's traffic).
 */
export function announce(reg: OverlayRegistry, m: OverlayMember, nowSec: number): Result<void> {
  const checked = checkMember(m);
  if (!checked.ok) return checked;
  for (const [node, other] of reg) {
    if (node === m.node || nowSec - other.seenAt > ttlSec()) continue;
    if (other.member.address === m.address) return err("AddressInUse", `overlay address ${m.address} of ${m.node} is already ${node}'s`);
    if (other.member.publicKey === m.publicKey) return err("KeyInUse", `the overlay public key of ${m.node} is already ${node}'s`);
  }
  if (!reg.has(m.node) && reg.size >= MAX_MEMBERS) return err("TooMany", `the overlay has ${reg.size} members (at most ${MAX_MEMBERS})`);
  reg.set(m.node, { member: { ...m }, seenAt: nowSec });
  return ok(undefined);
}

const ttlSec = (): number => (OVERLAY_REFRESH_MS / 1000) * MEMBER_TTL_REFRESHES;

/** Live members, sorted by node name; `isDown` says which nodes have left by being DOWN. */
export function liveMembers(reg: OverlayRegistry, nowSec: number, isDown: (node: string) => boolean): OverlayMember[] {
  const out: OverlayMember[] = [];
  for (const [node, { member, seenAt }] of reg) {
    if (nowSec - seenAt <= ttlSec() && !isDown(node)) out.push(member);
  }
  return out.sort((a, b) => a.node.localeCompare(b.node));
}

/**
 * The peers `self` should have: every other member it can reach, with keepalive toward
 * dialable peers when self cannot be dialled. Two members that neither can dial (both
 * without an endpoint) talk through a relay: the first dialable member by name carries
 * the other's address in its AllowedIPs (the relay must forward IPv4, as with net init).
 * With no dialable member at all there is no relay and such members are left out.
 */
export function desiredPeers(self: OverlayMember, members: readonly OverlayMember[], keepaliveSec = OVERLAY_KEEPALIVE_SEC): OverlayPeer[] {
  const others = members.filter((m) => m.node !== self.node && m.publicKey !== self.publicKey).sort((a, b) => a.node.localeCompare(b.node));
  const direct = others.filter((m) => self.endpoint !== "" || m.endpoint !== "");
  const peers = direct.map((m): OverlayPeer => ({
    node: m.node, publicKey: m.publicKey, allowedIps: [`${m.address}/32`],
    ...(m.endpoint === "" ? {} : { endpoint: m.endpoint }),
    ...(self.endpoint === "" && m.endpoint !== "" ? { keepaliveSec } : {}),
  }));
  const relay = peers.find((p) => p.endpoint !== undefined);
  if (relay !== undefined) {
    for (const m of others) if (self.endpoint === "" && m.endpoint === "") relay.allowedIps.push(`${m.address}/32`);
  }
  return peers;
}

export interface PeerDiff {
  add: OverlayPeer[];
  /** Peers whose allowed IPs, endpoint or keepalive changed. */
  change: OverlayPeer[];
  /** Public keys of peers to remove. */
  remove: string[];
}

const samePeer = (a: OverlayPeer, b: OverlayPeer): boolean =>
  a.allowedIps.join(",") === b.allowedIps.join(",") && (a.endpoint ?? "") === (b.endpoint ?? "") && (a.keepaliveSec ?? 0) === (b.keepaliveSec ?? 0);

export function diffPeers(current: readonly OverlayPeer[], desired: readonly OverlayPeer[]): PeerDiff {
  const have = new Map(current.map((p) => [p.publicKey, p]));
  const want = new Map(desired.map((p) => [p.publicKey, p]));
  const add = desired.filter((p) => !have.has(p.publicKey));
  const change = desired.filter((p) => {
    const h = have.get(p.publicKey);
    return h !== undefined && !samePeer(h, p);
  });
  const remove = current.filter((p) => !want.has(p.publicKey)).map((p) => p.publicKey);
  return { add, change, remove };
}

export const isEmptyDiff = (d: PeerDiff): boolean => d.add.length + d.change.length + d.remove.length === 0;

/** argv lists for `wg set` that turn the interface's peers into the desired ones. */
export function wgSetCommands(iface: string, d: PeerDiff): string[][] {
  const cmds: string[][] = d.remove.map((key) => ["wg", "set", iface, "peer", key, "remove"]);
  for (const p of [...d.add, ...d.change]) {
    const cmd = ["wg", "set", iface, "peer", p.publicKey, "allowed-ips", p.allowedIps.join(",")];
    if (p.endpoint !== undefined) cmd.push("endpoint", p.endpoint);
    cmd.push("persistent-keepalive", p.keepaliveSec === undefined ? "off" : String(p.keepaliveSec));
    cmds.push(cmd);
  }
  return cmds;
}
