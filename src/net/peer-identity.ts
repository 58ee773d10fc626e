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

/**
 * Found, but no process owns it: a socket already closed (TIME_WAIT, FIN_WAIT2 after close) keeps
 * its row with inode 0 and uid 0, and a listener is not a client. Either identifies nobody; it must
 * never read as root.
 */
export const NO_OWNER = -1;
const TCP_LISTEN = "0A";

const hexPort = (port: number): string => port.toString(16).toUpperCase().padStart(4, "0");

/** The uid owning the client end of a loopback connection, NO_OWNER, or undefined if not found. */
export function loopbackPeerUid(peer: PeerAddress): number | undefined {
  if (!isLoopback(peer.remoteAddress)) return undefined;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch {
      continue;
    }
    const uid = uidInTable(text, peer.remotePort, peer.localPort);
    if (uid !== undefined) return uid;
  }
  return undefined;
}

/**
 * The uid column of the /proc/net/tcp{,6} row whose local end is port `clientPort` and
 * remote end port `serverPort`. Finds candidate rows with indexOf instead of splitting
 * every row (the table holds every socket on the host, TIME_WAIT ones included, and this
 * runs once per request). A row with inode 0 (the client closed its socket) or in the listen
 * state answers NO_OWNER: the kernel writes uid 0 there, which is nobody, not root. Pure.
 */
export function uidInTable(text: string, clientPort: number, serverPort: number): number | undefined {
  const wantLocal = `:${hexPort(clientPort)} `;
  const wantRemote = `:${hexPort(serverPort)} `;
  for (let at = text.indexOf(wantLocal); at >= 0; at = text.indexOf(wantLocal, at + 1)) {
    const start = text.lastIndexOf("\n", at) + 1;
    const end = text.indexOf("\n", at);
    const cols = text.slice(start, end < 0 ? text.length : end).trim().split(/\s+/);
    const local = cols[1];
    const remote = cols[2];
    if (local === undefined || remote === undefined) continue;
    if (`${local} `.endsWith(wantLocal) && `${remote} `.endsWith(wantRemote)) {
      const uid = Number(cols[7]);
      if (cols[9] === undefined || cols[9] === "0" || cols[3] === TCP_LISTEN) return NO_OWNER;
      if (Number.isInteger(uid)) return uid;
    }
  }
  return undefined;
}
