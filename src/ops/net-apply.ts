/**
 * @module ops/net-apply
 * `spur net apply CONF [--interface NAME] [--dry-run]`: brings a node's WireGuard overlay
 * interface up from the wg-quick config `spur net init` wrote, with `ip` and `wg` as
 * wg-quick would (net/wg-conf plans the commands): with the kernel module where it exists,
 * else with `wireguard-go` (userspace, over /dev/net/tun), as wg-quick falls back too. Says
 * plainly what is missing: the wg tool (wireguard-tools), ip (iproute2), root, or both the
 * kernel module and wireguard-go. --dry-run prints the
 * commands and the `wg setconf` text (private key hidden) and needs none of them. A failed
 * bring-up removes an interface it created. The world comes in as ports (tests fake them).
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { applyCommands, parseWgQuick, stripWgQuick, type WgQuickConf } from "../net/wg-conf.ts";
import { err, ok, type Result } from "../lib/result.ts";
import { tryHelp, type OpsResult } from "./check-cli.ts";
import { shellQuoteIfNeeded as quote } from "../lib/shell-quote.ts";

export interface NetApplyPorts {
  readFile(path: string): string | undefined;
  which(cmd: string): boolean;
  isRoot(): boolean;
  /** /sys/module/wireguard exists (module loaded or built in). */
  moduleLoaded(): boolean;
  run(argv: string[]): { code: number; stderr: string };
  /** Writes the stripped config somewhere private (mode 600); returns its path and a cleanup. */
  writePrivate(text: string): { path: string; cleanup(): void };
}

export const DEFAULT_INTERFACE = "spur0";

const fail = (text: string, exitCode = 1): OpsResult => ({ stdout: "", stderr: `spur: error: net apply: ${text}\n`, exitCode });
const hideKey = (text: string): string => text.replace(/^(\s*PrivateKey\s*=\s*).*$/gim, "$1(hidden)");

const MODULE_HINT =
  "the WireGuard kernel module is not available on this host (`ip link add ... type wireguard` says: Unknown device type) " +
  "and wireguard-go is not installed. Either install wireguard-go (userspace; Debian/Ubuntu: apt-get install wireguard-go; needs /dev/net/tun), " +
  "or load the module: Linux 5.6 and later have it (`modprobe wireguard`; in a container, load it on the host; older kernels need wireguard-dkms)";
const USERSPACE = "wireguard-go";

/** How the interface came up. */
export type OverlayMode = "kernel" | "wireguard-go" | "existing";

export interface OverlayApplied {
  iface: string;
  mode: OverlayMode;
  addresses: string[];
  peers: number;
}

/** What cannot work here, in the words an operator needs; [] when everything is present. */
function missing(ports: NetApplyPorts): string[] {
  const out: string[] = [];
  if (!ports.which("wg")) out.push("the wg command is missing: install wireguard-tools (Debian/Ubuntu: apt-get install wireguard-tools)");
  if (!ports.which("ip")) out.push("the ip command is missing: install iproute2");
  if (!ports.isRoot()) out.push("bringing an interface up needs root (CAP_NET_ADMIN)");
  return out;
}

export interface NetApplyFlags {
  /** The node's wg-quick config (written by spur net init). */
  conf?: string | undefined;
  /** Default spur0. */
  iface?: string | undefined;
  /** Print the commands and the config (key hidden) instead. */
  dryRun?: boolean | undefined;
}

/** `spur net apply` (flags: roles/admin/net.ts); the host comes in as ports. */
export function netApplyMain(flags: NetApplyFlags, ports: NetApplyPorts = hostPorts()): OpsResult {
  const confPath = flags.conf;
  if (confPath === undefined) return fail(`give the node's wg-quick config (written by spur net init)\n${tryHelp("net apply")}`, 2);
  const iface = flags.iface ?? DEFAULT_INTERFACE;
  const dryRun = flags.dryRun === true;
  const text = ports.readFile(confPath);
  if (text === undefined) return fail(`cannot read ${confPath}`);
  const conf = parseWgQuick(text);
  if (!conf.ok) return fail(`${confPath}: ${conf.error.message}`);
  const stripped = stripWgQuick(text);
  if (!stripped.ok) return fail(`${confPath}: ${stripped.error.message}`);
  const exists = ports.which("ip") && ports.run(["ip", "link", "show", "dev", iface]).code === 0;
  if (dryRun) {
    const plan = applyCommands({ iface, conf: conf.value, strippedPath: "STRIPPED.conf", exists });
    if (!plan.ok) return fail(plan.error.message, 2);
    const warn = missing(ports).map((m) => `spur: net apply: warning: ${m}\n`).join("");
    const body = `# commands (STRIPPED.conf is the text below, written mode 600):\n${plan.value.map((c) => c.map(quote).join(" ")).join("\n")}\n` +
      `# STRIPPED.conf (wg setconf form):\n${hideKey(stripped.value)}`;
    return { stdout: body, stderr: warn, exitCode: 0 };
  }
  const applied = applyConf(ports, iface, conf.value, stripped.value, exists);
  if (!applied.ok) return fail(applied.error.message, applied.error.exitCode ?? 1);
  const a = applied.value;
  const how = a.mode === "wireguard-go" ? " (wireguard-go: no kernel module)" : "";
  return { stdout: `${iface} up${how}: ${a.addresses.join(", ")}, ${a.peers} peer${a.peers === 1 ? "" : "s"}\n`, stderr: "", exitCode: 0 };
}

/** Brings the interface up from a parsed config and its `wg setconf` text; the caller says whether it exists already. */
export function applyConf(ports: NetApplyPorts, iface: string, conf: WgQuickConf, strippedText: string, exists: boolean): Result<OverlayApplied> {
  const problems = missing(ports);
  if (problems.length > 0) return err("NetApplyMissing", problems.join("; "));
  // Try to load the module; whether it worked is for `ip link add` to say (built-in modules
  // and containers make /sys/module an unreliable witness).
  if (!exists && !ports.moduleLoaded() && ports.which("modprobe")) ports.run(["modprobe", "wireguard"]);
  const file = ports.writePrivate(strippedText);
  try {
    return runPlan(ports, iface, conf, file.path, exists);
  } finally {
    file.cleanup();
  }
}

const noModule = (stderr: string): boolean => /unknown device type|not supported/i.test(stderr);

/**
 * The first step, creating the interface: the kernel's, else wireguard-go's (it creates a TUN
 * interface of that name and serves `wg` on /var/run/wireguard/IFACE.sock).
 */
function createInterface(ports: NetApplyPorts, cmd: string[]): { mode: OverlayMode } | { failed: string } {
  const r = ports.run(cmd);
  if (r.code === 0) return { mode: "kernel" };
  if (!noModule(r.stderr)) return { failed: `\`${cmd.map(quote).join(" ")}\` failed: ${r.stderr.trim() || `exit ${r.code}`}` };
  const iface = cmd[4] ?? "";
  if (!ports.which(USERSPACE)) return { failed: MODULE_HINT };
  const u = ports.run([USERSPACE, iface]);
  if (u.code !== 0) return { failed: `\`${USERSPACE} ${quote(iface)}\` failed: ${u.stderr.trim() || `exit ${u.code}`} (is /dev/net/tun there?)` };
  return { mode: "wireguard-go" };
}

function runPlan(ports: NetApplyPorts, iface: string, conf: WgQuickConf, path: string, exists: boolean): Result<OverlayApplied> {
  const plan = applyCommands({ iface, conf, strippedPath: path, exists });
  if (!plan.ok) return err(plan.error.code, plan.error.message, 2);
  let mode: OverlayMode = "existing";
  let created = false;
  for (const cmd of plan.value) {
    if (cmd[0] === "ip" && cmd[2] === "add") {
      const c = createInterface(ports, cmd);
      if ("failed" in c) return err("NetApplyFailed", c.failed);
      mode = c.mode;
      created = true;
      continue;
    }
    const r = ports.run(cmd);
    if (r.code === 0) continue;
    if (created) ports.run(["ip", "link", "del", "dev", iface]);
    const undo = created ? ` (removed ${iface} again)` : "";
    return err("NetApplyFailed", `\`${cmd.map(quote).join(" ")}\` failed: ${r.stderr.trim() || `exit ${r.code}`}${undo}`);
  }
  return ok({ iface, mode, addresses: conf.addresses, peers: conf.peers.length });
}

function onPath(cmd: string): boolean {
  const dirs = (process.env.PATH ?? "").split(":").filter(Boolean);
  for (const extra of ["/usr/sbin", "/sbin"]) if (!dirs.includes(extra)) dirs.push(extra);
  return dirs.some((d) => {
    try {
      accessSync(join(d, cmd), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function hostPorts(): NetApplyPorts {
  return {
    readFile: (path) => (existsSync(path) ? readFileSync(path, "utf8") : undefined),
    which: onPath,
    isRoot: () => process.getuid?.() === 0,
    moduleLoaded: () => existsSync("/sys/module/wireguard"),
    run(argv) {
      const [cmd = "", ...args] = argv;
      const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 30_000 });
      return { code: r.status ?? 1, stderr: `${r.stderr ?? ""}${r.error ? String(r.error) : ""}` };
    },
    writePrivate(text) {
      const dir = mkdtempSync(join(tmpdir(), "spur-wg-"));
      const path = join(dir, "setconf.conf");
      writeFileSync(path, text, { mode: 0o600 });
      return { path, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
    },
  };
}
