/**
 * @module ops/overlay-up
 * `bringUpOverlay`: the WireGuard overlay of one host, up from its wg-quick config, for
 * callers that start hosts themselves (`spur up --netns --overlay wireguard`, tests): the
 * same steps as `spur net apply` (kernel module, else wireguard-go), optionally inside a
 * network namespace (`ip netns exec NAME` before every command). `tearDownOverlay` removes
 * the interface (wireguard-go exits when its interface goes).
 * Hosts on one machine share /var/run/wireguard, where wireguard-go keeps one control socket
 * per interface name: give each host its own interface name there (e.g. `wg-n1`).
 */
import { existsSync, readFileSync } from "node:fs";
import { err, type Result } from "../lib/result.ts";
import { parseWgQuick, stripWgQuick } from "../net/wg-conf.ts";
import { DEFAULT_INTERFACE, applyConf, hostPorts, type NetApplyPorts, type OverlayApplied } from "./net-apply.ts";

export interface OverlayHost {
  /** The host's wg-quick config, as `spur net init` wrote it. */
  confPath: string;
  /** Interface name (1-15 characters); default spur0. */
  iface?: string;
  /** Run every command in this network namespace (`ip netns add` made it). */
  netns?: string;
}

/** The host's ports with every command run inside `netns` (files stay this process's). */
function portsIn(netns: string | undefined, base: NetApplyPorts = hostPorts()): NetApplyPorts {
  if (netns === undefined) return base;
  return { ...base, run: (argv) => base.run(["ip", "netns", "exec", netns, ...argv]) };
}

/** Brings one host's overlay interface up (or syncs its peers when it is up already). */
export function bringUpOverlay(host: OverlayHost, base?: NetApplyPorts): Result<OverlayApplied> {
  const ports = portsIn(host.netns, base);
  const iface = host.iface ?? DEFAULT_INTERFACE;
  const text = existsSync(host.confPath) ? readFileSync(host.confPath, "utf8") : undefined;
  if (text === undefined) return err("NetApplyConf", `cannot read ${host.confPath}`);
  const conf = parseWgQuick(text);
  if (!conf.ok) return err(conf.error.code, `${host.confPath}: ${conf.error.message}`);
  const stripped = stripWgQuick(text);
  if (!stripped.ok) return err(stripped.error.code, `${host.confPath}: ${stripped.error.message}`);
  const exists = ports.run(["ip", "link", "show", "dev", iface]).code === 0;
  return applyConf(ports, iface, conf.value, stripped.value, exists);
}

/** Removes the host's overlay interface; true when it was there. */
export function tearDownOverlay(host: Pick<OverlayHost, "iface" | "netns">, base?: NetApplyPorts): boolean {
  const ports = portsIn(host.netns, base);
  return ports.run(["ip", "link", "del", "dev", host.iface ?? DEFAULT_INTERFACE]).code === 0;
}
