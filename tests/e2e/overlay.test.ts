/**
 * End-to-end: WireGuard peer distribution through the controller. Two agents start with
 * overlay configs that list no peers (as a node that has just joined has); each announces
 * its public key and address, and each rewrites its config to list the other. When one
 * node is set DOWN it leaves: the other's config drops it. No private key is ever sent:
 * the controller's log and the other node's config hold only public keys. (This host has
 * no WireGuard interface, so agents rewrite configs only; `wg set` is unit-tested.)
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeLocalConf } from "../../src/roles/local-cluster.ts";
import { planNetwork, wgQuickConfig } from "../../src/net/wireguard.ts";
import { wgGenKey } from "../../src/net/wireguard-keys.ts";
import { parseWgQuick, replacePeers } from "../../src/net/wg-conf.ts";
import { BIN } from "./cluster.ts";

let base = "";
let state = "";
const keys = { n1: wgGenKey(), n2: wgGenKey() };
const wgDir = () => join(base, "wg");

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), "spur-e2e-overlay-"));
  state = join(base, "cluster");
  mkdirSync(wgDir(), { recursive: true });
  mkdirSync(state, { recursive: true });
  const plan = planNetwork({ sites: [{ name: "hq", nodes: [{ name: "n1", endpoint: "127.0.0.1:51901" }, { name: "n2" }] }] },
    { n1: keys.n1.publicKey, n2: keys.n2.publicKey });
  if (!plan.ok) throw new Error(plan.error.message);
  for (const node of ["n1", "n2"] as const) {
    const conf = wgQuickConfig(plan.value, node, { privateKey: keys[node].privateKey });
    if (!conf.ok) throw new Error(conf.error.message);
    writeFileSync(join(wgDir(), `${node}.conf`), replacePeers(conf.value, []), { mode: 0o600 });
  }
  const conf = await writeLocalConf({ stateDir: state, nodes: 2, cpusPerNode: 1, memPerNodeMiB: 500, gpusPerNode: 0, gpuModel: "", slurmdTimeoutSec: 30 });
  appendFileSync(conf, `OverlayConf=${wgDir()}/%n.conf\nOverlayInterface=spurtest0\n`);
  // n1 can be dialled; n2 is behind NAT (no endpoint)
  writeFileSync(conf, readFileSync(conf, "utf8").replace(/^(NodeName=n1 .*)$/m, "$1 OverlayEndpoint=127.0.0.1:51901"));
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8", timeout: 60_000 });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
});

afterAll(() => {
  if (state !== "") spawnSync(BIN, ["down", "--state-dir", state], { timeout: 30_000 });
  if (base !== "") rmSync(base, { recursive: true, force: true });
});

const peersOf = (node: string): { node: string; publicKey: string; endpoint?: string; keepaliveSec?: number }[] => {
  const parsed = parseWgQuick(readFileSync(join(wgDir(), `${node}.conf`), "utf8"));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value.peers;
};

async function until(what: string, check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe("overlay peer distribution", () => {
  it("each agent learns the other's public key, address and endpoint", async () => {
    await until("both configs list their peer", () => peersOf("n1").length === 1 && peersOf("n2").length === 1);
    expect(peersOf("n1")[0]).toMatchObject({ node: "n2", publicKey: keys.n2.publicKey, allowedIps: ["10.100.0.2/32"] });
    expect(peersOf("n1")[0]?.endpoint).toBeUndefined();
    expect(peersOf("n2")[0]).toMatchObject({ node: "n1", publicKey: keys.n1.publicKey, endpoint: "127.0.0.1:51901", keepaliveSec: 25 });
    const conf = readFileSync(join(wgDir(), "n1.conf"), "utf8");
    expect(conf).toContain(`PrivateKey = ${keys.n1.privateKey}`);
    expect(conf).not.toContain(keys.n2.privateKey);
  });

  it("drops a node that leaves (set DOWN) from the others' configs", async () => {
    const r = spawnSync(BIN, ["scontrol", "update", "nodename=n2", "state=down", "reason=leaving"], {
      encoding: "utf8", env: { ...process.env, SPUR_CONF: join(state, "spur.conf") },
    });
    expect(r.status, r.stderr).toBe(0);
    await until("n1 drops n2", () => peersOf("n1").length === 0);
  });

  it("never puts a private key in the controller's state or logs", () => {
    const logs = readdirSync(join(state, "log")).map((f) => readFileSync(join(state, "log", f), "utf8")).join("");
    for (const k of [keys.n1.privateKey, keys.n2.privateKey]) expect(logs).not.toContain(k);
    expect(logs).toContain("overlay peers changed");
  });
});
