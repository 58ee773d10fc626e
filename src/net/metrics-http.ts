/**
 * @module net/metrics-http
 * The HTTP edge of the metrics endpoint: GET /metrics on a daemon's RPC port (Connect
 * uses POST only, so the two never meet) or on its own MetricsPort. A renderer that
 * throws answers 500 with the message, never takes the daemon down.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { guardServer, HTTP_LIMITS_DEFAULT } from "./http-guard.ts";
import { METRICS_CONTENT_TYPE } from "./metrics-text.ts";
import type { RpcMetrics } from "./rpc-metrics.ts";

export const isMetricsPath = (url: string | undefined): boolean => (url ?? "").split("?")[0] === "/metrics";

export function serveMetrics(res: ServerResponse, render: () => string): void {
  let body: string;
  try {
    body = render();
  } catch (error) {
    res.writeHead(500, { "content-type": "text/plain" });
    res.end(`metrics failed: ${String(error)}\n`);
    return;
  }
  res.writeHead(200, { "content-type": METRICS_CONTENT_TYPE, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Times the request into `rpc` once the response is sent; `uidOf` reads the caller the server identified (then). */
export function timeRequest(req: IncomingMessage, res: ServerResponse, rpc: RpcMetrics, uidOf: (req: IncomingMessage) => number | undefined = () => undefined): void {
  const startMs = performance.now();
  const path = (req.url ?? "").split("?")[0] ?? "";
  res.once("finish", () => {
    rpc.observe(path, res.statusCode, (performance.now() - startMs) / 1000, uidOf(req));
  });
}

/** A server of its own for MetricsPort=; resolves with a close function and the bound port. */
export async function startMetricsServer(
  listen: { host: string; port: number },
  render: () => string,
): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    if (!admit(req, res)) return;
    if (req.method === "GET" && isMetricsPath(req.url)) return serveMetrics(res, render);
    res.writeHead(404, { "content-type": "text/plain" });
    res.end("only GET /metrics is served here\n");
  });
  const admit = guardServer(server, { ...HTTP_LIMITS_DEFAULT, bodyBytesMax: 64 * 1024 });
  server.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(listen.port, listen.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : listen.port;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
