/**
 * @module net/sock-diag
 * The owner uid of a loopback TCP client socket, asked of the kernel directly: one
 * SOCK_DIAG_BY_FAMILY request on a NETLINK_SOCK_DIAG socket names the exact socket
 * (addresses and ports), and the kernel answers from its hash table. Reading
 * /proc/net/tcp instead (peer-identity.ts) walks every socket on the host, one page per
 * read: measured 3-6 ms with ~300 sockets and 24-80 ms with ~700 on this shared machine,
 * per request, growing with the TIME_WAIT sockets a loop of CLI calls leaves behind;
 * this lookup stays at a syscall pair (docs/startup.md).
 * Failure policy: anything unexpected (no bun:ffi or libc, not Linux, not IPv4, no such
 * socket) answers undefined and the caller falls back to /proc/net/tcp.
 */
import { NO_OWNER, type PeerAddress } from "./peer-identity.ts";

export { NO_OWNER };

const AF_NETLINK = 16;
const AF_INET = 2;
const IPPROTO_TCP = 6;
const SOCK_DGRAM = 2;
const SOCK_CLOEXEC = 0o2000000;
const NETLINK_SOCK_DIAG = 4;
const SOCK_DIAG_BY_FAMILY = 20;
const NLM_F_REQUEST = 1;
/** nlmsghdr (16) + inet_diag_req_v2 (8 + inet_diag_sockid 48). */
const REQUEST_BYTES = 16 + 8 + 48;
/** Offset of idiag_uid in the answer: nlmsghdr 16, family/state/timer/retrans 4, sockid 48, expires/rqueue/wqueue 12. */
const UID_OFFSET = 16 + 4 + 48 + 12;

interface Libc {
  socket(domain: number, type: number, protocol: number): number;
  send(fd: number, buf: unknown, len: number, flags: number): number | bigint;
  recv(fd: number, buf: unknown, len: number, flags: number): number | bigint;
  close(fd: number): number;
}

let libc: { fns: Libc; ptr: (a: Uint8Array) => unknown } | null | undefined;

function load(): typeof libc {
  if (libc !== undefined) return libc;
  try {
    if (process.platform !== "linux") return (libc = null);
    const ffi = require("bun:ffi") as typeof import("bun:ffi");
    const { i32, i64, u64, ptr } = ffi.FFIType;
    const lib = ffi.dlopen("libc.so.6", {
      socket: { args: [i32, i32, i32], returns: i32 },
      send: { args: [i32, ptr, u64, i32], returns: i64 },
      recv: { args: [i32, ptr, u64, i32], returns: i64 },
      close: { args: [i32], returns: i32 },
    });
    libc = { fns: lib.symbols as unknown as Libc, ptr: ffi.ptr as (a: Uint8Array) => unknown };
  } catch {
    libc = null;
  }
  return libc;
}

/** An IPv4 address (also IPv4-mapped IPv6) as 4 bytes; undefined for anything else. */
export function ipv4Bytes(address: string): number[] | undefined {
  const plain = address.startsWith("::ffff:") ? address.slice(7) : address;
  const parts = plain.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = parts.map((p) => (/^\d{1,3}$/.test(p) ? Number(p) : NaN));
  return bytes.every((b) => b >= 0 && b <= 255) ? bytes : undefined;
}

/** The request: the client's socket has local end (client address, client port), remote end (server address, server port). Pure. */
export function diagRequest(client: number[], clientPort: number, server: number[], serverPort: number): Uint8Array {
  const req = new Uint8Array(REQUEST_BYTES);
  const v = new DataView(req.buffer);
  v.setUint32(0, REQUEST_BYTES, true);
  v.setUint16(4, SOCK_DIAG_BY_FAMILY, true);
  v.setUint16(6, NLM_F_REQUEST, true); // no NLM_F_DUMP: the kernel looks up this one socket
  v.setUint32(8, 1, true);
  req[16] = AF_INET;
  req[17] = IPPROTO_TCP;
  v.setUint32(20, 0xffffffff, true); // any state
  v.setUint16(24, clientPort, false); // ports and addresses in network order
  v.setUint16(26, serverPort, false);
  req.set(client, 28);
  req.set(server, 44);
  v.setUint32(64, 0xffffffff, true); // INET_DIAG_NOCOOKIE
  v.setUint32(68, 0xffffffff, true);
  return req;
}

const TCP_LISTEN = 10;

/**
 * The uid in an answer: undefined for an error answer (no such socket), NO_OWNER for a socket
 * that has no owner to name (inode 0: the client closed it, and the kernel reports uid 0 for
 * such a socket, which must never read as root) or is a listener. Pure.
 */
export function diagAnswerUid(answer: Uint8Array, length: number): number | undefined {
  if (length < UID_OFFSET + 8) return undefined;
  const v = new DataView(answer.buffer, answer.byteOffset, length);
  if (v.getUint16(4, true) !== SOCK_DIAG_BY_FAMILY) return undefined; // NLMSG_ERROR
  const state = answer[17];
  const inode = v.getUint32(UID_OFFSET + 4, true);
  if (inode === 0 || state === TCP_LISTEN) return NO_OWNER;
  return v.getUint32(UID_OFFSET, true);
}

/** The uid owning the client end of an IPv4 loopback connection, NO_OWNER, or undefined (see the failure policy). */
export function sockDiagUid(peer: PeerAddress & { localAddress?: string }): number | undefined {
  const client = ipv4Bytes(peer.remoteAddress);
  const server = ipv4Bytes(peer.localAddress ?? "127.0.0.1");
  if (client === undefined || server === undefined || client[0] !== 127) return undefined;
  const lib = load();
  if (!lib) return undefined;
  const fd = lib.fns.socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0) return undefined;
  try {
    const req = diagRequest(client, peer.remotePort, server, peer.localPort);
    if (Number(lib.fns.send(fd, lib.ptr(req), req.length, 0)) !== req.length) return undefined;
    const answer = new Uint8Array(4096);
    const n = Number(lib.fns.recv(fd, lib.ptr(answer), answer.length, 0));
    return diagAnswerUid(answer, n);
  } catch {
    return undefined;
  } finally {
    lib.fns.close(fd);
  }
}
