/**
 * @module raft/transport-tcp
 * Raft messages between controllers over one persistent TCP connection per peer (Bun's
 * native sockets), as newline-delimited JSON: the first line a connecting peer sends is
 * `{"secret":...,"from":id}`, every later line is a JSON array of messages (one Ready's
 * worth for that peer). Measured against one HTTP request per batch, this cuts the cost of
 * a heartbeat round from milliseconds of CPU to microseconds, which is what lets a tick of
 * 50 ms (elections in 150-300 ms) run without loading the controllers.
 * Failure policy: while a peer is unreachable its messages are dropped (Raft re-sends) and
 * the connection is retried every reconnectMs; a connection that sends a wrong secret, a
 * malformed line or more than maxLineBytes without a newline is closed, and so is one that
 * has not sent a right greeting (at most HELLO_BYTES_MAX bytes) within authTimeoutMs of
 * connecting (with TLS that time includes the handshake): without it a client that sends
 * nothing held its connection for ever. A peer's
 * connection closing (either direction) or refusing is reported through onPeerLost: a
 * killed process closes its sockets at once, so followers learn of a dead leader in
 * microseconds instead of an election timeout.
 */
import type { Socket, TCPSocketListener } from "bun";
import { timingSafeEqual } from "node:crypto";
import type { Message, NodeId } from "./core/index.ts";
import { decodeMessage, encodeMessage } from "./wire.ts";

export interface TcpPeer {
  id: NodeId;
  host: string;
  port: number;
}

export interface TcpTransport {
  send(messages: Message[]): void;
  /** Start talking to a peer added at run time (a membership change); replaces its address if known. */
  setPeer(peer: TcpPeer): void;
  /** Stop talking to a removed peer. */
  removePeer(id: NodeId): void;
  stop(): void;
}

interface ServerConn {
  buf: string;
  authed: boolean;
  /** The peer's id from its greeting (0 until then). */
  from: NodeId;
  /** Closes the connection unless it greets in time (cleared once it has). */
  helloTimer?: ReturnType<typeof setTimeout>;
}

/** Time a connection has to send its greeting (TLS handshake included): Slurm's MessageTimeout default. */
export const AUTH_TIMEOUT_MS = 10_000;
/** A greeting is one short line: an unauthenticated peer may not make the server buffer more. */
const HELLO_BYTES_MAX = 4096;

const MAX_LINE_BYTES = 256 * 1024 * 1024;
/** Bytes buffered for a slow peer before its connection is dropped (Raft re-sends). */
const MAX_PENDING_BYTES = 64 * 1024 * 1024;

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** JSON with every non-ASCII character escaped, so string length equals byte length. */
function asciiJson(value: unknown): string {
  const text = JSON.stringify(value);
  return /[^\x00-\x7f]/.test(text) ? text.replace(/[^\x00-\x7f]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`) : text;
}

/**
 * Split complete lines out of `conn.buf`; returns them (the remainder stays buffered), undefined
 * when the unfinished line is longer than allowed. A chunk without a newline is only appended: a
 * line of megabytes (a batch of appends, a snapshot chunk) arrives in many socket chunks, and
 * splitting the whole buffer again for each made its cost grow with the square of its length.
 */
export function takeLines(conn: { buf: string; authed: boolean }, chunk: string): string[] | undefined {
  const limit = conn.authed ? MAX_LINE_BYTES : HELLO_BYTES_MAX;
  if (!chunk.includes("\n")) {
    conn.buf += chunk;
    return conn.buf.length > limit ? undefined : [];
  }
  const lines = (conn.buf + chunk).split("\n");
  conn.buf = lines.pop() ?? "";
  if (conn.buf.length > limit) return undefined;
  return lines;
}

/**
 * Accept peers' connections on `listen`, handing authenticated messages to `receive`.
 * `tls` (net/tls.ts listenerTls): serve TLS, so the secret and the log never cross the wire in clear.
 */
export function listenRaft(
  listen: { host: string; port: number },
  secret: string,
  receive: (messages: Message[]) => void,
  onPeerLost: (id: NodeId) => void = () => {},
  tls?: { cert: string; key: string },
  authTimeoutMs = AUTH_TIMEOUT_MS,
): TCPSocketListener<ServerConn> {
  return Bun.listen<ServerConn>({
    hostname: listen.host,
    port: listen.port,
    ...(tls === undefined ? {} : { tls }),
    socket: {
      open(s) {
        s.data = { buf: "", authed: false, from: 0 };
        s.data.helloTimer = setTimeout(() => {
          if (!s.data.authed) s.end();
        }, authTimeoutMs);
      },
      data(s, chunk) {
        const lines = takeLines(s.data, chunk.toString("utf8"));
        if (lines === undefined) return void s.end();
        for (const line of lines) {
          if (line === "") continue;
          try {
            const parsed = JSON.parse(line) as unknown;
            if (!s.data.authed) {
              const hello = parsed as { secret?: unknown; from?: unknown };
              if (typeof hello.secret !== "string" || !sameSecret(hello.secret, secret)) return void s.end();
              s.data.authed = true;
              clearTimeout(s.data.helloTimer);
              s.data.from = typeof hello.from === "number" && Number.isSafeInteger(hello.from) ? hello.from : 0;
              continue;
            }
            if (!Array.isArray(parsed)) return void s.end();
            receive(parsed.map(decodeMessage));
          } catch {
            return void s.end();
          }
        }
      },
      close(s) {
        clearTimeout(s.data.helloTimer);
        if (s.data.authed && s.data.from > 0) onPeerLost(s.data.from);
      },
      error() {
        /* the peer reconnects */
      },
    },
  });
}

interface ClientConn {
  socket: Socket<undefined> | undefined;
  connecting: boolean;
  pending: string;
  retryAt: number;
}

/** `tls`: connect with TLS, trusting `ca` (the cluster CA; absent: the system's roots). */
export function createTcpTransport(self: NodeId, initialPeers: TcpPeer[], secret: string, reconnectMs = 100, onPeerLost: (id: NodeId) => void = () => {}, tls?: { ca?: string }): TcpTransport {
  const peers = [...initialPeers];
  const conns = new Map<NodeId, ClientConn>(peers.map((p) => [p.id, { socket: undefined, connecting: false, pending: "", retryAt: 0 }]));
  let stopped = false;

  function connect(peer: TcpPeer, c: ClientConn): void {
    if (c.connecting || c.socket !== undefined || stopped || Date.now() < c.retryAt) return;
    c.connecting = true;
    Bun.connect({
      hostname: peer.host,
      port: peer.port,
      ...(tls === undefined ? {} : { tls: tls.ca === undefined ? true : { ca: tls.ca } }),
      socket: {
        open(s) {
          c.connecting = false;
          if (stopped || conns.get(peer.id) !== c) return void s.end();
          c.socket = s;
          // Messages queued while connecting go right after the greeting.
          c.pending = `${JSON.stringify({ secret, from: self })}\n${c.pending}`;
          flush(c, s);
        },
        drain(s) {
          flush(c, s);
        },
        data() {
          /* peers answer on their own connection */
        },
        close() {
          const wasOpen = c.socket !== undefined;
          c.socket = undefined;
          c.pending = "";
          c.retryAt = Date.now() + reconnectMs;
          if (wasOpen && !stopped && conns.get(peer.id) === c) onPeerLost(peer.id);
        },
        error() {
          c.socket = undefined;
        },
        connectError() {
          c.connecting = false;
          c.pending = "";
          c.retryAt = Date.now() + reconnectMs;
          if (!stopped && conns.get(peer.id) === c) onPeerLost(peer.id);
        },
      },
    }).catch(() => {
      c.connecting = false;
      c.pending = "";
      c.retryAt = Date.now() + reconnectMs;
    });
  }

  function flush(c: ClientConn, s: Socket<undefined>): void {
    if (c.pending === "") return;
    const wrote = s.write(c.pending);
    c.pending = wrote >= c.pending.length ? "" : c.pending.slice(wrote);
  }

  // Connect to every peer up front and keep trying: an election's first messages must not
  // be spent opening connections (followers otherwise never talk to each other).
  const keeper = setInterval(() => {
    for (const p of peers) connect(p, conns.get(p.id) as ClientConn);
  }, reconnectMs);
  for (const p of peers) connect(p, conns.get(p.id) as ClientConn);

  return {
    send(messages) {
      const byPeer = new Map<NodeId, Message[]>();
      for (const m of messages) {
        let list = byPeer.get(m.to);
        if (list === undefined) byPeer.set(m.to, (list = []));
        list.push(m);
      }
      for (const [to, list] of byPeer) {
        const c = conns.get(to);
        const peer = peers.find((p) => p.id === to);
        if (c === undefined || peer === undefined) continue;
        if (c.socket === undefined && !c.connecting) connect(peer, c);
        // Not connected (and not connecting): dropped, Raft re-sends on its next heartbeat.
        if (c.socket === undefined && !c.connecting) continue;
        c.pending += `${asciiJson(list.map(encodeMessage))}\n`;
        if (c.pending.length > MAX_PENDING_BYTES) {
          c.socket?.end();
          c.pending = "";
          continue;
        }
        if (c.socket !== undefined) flush(c, c.socket);
      }
    },
    setPeer(peer) {
      if (peer.id === self) return;
      const i = peers.findIndex((p) => p.id === peer.id);
      if (i >= 0 && peers[i]?.host === peer.host && peers[i]?.port === peer.port) return;
      if (i >= 0) this.removePeer(peer.id);
      peers.push(peer);
      const c: ClientConn = { socket: undefined, connecting: false, pending: "", retryAt: 0 };
      conns.set(peer.id, c);
      connect(peer, c);
    },
    removePeer(id) {
      const i = peers.findIndex((p) => p.id === id);
      if (i >= 0) peers.splice(i, 1);
      conns.get(id)?.socket?.end();
      conns.delete(id);
    },
    stop() {
      stopped = true;
      clearInterval(keeper);
      for (const c of conns.values()) c.socket?.end();
    },
  };
}
