/**
 * @module net/http-guard
 * Time and count limits on every node:http listener Spur runs (controller and agent RPC,
 * MetricsPort, spurrestd's public and local listeners, srun's message port): a connection must finish its request headers within `headersMs`, a request
 * must finish sending its body within `bodyMs`, a connection with no request in flight is
 * closed after `idleMs`, and one address may hold at most `perAddressMax` connections at
 * once (more are closed at accept). Without them 900 half-sent requests stayed open for
 * 130 s and a flood of ~2,850 connections slowed sbatch to 8 s.
 * Node's own server.setTimeout() cannot be used: it also cuts requests that are merely
 * waiting for their answer (a long poll such as WaitJob), which are legitimate.
 * A request whose Content-Length is above the body cap is answered 413 before it is read.
 * TLS listeners (`opts.tls`) are fronted by net/listen-guarded, which counts addresses and
 * times the handshake before the connection reaches the server; the timers here apply as is.
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface HttpLimits {
  headersMs: number;
  bodyMs: number;
  idleMs: number;
  perAddressMax: number;
  bodyBytesMax: number;
}

export const HTTP_LIMITS_DEFAULT: HttpLimits = {
  headersMs: 10_000, // Slurm's MessageTimeout default (10 s) for a message to arrive whole
  bodyMs: 30_000,
  idleMs: 60_000,
  perAddressMax: 512,
  bodyBytesMax: 64 * 1024 * 1024,
};

interface ConnState {
  busy: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/**
 * Install the limits on `server`. Returns `admit(req, res)`, which the request listener
 * calls first: false means the request was already answered (413) and must not be served.
 */
export function guardServer(server: Server, limits: HttpLimits = HTTP_LIMITS_DEFAULT, opts: { tls?: boolean } = {}): (req: IncomingMessage, res: ServerResponse) => boolean {
  const conns = new WeakMap<Socket, ConnState>();
  const perAddress = new Map<string, number>();
  const arm = (sock: Socket, st: ConnState, ms: number) => {
    if (st.timer !== undefined) clearTimeout(st.timer);
    st.timer = setTimeout(() => sock.destroy(), ms);
    st.timer.unref?.();
  };
  // TLS: the connection the server sees is the TLS socket requests arrive on (listen-guarded
  // emits it once its handshake is done); the raw sockets were counted there already.
  const counted = opts.tls !== true;
  /** Count the connection against its address; false: one too many, closed. */
  const admitAddress = (sock: Socket): boolean => {
    const addr = sock.remoteAddress ?? "";
    const held = (perAddress.get(addr) ?? 0) + 1;
    perAddress.set(addr, held);
    sock.once("close", () => {
      const left = (perAddress.get(addr) ?? 1) - 1;
      if (left <= 0) perAddress.delete(addr);
      else perAddress.set(addr, left);
    });
    if (held <= limits.perAddressMax) return true;
    sock.destroy();
    return false;
  };
  server.on("connection", (sock: Socket) => {
    if (counted && !admitAddress(sock)) return;
    const st: ConnState = { busy: 0, timer: undefined };
    conns.set(sock, st);
    sock.once("close", () => {
      if (st.timer !== undefined) clearTimeout(st.timer);
    });
    arm(sock, st, limits.headersMs); // until the first request's headers are in
  });
  return (req, res) => {
    const sock = req.socket;
    const st = conns.get(sock);
    if (st !== undefined) {
      st.busy += 1;
      if (st.timer !== undefined) clearTimeout(st.timer);
      st.timer = undefined;
      res.once("close", () => {
        st.busy -= 1;
        if (st.busy === 0 && !sock.destroyed) arm(sock, st, limits.idleMs); // also bounds the next request's headers
      });
    }
    const length = Number(req.headers["content-length"] ?? 0);
    if (length > limits.bodyBytesMax) {
      req.resume();
      const body = JSON.stringify({ code: "resource_exhausted", message: `request body of ${length} bytes is over the limit of ${limits.bodyBytesMax}` });
      res.writeHead(413, { "content-type": "application/json", connection: "close", "content-length": Buffer.byteLength(body) });
      res.end(body);
      return false;
    }
    if (req.method !== "GET" && req.method !== "HEAD") {
      // The clock runs only while someone reads: a request held back by the server (a
      // read barrier) is not the client's fault. A client that does not finish its body in
      // time loses the connection (answering would race the handler's own answer).
      let bodyTimer: ReturnType<typeof setTimeout>;
      const tick = () => {
        bodyTimer = setTimeout(() => {
          if (req.readableEnded) return;
          if (req.readableFlowing === null && req.listenerCount("readable") === 0) return tick();
          sock.destroy();
        }, limits.bodyMs);
        bodyTimer.unref?.();
      };
      tick();
      const done = () => clearTimeout(bodyTimer);
      req.once("end", done);
      req.once("close", done);
      res.once("close", done);
    }
    return true;
  };
}
