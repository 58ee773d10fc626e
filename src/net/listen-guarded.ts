/**
 * @module net/listen-guarded
 * Puts a node:http server (already guarded by net/http-guard) on the network, in plain
 * HTTP or behind TLS, so that both get the same limits.
 * TLS is terminated here rather than by node:https: Bun's https server (1.4.5) shows a
 * connection to the server only once its handshake is done, never closes one whose
 * handshake does not start (measured: a bare TCP connect stayed open; `handshakeTimeout`
 * is ignored), and so counts nothing per address before it. Here a node:net listener
 * accepts, counts the address (`perAddressMax`), gives the handshake `headersMs`, wraps the
 * socket in a server TLSSocket and hands it to the http server as a connection, where the
 * guard times headers, bodies and idle exactly as for a plain one.
 * Failure policy: a socket that fails its handshake, or sends nothing, is destroyed.
 */
import type { Server } from "node:http";
import { createServer as createNetServer, type Socket } from "node:net";
import { createSecureContext, TLSSocket } from "node:tls";
import type { HttpLimits } from "./http-guard.ts";

export interface GuardedListener {
  port: number;
  /** Stop accepting and close what is open (TLS: every connection is destroyed). */
  close(): Promise<void>;
}

export async function listenGuarded(
  server: Server,
  listen: { host: string; port: number },
  limits: Pick<HttpLimits, "headersMs" | "perAddressMax">,
  tls?: { cert: string; key: string },
): Promise<GuardedListener> {
  if (tls === undefined) {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(listen.port, listen.host, () => resolve());
    });
    const address = server.address();
    return {
      port: typeof address === "object" && address !== null ? address.port : listen.port,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }
  const context = createSecureContext({ cert: tls.cert, key: tls.key });
  const perAddress = new Map<string, number>();
  const open = new Set<Socket>();
  const front = createNetServer((raw) => {
    const addr = raw.remoteAddress ?? "";
    const held = (perAddress.get(addr) ?? 0) + 1;
    perAddress.set(addr, held);
    open.add(raw);
    raw.once("close", () => {
      open.delete(raw);
      const left = (perAddress.get(addr) ?? 1) - 1;
      if (left <= 0) perAddress.delete(addr);
      else perAddress.set(addr, left);
    });
    raw.on("error", () => raw.destroy());
    if (held > limits.perAddressMax) return void raw.destroy();
    const handshake = setTimeout(() => raw.destroy(), limits.headersMs);
    handshake.unref?.();
    raw.once("close", () => clearTimeout(handshake));
    const secure = new TLSSocket(raw, { isServer: true, secureContext: context });
    secure.on("error", () => secure.destroy());
    secure.once("secure", () => {
      clearTimeout(handshake);
      server.emit("connection", secure);
    });
  });
  await new Promise<void>((resolve, reject) => {
    front.once("error", reject);
    front.listen(listen.port, listen.host, () => resolve());
  });
  const address = front.address();
  return {
    port: typeof address === "object" && address !== null ? address.port : listen.port,
    close: () =>
      new Promise<void>((resolve) => {
        front.close(() => resolve());
        for (const s of open) s.destroy();
      }),
  };
}
