/**
 * @module net/peer-identity
 * Loopback authentication ("auth/loopback"): on Linux the kernel records the
 * owner uid of every TCP socket in /proc/net/tcp{,6}. For a connection from
 * 127.0.0.1:P, the socket whose local end is P belongs to the calling process,
 * so its uid is who is asking, without trusting anything the client sends.
 * Only loopback peers can be identified this way; others are refused.
 */
import { readFileSync } from "node:fs";

export interface PeerAddress {
  remoteAddress: string;
  remotePort: number;
  localPort: number;
}

export function isLoopback(address: string): boolean {
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

const hexPort = (port: number): string => port.toString(16).toUpperCase().padStart(4, "0");

/** The uid owning the client end of a loopback connection, or undefined if not found. */
export function loopbackPeerUid(peer: PeerAddress): number | undefined {
  if (!isLoopback(peer.remoteAddress)) return undefined;
  const wantLocal = `:${hexPort(peer.remotePort)}`;
  const wantRemote = `:${hexPort(peer.localPort)}`;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      const cols = line.trim().split(/\s+/);
      const local = cols[1];
      const remote = cols[2];
      if (local === undefined || remote === undefined) continue;
      if (local.endsWith(wantLocal) && remote.endsWith(wantRemote)) {
        const uid = Number(cols[7]);
        if (Number.isInteger(uid)) return uid;
      }
    }
  }
  return undefined;
}
