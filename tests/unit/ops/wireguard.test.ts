/**
 * @module tests/unit/ops/wireguard
 * The WireGuard overlay: keys in `wg genkey` form (checked against RFC 7748's vector and
 * against `wg pubkey` when installed), the address plan and peers of a 3-site example
 * (one public site, two behind NAT), and every config through `wg-quick strip` when
 * wireguard-tools is installed.
 */
import { existsSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isWgKey, peersOf, planNetwork, wgQuickConfig, type NetPlan, type NetPlanInput } from "../../../src/net/wireguard.ts";
import { wgGenKey, wgPublicKey } from "../../../src/net/wireguard-keys.ts";
import { netInit, netKeygen } from "../../../src/ops/net-cli.ts";

const hasCmd = (cmd: string): boolean => Bun.spawnSync(["sh", "-c", `command -v ${cmd}`]).exitCode === 0;
const hex64 = (hex: string): string => Buffer.from(hex, "hex").toString("base64");

const THREE_SITES: NetPlanInput = {
  sites: [
    { name: "hq", nodes: [{ name: "ctl", endpoint: "203.0.113.10" }, { name: "hq1", endpoint: "203.0.113.11:51821", listenPort: 51821 }] },
    { name: "lab", nat: true, nodes: [{ name: "lab1", endpoint: "192.168.1.5" }, { name: "lab2" }] },
    { name: "cloud", nat: true, nodes: [{ name: "c1" }] },
  ],
};

function keysFor(input: NetPlanInput): { pub: Record<string, string>; priv: Record<string, string> } {
  const pub: Record<string, string> = {};
  const priv: Record<string, string> = {};
  for (const n of input.sites.flatMap((s) => s.nodes)) {
    const k = wgGenKey();
    pub[n.name] = k.publicKey;
    priv[n.name] = k.privateKey;
  }
  return { pub, priv };
}

function planned(input: NetPlanInput, pub: Record<string, string>): NetPlan {
  const p = planNetwork(input, pub);
  if (!p.ok) throw new Error(p.error.message);
  return p.value;
}

describe("WireGuard keys", () => {
  it("derives the public key of RFC 7748's test vector (Alice)", () => {
    const alice = hex64("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a");
    expect(wgPublicKey(alice)).toBe(hex64("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"));
  });

  it("makes clamped 32-byte keys in base64, as wg genkey does", () => {
    const k = wgGenKey();
    expect(isWgKey(k.privateKey) && isWgKey(k.publicKey)).toBe(true);
    const raw = Buffer.from(k.privateKey, "base64");
    expect([(raw[0] ?? 1) & 7, (raw[31] ?? 0) & 0xc0]).toEqual([0, 0x40]);
    expect(wgPublicKey(k.privateKey)).toBe(k.publicKey);
  });

  it.skipIf(!hasCmd("wg"))("agrees with `wg pubkey`", () => {
    const k = wgGenKey();
    const out = Bun.spawnSync(["wg", "pubkey"], { stdin: Buffer.from(`${k.privateKey}\n`) });
    expect(out.stdout.toString().trim()).toBe(k.publicKey);
  });
});

describe("a 3-site overlay (hq public, lab and cloud behind NAT)", () => {
  const { pub, priv } = keysFor(THREE_SITES);
  const plan = planned(THREE_SITES, pub);
  const peers = (name: string) => Object.fromEntries(peersOf(plan, name).map((p) => [p.node.name, p]));

  it("gives each site a /24 of 10.100.0.0/16 and each node the next address in it", () => {
    expect(plan.siteSubnets).toEqual({ hq: "10.100.0.0/24", lab: "10.100.1.0/24", cloud: "10.100.2.0/24" });
    expect(plan.nodes.map((n) => [n.name, n.address, n.endpoint ?? "-", n.relay])).toEqual([
      ["ctl", "10.100.0.1", "203.0.113.10:51820", true], ["hq1", "10.100.0.2", "203.0.113.11:51821", false],
      ["lab1", "10.100.1.1", "192.168.1.5:51820", false], ["lab2", "10.100.1.2", "-", false], ["c1", "10.100.2.1", "-", false],
    ]);
  });

  it("dials public endpoints, keeps NAT mappings open, and relays NAT-to-NAT traffic through hq", () => {
    expect(peers("lab1").ctl).toMatchObject({ endpoint: "203.0.113.10:51820", keepaliveSec: 25, allowedIps: ["10.100.0.1/32", "10.100.2.1/32"] });
    expect(peers("lab1").lab2).toEqual({ node: expect.anything(), allowedIps: ["10.100.1.2/32"] });
    expect(peers("lab2").lab1).toMatchObject({ endpoint: "192.168.1.5:51820" });
    expect(peers("lab2").lab1?.keepaliveSec).toBeUndefined();
    expect(Object.keys(peers("c1"))).toEqual(["ctl", "hq1"]);
    expect(peers("c1").ctl?.allowedIps).toEqual(["10.100.0.1/32", "10.100.1.1/32", "10.100.1.2/32"]);
    expect(peers("ctl").c1).toEqual({ node: expect.anything(), allowedIps: ["10.100.2.1/32"] });
    expect(Object.keys(peers("ctl"))).toEqual(["hq1", "lab1", "lab2", "c1"]);
  });

  it("writes wg-quick configs with the key inline or loaded from a file on the node", () => {
    const inline = wgQuickConfig(plan, "lab1", { privateKey: priv.lab1 ?? "" });
    expect(inline.ok && inline.value.split("\n").slice(1, 5)).toEqual([
      "[Interface]", `PrivateKey = ${priv.lab1}`, "Address = 10.100.1.1/16", "ListenPort = 51820",
    ]);
    expect(inline.ok && inline.value).toContain(`[Peer]\n# ctl (site hq)\nPublicKey = ${pub.ctl}\nAllowedIPs = 10.100.0.1/32, 10.100.2.1/32\nEndpoint = 203.0.113.10:51820\nPersistentKeepalive = 25\n`);
    const byFile = wgQuickConfig(plan, "ctl", { privateKeyFile: "/etc/spur/wg.key" });
    expect(byFile.ok && byFile.value).toContain("PostUp = wg set %i private-key /etc/spur/wg.key\n");
    expect(byFile.ok && byFile.value).not.toContain("PrivateKey");
    expect(byFile.ok && byFile.value).toContain("net.ipv4.ip_forward=1");
  });

  it.skipIf(!hasCmd("wg-quick"))("every config passes `wg-quick strip`", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-wg-"));
    for (const n of plan.nodes) {
      const conf = wgQuickConfig(plan, n.name, { privateKey: priv[n.name] ?? "" });
      if (!conf.ok) throw new Error(conf.error.message);
      const path = join(dir, `wg-${n.name}.conf`);
      writeFileSync(path, conf.value, { mode: 0o600 });
      const r = Bun.spawnSync(["wg-quick", "strip", path]);
      expect([n.name, r.exitCode, r.stderr.toString()]).toEqual([n.name, 0, ""]);
      const stripped = r.stdout.toString();
      expect(stripped).toContain(`PrivateKey = ${priv[n.name]}`);
      expect(stripped).not.toContain("Address =");
      expect(stripped.match(/\[Peer\]/g)?.length).toBe(peersOf(plan, n.name).length);
    }
  });
});

describe("plan checks", () => {
  const key = wgGenKey().publicKey;
  const site = (name: string, count: number, nat = false) => ({
    name, nat, nodes: Array.from({ length: count }, (_, i) => ({ name: `${name}${i}`, publicKey: key, ...(nat ? {} : { endpoint: `198.51.100.${i + 1}` }) })),
  });

  it("fits sites into a smaller CIDR, and refuses one that is too small or misaligned", () => {
    const p = planNetwork({ cidr: "10.9.0.0/22", sites: [site("a", 3), site("b", 2)] });
    expect(p.ok && p.value.siteSubnets).toEqual({ a: "10.9.0.0/24", b: "10.9.1.0/24" });
    expect(planNetwork({ cidr: "10.9.0.0/29", sites: [site("a", 5), site("b", 5)] })).toMatchObject({ ok: false, error: { code: "BadCidr" } });
    expect(planNetwork({ cidr: "10.9.0.1/24", sites: [site("a", 1)] })).toMatchObject({ ok: false, error: { code: "BadCidr" } });
  });

  it("refuses repeated names, missing keys, and NAT sites with no relay", () => {
    expect(planNetwork({ sites: [site("a", 1), site("a", 1)] })).toMatchObject({ ok: false, error: { code: "BadPlan" } });
    expect(planNetwork({ sites: [{ name: "x", nodes: [{ name: "n" }] }] })).toMatchObject({ ok: false, error: { message: "node n has no valid public key" } });
    expect(planNetwork({ sites: [site("p", 1, true), site("q", 1, true)] })).toMatchObject({ ok: false, error: { message: expect.stringContaining("no public node can relay") } });
  });
});

describe("spur net", () => {
  it("init writes a config per node and plan.json, and a re-run keeps the keys it made", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-net-"));
    const planFile = join(dir, "plan.in.json");
    const ctlKey = wgGenKey();
    const input = structuredClone(THREE_SITES);
    if (input.sites[0]?.nodes[0] !== undefined) input.sites[0].nodes[0].publicKey = ctlKey.publicKey;
    writeFileSync(planFile, JSON.stringify(input));
    const out = join(dir, "net");
    const r = netInit({ plan: planFile, out, keyFile: "/etc/spur/wg.key" });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("wrote 5 configs and plan.json");
    expect(r.stderr).toContain("private keys of hq1, lab1, lab2, c1 were made here");
    const ctl = readFileSync(join(out, "ctl.conf"), "utf8");
    expect(ctl).toContain("PostUp = wg set %i private-key /etc/spur/wg.key");
    const lab1 = readFileSync(join(out, "lab1.conf"), "utf8");
    expect(netInit({ plan: planFile, out }).exitCode).toBe(0);
    expect(readFileSync(join(out, "lab1.conf"), "utf8")).toBe(lab1);
    const saved = JSON.parse(readFileSync(join(out, "plan.json"), "utf8")) as NetPlan;
    expect(saved.nodes.find((n) => n.name === "ctl")?.publicKey).toBe(ctlKey.publicKey);
  });

  it("keygen writes a private key once (mode 600) and prints its public half", () => {
    const path = join(mkdtempSync(join(tmpdir(), "spur-key-")), "wg.key");
    const first = netKeygen(path);
    expect(first.exitCode).toBe(0);
    expect(existsSync(path)).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(wgPublicKey(readFileSync(path, "utf8").trim())).toBe(first.stdout.trim());
    expect(netKeygen(path).stdout).toBe(first.stdout);
    expect(netInit({}).exitCode).toBe(2);
  });
});
