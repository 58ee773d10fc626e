/**
 * @module rest/node-serve
 * Serves a fetch-style handler (the hono app) on node:http instead of Bun.serve, so that
 * spurrestd's public listener gets the same connection limits as every other Spur
 * listener (net/http-guard): Bun.serve (1.4.5) never closes a connection that does not
 * finish its headers or sends nothing at all. The handler sees a standard Request, and
 * `env.requestIP` (as Bun.serve provides it) names the client's address for the meta block.
 * Bodies are read whole, up to `bodyBytesMax` (+ slack for the envelope): the app itself
 * answers 413 past its own cap, and the guard refuses an announced oversize before reading.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { guardServer, HTTP_LIMITS_DEFAULT, type HttpLimits } from "../http-guard.ts";
import { listenGuarded } from "../listen-guarded.ts";
import { responseParts } from "./raw-json.ts";
import { writeParts } from "./write-parts.ts";

export type FetchHandler = (req: Request, env: { requestIP(r: Request): { address: string; port: number } | null }) => Response | Promise<Response>;

export interface NodeServed {
  port: number;
  stop(): Promise<void>;
}

export async function serveFetch(
  handler: FetchHandler,
  /** limits: over HTTP_LIMITS_DEFAULT (a local relay's connections all come from 127.0.0.1: a larger perAddressMax). */
  listen: { hostname: string; port: number; tls?: { cert: string; key: string }; bodyBytesMax: number; limits?: Partial<HttpLimits> },
): Promise<NodeServed> {
  const peers = new WeakMap<Request, { address: string; port: number }>();
  const env = { requestIP: (r: Request) => peers.get(r) ?? null };
  const slack = 1024;
  const onRequest = async (req: IncomingMessage, res: ServerResponse) => {
    if (!admit(req, res)) return;
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      if (hasBody) {
        for await (const chunk of req) {
          size += (chunk as Buffer).length;
          if (size > listen.bodyBytesMax + slack) {
            res.writeHead(413, { "content-type": "application/json", connection: "close" });
            res.end(JSON.stringify({ errors: [{ error: "Request body too large", error_number: 9001 }] }));
            req.destroy();
            return;
          }
          chunks.push(chunk as Buffer);
        }
      }
      const headers = new Headers();
      for (const [k, v] of Object.entries(req.headers)) {
        if (v === undefined) continue;
        for (const one of Array.isArray(v) ? v : [v]) headers.append(k, one);
      }
      const scheme = listen.tls === undefined ? "http" : "https";
      const request = new Request(`${scheme}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, {
        method: req.method ?? "GET", headers, ...(hasBody ? { body: Buffer.concat(chunks) } : {}),
      });
      peers.set(request, { address: req.socket.remoteAddress ?? "", port: req.socket.remotePort ?? 0 });
      const response = await handler(request, env);
      const out: Record<string, string> = {};
      response.headers.forEach((v, k) => (out[k] = v));
      const parts = responseParts(response);
      if (parts !== undefined) {
        // A big listing in parts (raw-json.ts): written as they are, never joined, in slices (write-parts.ts).
        res.writeHead(response.status, out);
        await writeParts(res, parts);
        return;
      }
      const body = Buffer.from(await response.arrayBuffer());
      out["content-length"] = String(body.length);
      res.writeHead(response.status, out);
      res.end(body);
    } catch (error) {
      if (res.headersSent) return void res.destroy();
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ errors: [{ error: String((error as Error).message ?? error) }] }));
    }
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => void onRequest(req, res);
  // TLS is terminated in front of the server (net/listen-guarded) so that the handshake is timed too.
  const server: Server = createServer(listener);
  const limits = { ...HTTP_LIMITS_DEFAULT, ...listen.limits, bodyBytesMax: listen.bodyBytesMax + slack };
  const admit = guardServer(server, limits, { tls: listen.tls !== undefined });
  server.on("clientError", (_err, socket) => socket.destroy());
  const listening = await listenGuarded(server, { host: listen.hostname, port: listen.port }, limits, listen.tls);
  return {
    port: listening.port,
    stop: () => {
      const closed = listening.close();
      // keep-alive connections would hold close() open until they idle out
      (server as Server & { closeAllConnections?: () => void }).closeAllConnections?.();
      return closed;
    },
  };
}
