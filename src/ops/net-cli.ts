/**
 * @module ops/net-cli
 * The thin I/O shell of `spur net`:
 *   keygen [--key-file PATH]   on a node: make its key (mode 600) unless it exists; print the public half
 *   init PLAN.json [--out DIR] [--key-file PATH]
 *                              write DIR/<node>.conf (wg-quick, mode 600) for every node and DIR/plan.json
 *   apply CONF [--interface NAME] [--dry-run]
 *                              bring the interface up with ip and wg (ops/net-apply.ts)
 * A node whose public key is in the plan gets a config that loads its private key from
 * --key-file at PostUp (the key never leaves it). A node without one gets a key made here,
 * inline in its config; re-running init reuses the keys of configs already in DIR.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { planNetwork, wgQuickConfig, type NetPlanInput } from "../net/wireguard.ts";
import { wgGenKey, wgPublicKey } from "../net/wireguard-keys.ts";
import { tryHelp, type OpsResult } from "./check-cli.ts";

export const DEFAULT_KEY_FILE = "/etc/spur/wg.key";

const fail = (text: string, exitCode = 1): OpsResult => ({ stdout: "", stderr: `spur: error: net: ${text}\n`, exitCode });

/** `spur net keygen`: this node's key at `keyFile` (made unless it exists); prints its public half. */
export function netKeygen(keyFile: string = DEFAULT_KEY_FILE): OpsResult {
  const path = keyFile;
  if (existsSync(path)) {
    const priv = readFileSync(path, "utf8").trim();
    return { stdout: `${wgPublicKey(priv)}\n`, stderr: `spur: net: ${path} exists; its public key:\n`, exitCode: 0 };
  }
  const pair = wgGenKey();
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${pair.privateKey}\n`, { mode: 0o600 });
  chmodSync(path, 0o600);
  return { stdout: `${pair.publicKey}\n`, stderr: `spur: net: wrote ${path}; put this public key in the plan:\n`, exitCode: 0 };
}

/** The private key of a config written by an earlier run, if any. */
function earlierKey(dir: string, node: string): string | undefined {
  const path = join(dir, `${node}.conf`);
  if (!existsSync(path)) return undefined;
  return /^PrivateKey = (\S+)$/m.exec(readFileSync(path, "utf8"))?.[1];
}

export interface NetInitFlags {
  /** The plan (JSON: sites, nodes, optional public keys). */
  plan?: string | undefined;
  /** Where the configs and plan.json go (default spur-net). */
  out?: string | undefined;
  /** Where a node whose public key is in the plan keeps its private key (default /etc/spur/wg.key). */
  keyFile?: string | undefined;
}

/** `spur net init` (flags: roles/admin/net.ts). */
export function netInit(flags: NetInitFlags): OpsResult {
  const planPath = flags.plan;
  if (planPath === undefined) return fail(`init needs a plan file\n${tryHelp("net init")}`, 2);
  const dir = flags.out ?? "spur-net";
  const keyFile = flags.keyFile ?? DEFAULT_KEY_FILE;
  let input: NetPlanInput;
  try {
    input = JSON.parse(readFileSync(planPath, "utf8")) as NetPlanInput;
  } catch (e) {
    return fail(`cannot read ${planPath}: ${(e as Error).message}`);
  }
  if (!Array.isArray(input.sites)) return fail(`${planPath}: "sites" must be a list`);
  const made = new Map<string, string>();
  const keys: Record<string, string> = {};
  for (const node of input.sites.flatMap((s) => s.nodes ?? [])) {
    if (node.publicKey !== undefined) continue;
    const priv = earlierKey(dir, node.name) ?? wgGenKey().privateKey;
    made.set(node.name, priv);
    keys[node.name] = wgPublicKey(priv);
  }
  const plan = planNetwork(input, keys);
  if (!plan.ok) return fail(plan.error.message);
  mkdirSync(dir, { recursive: true });
  for (const node of plan.value.nodes) {
    const priv = made.get(node.name);
    const conf = wgQuickConfig(plan.value, node.name, priv === undefined ? { privateKeyFile: keyFile } : { privateKey: priv });
    if (!conf.ok) return fail(conf.error.message);
    writeFileSync(join(dir, `${node.name}.conf`), conf.value, { mode: 0o600 });
    chmodSync(join(dir, `${node.name}.conf`), 0o600);
  }
  writeFileSync(join(dir, "plan.json"), `${JSON.stringify(plan.value, null, 2)}\n`, { mode: 0o644 });
  const lines = plan.value.nodes.map((n) => `  ${n.name.padEnd(16)} ${n.address.padEnd(15)} site ${n.site}${n.relay ? " (relay)" : ""}\n`);
  const warn = made.size === 0 ? "" :
    `spur: net: warning: private keys of ${[...made.keys()].join(", ")} were made here and are inside their configs: ` +
      "copy each config to its node only, then delete it here (or run `spur net keygen` on the node and put the public key in the plan)\n";
  return { stdout: `wrote ${plan.value.nodes.length} configs and plan.json to ${dir}\n${lines.join("")}`, stderr: warn, exitCode: 0 };
}
