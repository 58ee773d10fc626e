/**
 * @module net/wg-conf
 * wg-quick configuration text, pure: read it, strip it to what `wg setconf` accepts (as
 * `wg-quick strip` does), plan the `ip`/`wg` commands that bring the interface up the way
 * wg-quick would (without its DNS, firewall and policy-routing extras, which Spur's
 * overlay does not use), and rewrite its [Peer] sections when the peer set changes.
 */
import { err, ok, type Result } from "../lib/result.ts";
import type { OverlayPeer } from "./overlay-peers.ts";
import { isWgKey } from "./wireguard.ts";

/** Keys only wg-quick reads; `wg setconf` refuses them. */
const WG_QUICK_ONLY = new Set(["address", "dns", "mtu", "table", "preup", "postup", "predown", "postdown", "saveconfig"]);
const INTERFACE_KEYS = new Set(["privatekey", "listenport", "fwmark", ...WG_QUICK_ONLY]);
const PEER_KEYS = new Set(["publickey", "presharedkey", "allowedips", "endpoint", "persistentkeepalive"]);
/** The one PostUp form Spur writes (net init with --key-file): load the private key from a file. */
const KEY_FILE_POSTUP = /^wg set %i private-key (\/\S+)$/;
export const DEFAULT_MTU = 1420;
const IFACE_RE = /^[a-zA-Z0-9_=+.-]{1,15}$/;

export interface WgQuickConf {
  privateKey?: string;
  privateKeyFile?: string;
  /** "10.100.1.3/16" */
  addresses: string[];
  listenPort?: number;
  mtu?: number;
  peers: OverlayPeer[];
}

interface Line {
  section: "" | "interface" | "peer";
  key: string;
  value: string;
  raw: string;
}

function lines(text: string): Result<Line[]> {
  const out: Line[] = [];
  let section: Line["section"] = "";
  for (const [i, raw] of text.split("\n").entries()) {
    const body = raw.replace(/#.*$/, "").trim();
    if (body === "") {
      out.push({ section, key: "", value: "", raw });
      continue;
    }
    const head = /^\[(\w+)\]$/.exec(body);
    if (head !== null) {
      const name = (head[1] ?? "").toLowerCase();
      if (name !== "interface" && name !== "peer") return err("BadWgConf", `line ${i + 1}: unknown section [${head[1]}]`);
      section = name;
      out.push({ section, key: "", value: "", raw });
      continue;
    }
    const kv = /^([A-Za-z]+)\s*=\s*(.*)$/.exec(body);
    if (kv === null || section === "") return err("BadWgConf", `line ${i + 1}: expected Key = Value inside [Interface] or [Peer]`);
    const key = (kv[1] ?? "").toLowerCase();
    if (!(section === "interface" ? INTERFACE_KEYS : PEER_KEYS).has(key)) return err("BadWgConf", `line ${i + 1}: ${kv[1]} is not a key of [${section === "interface" ? "Interface" : "Peer"}]`);
    out.push({ section, key, value: (kv[2] ?? "").trim(), raw });
  }
  return ok(out);
}

const list = (v: string): string[] => v.split(",").map((s) => s.trim()).filter(Boolean);

export function parseWgQuick(text: string): Result<WgQuickConf> {
  const read = lines(text);
  if (!read.ok) return read;
  const conf: WgQuickConf = { addresses: [], peers: [] };
  let peer: OverlayPeer | undefined;
  for (const l of read.value) {
    if (l.key === "" && l.section === "peer" && /^\s*\[/.test(l.raw)) {
      peer = { node: /#\s*(\S+)/.exec(l.raw)?.[1] ?? "", publicKey: "", allowedIps: [] };
      conf.peers.push(peer);
    }
    if (l.key === "" && l.section === "peer" && peer !== undefined && peer.node === "" && /^\s*#\s*\S/.test(l.raw)) peer.node = /#\s*(\S+)/.exec(l.raw)?.[1] ?? "";
    if (l.key === "") continue;
    if (l.section === "interface") {
      if (l.key === "privatekey") conf.privateKey = l.value;
      else if (l.key === "address") conf.addresses.push(...list(l.value));
      else if (l.key === "listenport") conf.listenPort = Number(l.value);
      else if (l.key === "mtu") conf.mtu = Number(l.value);
      else if (l.key === "postup") {
        const m = KEY_FILE_POSTUP.exec(l.value);
        if (m === null) return err("BadWgConf", `PostUp = ${l.value}: Spur runs only "wg set %i private-key FILE" (run other commands yourself)`);
        conf.privateKeyFile = m[1] ?? "";
      } else if (l.key !== "dns" && l.key !== "table" && l.key !== "saveconfig" && l.key !== "fwmark") {
        return err("BadWgConf", `${l.key} in [Interface] is not supported by spur net apply`);
      }
    } else if (peer !== undefined) {
      if (l.key === "publickey") peer.publicKey = l.value;
      else if (l.key === "allowedips") peer.allowedIps = list(l.value);
      else if (l.key === "endpoint") peer.endpoint = l.value;
      else if (l.key === "persistentkeepalive" && l.value !== "off") peer.keepaliveSec = Number(l.value);
    }
  }
  return checkConf(conf);
}

function checkConf(conf: WgQuickConf): Result<WgQuickConf> {
  if (conf.privateKey !== undefined && !isWgKey(conf.privateKey)) return err("BadWgConf", "PrivateKey is not a WireGuard key");
  if (conf.privateKey === undefined && conf.privateKeyFile === undefined) return err("BadWgConf", "[Interface] has neither PrivateKey nor a PostUp that loads one");
  if (conf.addresses.length === 0) return err("BadWgConf", "[Interface] has no Address");
  for (const a of conf.addresses) if (!network(a).ok || !a.includes("/")) return err("BadWgConf", `Address = ${a} is not IPv4 a.b.c.d/len`);
  for (const p of conf.peers) if (!isWgKey(p.publicKey)) return err("BadWgConf", `a [Peer]${p.node ? ` (${p.node})` : ""} has no valid PublicKey`);
  return ok(conf);
}

/** "10.100.1.3/16" → its network: base address as a number, and the prefix length. */
function network(address: string): Result<{ base: number; prefix: number }> {
  const [ip = "", len = "32"] = address.split("/");
  const octets = ip.split(".").map(Number);
  const prefix = Number(len);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255) || !Number.isInteger(prefix) || prefix < 0 || prefix > 32) {
    return err("BadAddress", address);
  }
  const size = 2 ** (32 - prefix);
  return ok({ base: Math.floor(octets.reduce((acc, o) => acc * 256 + o, 0) / size) * size, prefix });
}

/** Whether `cidr` lies inside the network `net`. */
function inside(cidr: string, net: { base: number; prefix: number }): boolean {
  const c = network(cidr);
  if (!c.ok || c.value.prefix < net.prefix) return false;
  const size = 2 ** (32 - net.prefix);
  return Math.floor(c.value.base / size) * size === net.base;
}

/** The text `wg setconf` accepts: wg-quick's own keys removed, everything else (comments too) kept, as `wg-quick strip` prints it. */
export function stripWgQuick(text: string): Result<string> {
  const read = lines(text);
  if (!read.ok) return read;
  // wg-quick keeps every other line and prints it with one more newline at the end.
  const kept = read.value.filter((l) => !WG_QUICK_ONLY.has(l.key)).map((l) => l.raw);
  return ok(`${kept.join("\n")}\n`);
}

export interface ApplyPlanInput {
  iface: string;
  conf: WgQuickConf;
  /** Where the stripped config will be written for `wg setconf`/`syncconf`. */
  strippedPath: string;
  /** The interface exists already (then peers are synced without tearing it down). */
  exists: boolean;
}

/** The commands, in order, that bring the interface up as wg-quick would (argv lists). */
export function applyCommands(input: ApplyPlanInput): Result<string[][]> {
  const { iface, conf } = input;
  if (!IFACE_RE.test(iface)) return err("BadInterface", `invalid interface name "${iface}" (1-15 of letters, digits, _=+.-)`);
  const cmds: string[][] = [];
  if (!input.exists) cmds.push(["ip", "link", "add", "dev", iface, "type", "wireguard"]);
  cmds.push(["wg", input.exists ? "syncconf" : "setconf", iface, input.strippedPath]);
  if (conf.privateKeyFile !== undefined) cmds.push(["wg", "set", iface, "private-key", conf.privateKeyFile]);
  const networks: { base: number; prefix: number }[] = [];
  for (const a of conf.addresses) {
    cmds.push(["ip", "-4", "address", "replace", a, "dev", iface]);
    const net = network(a);
    if (net.ok) networks.push(net.value);
  }
  cmds.push(["ip", "link", "set", "mtu", String(conf.mtu ?? DEFAULT_MTU), "up", "dev", iface]);
  const routes = new Set<string>();
  for (const p of conf.peers) {
    for (const cidr of p.allowedIps) if (!networks.some((n) => inside(cidr, n))) routes.add(cidr);
  }
  for (const r of [...routes].sort()) cmds.push(["ip", "-4", "route", "replace", r, "dev", iface]);
  return ok(cmds);
}

/** The config text with its [Peer] sections replaced by `peers` ([Interface] kept as written). */
export function replacePeers(text: string, peers: readonly OverlayPeer[]): string {
  const cut = text.search(/^\s*\[Peer\]/im);
  const head = (cut < 0 ? text : text.slice(0, cut)).replace(/\s+$/, "");
  const blocks = peers.map((p) => [
    "[Peer]", `# ${p.node}`, `PublicKey = ${p.publicKey}`, `AllowedIPs = ${p.allowedIps.join(", ")}`,
    ...(p.endpoint === undefined ? [] : [`Endpoint = ${p.endpoint}`]),
    ...(p.keepaliveSec === undefined ? [] : [`PersistentKeepalive = ${p.keepaliveSec}`]),
  ].join("\n"));
  return `${[head, ...blocks].join("\n\n")}\n`;
}
