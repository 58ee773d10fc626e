/**
 * @module rest/local-socket
 * spurrestd's Unix-socket mode (slurmrestd's rest_auth/local): the caller is whoever
 * owns the connecting process, read from the kernel (SO_PEERCRED), never from the
 * request. Bun.serve does not expose a connection's descriptor, so the socket is a
 * Bun.listen one (whose `fd` is) and each connection is relayed byte for byte to a
 * private HTTP listener on loopback; the relay's own source port names the peer
 * there (`peerOf`). A loopback connection that is not a relay's has no peer and is
 * treated as any other (token) request.
 * Failure policy: a peer whose credentials cannot be read is disconnected; a relay
 * whose upstream fails closes both ends; nothing is buffered beyond what the kernel
 * has not taken yet.
 */
import { chmodSync, rmSync } from "node:fs";
import type { Socket, UnixSocketListener } from "bun";
import { peerCred } from "../peer-cred.ts";

export { peerCred, type PeerCred } from "../peer-cred.ts";

interface Pipe {
  peer?: Socket<Pipe>;
  up?: Socket<undefined>;
  /** Bytes from the peer waiting for the upstream connection. */
  early: Uint8Array[];
  port?: number;
}

export interface LocalRelay {
  /** The uid of the relayed peer whose upstream connection comes from loopback `port`. */
  peerOf(port: number): number | undefined;
  stop(): void;
}

/** Accept on Unix socket `path` (mode 0666: the peer's uid is what authorises), relay to `upstream`. */
export function startLocalRelay(path: string, upstream: { host: string; port: number }): LocalRelay {
  const byPort = new Map<number, number>();
  rmSync(path, { force: true });
  const write = (to: Socket<unknown> | undefined, data: Uint8Array): void => {
    if (to === undefined) return;
    const n = to.write(data);
    // Bun buffers what the kernel did not take; a peer that stops reading is cut off rather than buffered for.
    if (n < 0) to.end();
  };
  const listener: UnixSocketListener<Pipe> = Bun.listen<Pipe>({
    unix: path,
    socket: {
      open(s) {
        s.data = { early: [] };
        const cred = peerCred((s as unknown as { fd: number }).fd);
        if (cred === undefined) return void s.end();
        s.data.peer = s;
        const pipe = s.data;
        void Bun.connect({
          hostname: upstream.host,
          port: upstream.port,
          socket: {
            open(u) {
              pipe.up = u;
              pipe.port = u.localPort;
              byPort.set(u.localPort, cred.uid);
              for (const b of pipe.early) write(u, b);
              pipe.early = [];
            },
            data(_u, chunk) {
              write(pipe.peer, chunk);
            },
            close() {
              if (pipe.port !== undefined) byPort.delete(pipe.port);
              pipe.peer?.end();
            },
            error() {
              pipe.peer?.end();
            },
          },
        }).catch(() => s.end());
      },
      data(s, chunk) {
        if (s.data.up === undefined) s.data.early.push(new Uint8Array(chunk));
        else write(s.data.up, chunk);
      },
      close(s) {
        s.data.up?.end();
      },
      error(s) {
        s.data.up?.end();
      },
    },
  });
  chmodSync(path, 0o666);
  return {
    peerOf: (port) => byPort.get(port),
    stop: () => {
      listener.stop(true);
      rmSync(path, { force: true });
    },
  };
}
