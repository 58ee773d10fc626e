/**
 * @module net/peer-cred
 * The connecting process of a Unix socket, from the kernel: getsockopt(SO_PEERCRED) through
 * bun:ffi on the descriptor Bun.listen exposes (`socket.fd`). Used by spurrestd's Unix-socket
 * mode and by auth/spur's local vouching daemon (net/auth/authd.ts). Nothing the peer sends
 * is read: pid, uid and gid are what the kernel recorded when it connected.
 */
import { dlopen, FFIType, ptr } from "bun:ffi";

export interface PeerCred {
  pid: number;
  uid: number;
  gid: number;
}

type GetSockOpt = (fd: number, level: number, name: number, value: Int32Array, len: Uint32Array) => number;
let getsockopt: GetSockOpt | null | undefined;

function libcGetsockopt(): GetSockOpt | null {
  if (getsockopt !== undefined) return getsockopt;
  try {
    const lib = dlopen("libc.so.6", { getsockopt: { args: [FFIType.i32, FFIType.i32, FFIType.i32, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 } });
    getsockopt = (fd, level, name, value, len) => lib.symbols.getsockopt(fd, level, name, ptr(value), ptr(len)) as number;
  } catch {
    getsockopt = null;
  }
  return getsockopt;
}

const SOL_SOCKET = 1;
const SO_PEERCRED = 17;

/** The connecting process of a Unix socket (Linux), or undefined when it cannot be read. */
export function peerCred(fd: number): PeerCred | undefined {
  const f = libcGetsockopt();
  if (f === null || !(fd >= 0)) return undefined;
  const cred = new Int32Array(3);
  const len = new Uint32Array([12]);
  if (f(fd, SOL_SOCKET, SO_PEERCRED, cred, len) !== 0 || len[0] !== 12) return undefined;
  return { pid: cred[0] as number, uid: cred[1] as number, gid: cred[2] as number };
}
