/**
 * @module net/rpc-server
 * Serves Connect routes on node:http (which Bun runs), with two things every
 * Spur daemon needs at the edge: the caller's identity (auth/loopback: the uid
 * owning the client socket, put in a header that clients cannot forge because
 * it is overwritten here) and survival of malformed requests (bodies are capped
 * and handler errors become Connect errors, never a crash).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { loopbackPeerUid } from "./peer-identity.ts";

export const PEER_UID_HEADER = "x-spur-peer-uid";
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface RpcServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

export async function startRpcServer(
  routes: (router: ConnectRouter) => void,
  listen: { host: string; port: number },
): Promise<RpcServer> {
  const handler = connectNodeAdapter({
    routes,
    readMaxBytes: MAX_BODY_BYTES,
    jsonOptions: { alwaysEmitImplicit: true, ignoreUnknownFields: true },
  });
  const server = createServer((req, res) => {
    stampPeer(req);
    handler(req, res);
  });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : listen.port;
  return {
    server,
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function stampPeer(req: IncomingMessage): void {
  const socket = req.socket;
  const uid = loopbackPeerUid({
    remoteAddress: socket.remoteAddress ?? "",
    remotePort: socket.remotePort ?? 0,
    localPort: socket.localPort ?? 0,
  });
  req.headers[PEER_UID_HEADER] = uid === undefined ? "" : String(uid);
}

/** The authenticated uid of the caller; throws Unauthenticated when unknown. */
export function peerUid(ctx: HandlerContext): number {
  const text = ctx.requestHeader.get(PEER_UID_HEADER) ?? "";
  if (text === "") throw new ConnectError("Unable to identify the caller (auth/loopback accepts loopback clients only)", Code.Unauthenticated);
  return Number(text);
}
