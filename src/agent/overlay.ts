/**
 * @module agent/overlay
 * The agent's side of WireGuard peer distribution: every refresh it announces its own
 * member record to the controller (the public key, derived here from the node's private
 * key, which never leaves the node), diffs the live members against the peers in its
 * wg-quick config, rewrites that config (mode 600, atomically) and, when the interface is
 * up and `wg` is installed, applies the same diff with `wg set`. Failure policy: a
 * controller away or a config unreadable is logged and retried; nothing else stops.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import type { ConsolaInstance } from "consola/core";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { agentAuthInterceptor } from "../net/cluster-auth.ts";
import { connectTls } from "../net/tls.ts";
import { Controller } from "../net/gen/spur/v1/controller_pb.ts";
import { OVERLAY_REFRESH_MS, desiredPeers, diffPeers, isEmptyDiff, wgSetCommands, type OverlayMember } from "../net/overlay-peers.ts";
import { parseWgQuick, replacePeers } from "../net/wg-conf.ts";
import { wgPublicKey } from "../net/wireguard-keys.ts";

export interface OverlayAgentDeps {
  node: string;
  /** This node's wg-quick config (written by `spur net init`, kept up to date here). */
  confPath: string;
  iface: string;
  /** "host:port" others dial, "" when it cannot be dialled. */
  endpoint: string;
  controllerUrl: string;
  /** The cluster secret: calls to the controller are signed with it (net/cluster-auth). */
  clusterSecret?: string;
  logger: ConsolaInstance;
}

/** The member record of this node, from its config; the private key is read here and only its public half leaves. */
function selfMember(deps: OverlayAgentDeps, text: string): { member: OverlayMember; conf: ReturnType<typeof parseWgQuick> } {
  const conf = parseWgQuick(text);
  if (!conf.ok) throw new Error(`${deps.confPath}: ${conf.error.message}`);
  const priv = conf.value.privateKey ?? readFileSync(conf.value.privateKeyFile ?? "", "utf8").trim();
  const address = (conf.value.addresses[0] ?? "").split("/")[0] ?? "";
  return { member: { node: deps.node, publicKey: wgPublicKey(priv), address, endpoint: deps.endpoint }, conf };
}

const interfaceUp = (iface: string): boolean => spawnSync("ip", ["link", "show", "dev", iface], { stdio: "ignore" }).status === 0;

export function createOverlayAgent(deps: OverlayAgentDeps): { start(): () => void } {
  const interceptors = deps.clusterSecret === undefined ? [] : [agentAuthInterceptor(deps.clusterSecret, deps.node)];
  const ctl = createClient(Controller, createConnectTransport({ baseUrl: deps.controllerUrl, httpVersion: "1.1", interceptors, ...connectTls(deps.controllerUrl) }));
  const log = deps.logger.withTag("overlay");
  let lastError = "";

  async function turn(): Promise<number> {
    const text = readFileSync(deps.confPath, "utf8");
    const { member, conf } = selfMember(deps, text);
    if (!conf.ok) return OVERLAY_REFRESH_MS;
    const r = await ctl.overlayPeers({ self: member }, { timeoutMs: 5000 });
    const want = desiredPeers(member, r.members, r.keepaliveSec || undefined);
    const diff = diffPeers(conf.value.peers, want);
    if (!isEmptyDiff(diff)) {
      const tmp = `${deps.confPath}.tmp`;
      writeFileSync(tmp, replacePeers(text, want), { mode: 0o600 });
      renameSync(tmp, deps.confPath);
      const applied = interfaceUp(deps.iface) && spawnSync("wg", ["--version"], { stdio: "ignore" }).status === 0;
      if (applied) for (const cmd of wgSetCommands(deps.iface, diff)) spawnSync(cmd[0] ?? "wg", cmd.slice(1), { stdio: "ignore" });
      log.info({
        message: "overlay peers changed", added: diff.add.map((p) => p.node), changed: diff.change.map((p) => p.node),
        removed: diff.remove.length, interface: applied ? deps.iface : `${deps.iface} not up: config rewritten only`,
      });
    }
    return r.refreshIntervalMs || OVERLAY_REFRESH_MS;
  }

  return {
    start() {
      let stopped = false;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const loop = async () => {
        let waitMs = OVERLAY_REFRESH_MS;
        try {
          waitMs = await turn();
          lastError = "";
        } catch (error) {
          const text = String((error as Error).message ?? error);
          if (text !== lastError) log.warn({ message: "overlay refresh failed", error: text });
          lastError = text;
        }
        if (!stopped) timer = setTimeout(loop, waitMs);
      };
      void loop();
      return () => {
        stopped = true;
        if (timer !== undefined) clearTimeout(timer);
      };
    },
  };
}
