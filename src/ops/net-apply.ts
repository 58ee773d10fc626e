/**
 * @module ops/net-apply
 * `spur net apply CONF [--interface NAME] [--dry-run]`: brings a node's WireGuard overlay
 * interface up from the wg-quick config `spur net init` wrote, with `ip` and `wg` as
 * wg-quick would (net/wg-conf plans the commands). Says plainly what is missing: the wg
 * tool (wireguard-tools), ip (iproute2), root, or the kernel module. --dry-run prints the
 * commands and the `wg setconf` text (private key hidden) and needs none of them. A failed
 * bring-up removes an interface it created. The world comes in as ports (tests fake them).
 */
import { spawnSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseFlags } from "../lib/flags.ts";
import { applyCommands, parseWgQuick, stripWgQuick } from "../net/wg-conf.ts";
import { refusedFlags, type OpsResult } from "./check-cli.ts";
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
const USAGE = "Usage: spur net apply CONF [--interface NAME] [--dry-run]\n";

const fail = (text: string, exitCode = 1): OpsResult => ({ stdout: "", stderr: `spur: error: net apply: ${text}\n`, exitCode });
const hideKey = (text: string): string => text.replace(/^(\s*PrivateKey\s*=\s*).*$/gim, "$1(hidden)");

const MODULE_HINT =
  "the WireGuard kernel module is not available on this host (`ip link add ... type wireguard` says: Unknown device type). " +
  "Linux 5.6 and later have it: run `modprobe wireguard`; in a container, load it on the host; older kernels need wireguard-dkms";

/** What cannot work here, in the words an operator needs; [] when everything is present. */
function missing(ports: NetApplyPorts): string[] {
  const out: string[] = [];
  if (!ports.which("wg")) out.push("the wg command is missing: install wireguard-tools (Debian/Ubuntu: apt-get install wireguard-tools)");
  if (!ports.which("ip")) out.push("the ip command is missing: install iproute2");
  if (!ports.isRoot()) out.push("bringing an interface up needs root (CAP_NET_ADMIN)");
  return out;
}

export function netApplyMain(argv: readonly string[], ports: NetApplyPorts = hostPorts()): OpsResult {
  const parsed = parseFlags(argv, { values: [["--interface"]], booleans: [["--dry-run", "-n"], ["--help", "-h"]], operands: 1 });
  if (!parsed.ok) return refusedFlags(parsed.error, "spur net");
  const flags = parsed.value;
  if (flags.on["--help"]) return { stdout: USAGE, stderr: "", exitCode: 0 };
  const confPath = flags.operands[0];
  if (confPath === undefined) return fail(`give the node's wg-quick config (written by spur net init)\n${USAGE}`, 2);
  const iface = flags.values["--interface"] ?? DEFAULT_INTERFACE;
  const dryRun = flags.on["--dry-run"] === true;
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
  const problems = missing(ports);
  if (problems.length > 0) return fail(problems.join("; "));
  // Try to load the module; whether it worked is for `ip link add` to say (built-in modules
  // and containers make /sys/module an unreliable witness).
  if (!exists && !ports.moduleLoaded() && ports.which("modprobe")) ports.run(["modprobe", "wireguard"]);
  const file = ports.writePrivate(stripped.value);
  try {
    return runPlan(ports, iface, conf.value, file.path, exists);
  } finally {
    file.cleanup();
  }
}

function runPlan(ports: NetApplyPorts, iface: string, conf: Parameters<typeof applyCommands>[0]["conf"], path: string, exists: boolean): OpsResult {
  const plan = applyCommands({ iface, conf, strippedPath: path, exists });
  if (!plan.ok) return fail(plan.error.message, 2);
  const done: string[] = [];
  for (const cmd of plan.value) {
    const r = ports.run(cmd);
    if (r.code === 0) {
      done.push(cmd.map(quote).join(" "));
      continue;
    }
    if (!exists && done.length > 0) ports.run(["ip", "link", "del", "dev", iface]);
    if (cmd[0] === "ip" && cmd[2] === "add" && /unknown device type|not supported/i.test(r.stderr)) return fail(MODULE_HINT);
    const undo = !exists && done.length > 0 ? ` (removed ${iface} again)` : "";
    return fail(`\`${cmd.map(quote).join(" ")}\` failed: ${r.stderr.trim() || `exit ${r.code}`}${undo}`);
  }
  const peers = conf.peers.length;
  return { stdout: `${iface} up: ${conf.addresses.join(", ")}, ${peers} peer${peers === 1 ? "" : "s"}\n`, stderr: "", exitCode: 0 };
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
