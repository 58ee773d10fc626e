/**
 * @module net/auth/authd
 * auth/spur's vouching daemon side: on a Unix socket (SpurAuthSocket=), a local caller
 * writes the audience it wants a credential for (one line) and gets back
 * `spur:CREDENTIAL` (or `!why`) naming its own uid and gid as the kernel recorded them
 * at connect (SO_PEERCRED through bun:ffi on the socket's descriptor, net/peer-cred),
 * signed with the cluster key this daemon holds and users cannot read. Served by spurd
 * on compute nodes and by `spur authd` on login hosts (no job slots).
 * The caller must also be in this daemon's network namespace (/proc/PID/ns/net): on a
 * real host that is always so; in `spur up --netns`, whose hosts share one filesystem,
 * it stops a process on another (simulated) host from borrowing this host's socket.
 * Failure policy: a peer whose credentials or namespace cannot be read, a line longer
 * than AUDIENCE_BYTES_MAX, or a bad audience gets `!why` and the connection is closed.
 */
import { chmodSync, mkdirSync, readlinkSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import { randomBytes } from "node:crypto";
import type { Socket, UnixSocketListener } from "bun";
import { peerCred, type PeerCred } from "../peer-cred.ts";
import { signSpurCred } from "./spur-cred.ts";

/** How long a credential lives: one RPC's worth, with room for a slow network (MUNGE's default is 300 s). */
export const CRED_TTL_SEC = 60;
const AUDIENCE_BYTES_MAX = 256;
const AUDIENCE_RE = /^[A-Za-z0-9._:-]{1,160}$/;

export interface AuthdOptions {
  path: string;
  secret: string;
  /** The host name this daemon vouches as (a node's name, or the login host's name). */
  host: string;
  ttlSec?: number;
  /** Told of every credential issued or refused (the daemon's log). */
  onIssue?: (e: { uid: number; pid: number; audience: string } | { refused: string; pid: number }) => void;
}

interface Conn {
  peer?: PeerCred;
  why?: string;
  buf: string;
}

function netNamespace(pid: number | "self"): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** Serve credentials on `path` until the returned stop() is called. */
export function startAuthd(o: AuthdOptions): { stop(): void } {
  const ownNs = netNamespace("self");
  mkdirSync(dirname(o.path), { recursive: true });
  rmSync(o.path, { force: true });
  const answer = (s: Socket<Conn>, line: string): void => {
    s.write(`${line}\n`);
    s.end();
  };
  const listener: UnixSocketListener<Conn> = Bun.listen<Conn>({
    unix: o.path,
    socket: {
      open(s) {
        s.data = { buf: "" };
        const peer = peerCred((s as unknown as { fd: number }).fd);
        if (peer === undefined) s.data.why = "cannot read the caller's credentials (SO_PEERCRED)";
        else if (ownNs === undefined || netNamespace(peer.pid) !== ownNs) s.data.why = "the caller is not on this host (another network namespace)";
        else s.data.peer = peer;
      },
      data(s, chunk) {
        s.data.buf += Buffer.from(chunk).toString("utf8");
        const nl = s.data.buf.indexOf("\n");
        if (nl < 0) {
          if (s.data.buf.length > AUDIENCE_BYTES_MAX) answer(s, "!request too long");
          return;
        }
        const audience = s.data.buf.slice(0, nl).trim();
        const peer = s.data.peer;
        if (peer === undefined || !AUDIENCE_RE.test(audience)) {
          const why = s.data.why ?? "bad audience";
          o.onIssue?.({ refused: why, pid: peer?.pid ?? 0 });
          return answer(s, `!${why}`);
        }
        const now = Math.floor(Date.now() / 1000);
        const cred = signSpurCred(o.secret, {
          uid: peer.uid, gid: peer.gid, host: o.host, issuedSec: now, expirySec: now + (o.ttlSec ?? CRED_TTL_SEC),
          nonce: randomBytes(16).toString("hex"), audience,
        });
        o.onIssue?.({ uid: peer.uid, pid: peer.pid, audience });
        answer(s, `spur:${cred}`);
      },
      error() {
        /* the peer went away: nothing to answer */
      },
    },
  });
  chmodSync(o.path, 0o666);
  return {
    stop: () => {
      listener.stop(true);
      rmSync(o.path, { force: true });
    },
  };
}
