/**
 * @module rest/local-serve
 * spurrestd's rest_auth/local mode put together: the Unix-socket relay (rest/local-socket,
 * the kernel names each peer) in front of a private loopback listener that serves the app
 * on node:http with the same limits as every other listener (net/http-guard through
 * rest/node-serve): a local client that sends nothing, or never finishes its headers or
 * body, is cut off there and the relay closes its end. Was an inner Bun.serve, which never
 * closes such connections (rest/node-serve).
 * All relayed connections reach the inner listener from 127.0.0.1, so its per-address cap
 * is the cap on local clients together.
 */
import type { HttpLimits } from "../http-guard.ts";
import { startLocalRelay } from "./local-socket.ts";
import { serveFetch, type FetchHandler } from "./node-serve.ts";

/** Local clients at once (every one arrives from 127.0.0.1 at the inner listener). */
export const LOCAL_CONNECTIONS_MAX = 4096;

export interface LocalServed {
  /** The uid of the local client whose request arrived from loopback `port` at the inner listener. */
  peerOf(port: number): number | undefined;
  stop(): Promise<void>;
}

export async function serveLocal(path: string, handler: FetchHandler, opts: { bodyBytesMax: number; limits?: Partial<HttpLimits> }): Promise<LocalServed> {
  const inner = await serveFetch(handler, {
    hostname: "127.0.0.1", port: 0, bodyBytesMax: opts.bodyBytesMax, limits: { perAddressMax: LOCAL_CONNECTIONS_MAX, ...opts.limits },
  });
  const relay = startLocalRelay(path, { host: "127.0.0.1", port: inner.port });
  return {
    peerOf: relay.peerOf,
    stop: async () => {
      relay.stop();
      await inner.stop();
    },
  };
}
