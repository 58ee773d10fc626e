/**
 * @module raft/transport-tcp
 * Raft messages between controllers over one persistent TCP connection per peer (Bun's
 * native sockets). The first line a connecting peer sends is `{"secret":...,"from":id,"wire":2}`;
 * after it, messages go as newline-delimited JSON (each line a JSON array of messages, one
 * Ready's worth for that peer) until the two agree on binary frames (raft/wire-binary): a
 * listener that knows them answers a greeting that offers them with the line `{"wire":2}`,
 * and the dialer, on reading it, sends the line `"binary"` and frames from then on. A peer of
 * an older version neither offers nor answers, so the pair keeps JSON lines: a rolling
 * upgrade never needs both ends new at once. Measured against one HTTP request per batch, this cuts the cost of
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
import { decodeFrameBody, encodeFrame } from "./wire-binary.ts";
import { FrameReader, LineReader, SWITCH_LINE } from "./wire-stream.ts";

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

/** Wire versions: 1 JSON lines only, 2 binary frames once both ends agree. */
export type WireVersion = 1 | 2;
/** The listener's answer to a greeting that offers binary frames. */
const OFFER_ACCEPTED = '{"wire":2}';

interface ServerConn {
  lines: LineReader;
  /** Set once the dialer has switched to binary frames. */
  frames?: FrameReader;
  authed: boolean;
  /** The listener answered this dialer's offer of frames (only then may it switch). */
  offered: boolean;
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

/**
 * Accept peers' connections on `listen`, handing authenticated messages to `receive`.
 * `tls` (net/tls.ts listenerTls): serve TLS, so the secret and the log never cross the wire in clear.
 * `wire`: 1 answers as a listener of an older version does (never offers frames; for tests).
 */
export function listenRaft(
  listen: { host: string; port: number },
  secret: string,
  receive: (messages: Message[]) => void,
  onPeerLost: (id: NodeId) => void = () => {},
  tls?: { cert: string; key: string },
  authTimeoutMs = AUTH_TIMEOUT_MS,
  wire: WireVersion = 2,
): TCPSocketListener<ServerConn> {
  /** One JSON line from the dialer: false when the connection must end. */
  function line(s: Socket<ServerConn>, text: string): boolean {
    if (text === "") return true;
    const parsed = JSON.parse(text) as unknown;
    if (!s.data.authed) {
      const hello = parsed as { secret?: unknown; from?: unknown; wire?: unknown };
      if (typeof hello.secret !== "string" || !sameSecret(hello.secret, secret)) return false;
      s.data.authed = true;
      s.data.lines.maxLineBytes = MAX_LINE_BYTES;
      clearTimeout(s.data.helloTimer);
      s.data.from = typeof hello.from === "number" && Number.isSafeInteger(hello.from) ? hello.from : 0;
      if (wire === 2 && hello.wire === 2) s.data.offered = s.write(`${OFFER_ACCEPTED}\n`) === OFFER_ACCEPTED.length + 1;
      return true;
    }
    if (!Array.isArray(parsed)) return false;
    receive(parsed.map(decodeMessage));
    return true;
  }

  function frames(s: Socket<ServerConn>, reader: FrameReader, bytes: Uint8Array): boolean {
    // each body is decoded before the next is read: it is a view of the chunk or of the reader's buffer
    return reader.push(bytes, (body) => receive(decodeFrameBody(body)));
  }

  function data(s: Socket<ServerConn>, chunk: Uint8Array): boolean {
    if (s.data.frames !== undefined) return frames(s, s.data.frames, chunk);
    const got = s.data.lines.push(chunk);
    if (got === undefined) return false;
    for (const text of got.lines) if (!line(s, text)) return false;
    if (got.rest === undefined) return true;
    // The switch line: only after this listener offered frames to this (authenticated) dialer.
    if (!s.data.offered) return false;
    s.data.frames = new FrameReader(MAX_LINE_BYTES);
    return frames(s, s.data.frames, got.rest);
  }

  return Bun.listen<ServerConn>({
    hostname: listen.host,
    port: listen.port,
    ...(tls === undefined ? {} : { tls }),
    socket: {
      open(s) {
        s.data = { lines: new LineReader(HELLO_BYTES_MAX), authed: false, offered: false, from: 0 };
        s.data.helloTimer = setTimeout(() => {
          if (!s.data.authed) s.end();
        }, authTimeoutMs);
      },
      data(s, chunk) {
        let ok: boolean;
        try {
          ok = data(s, chunk);
        } catch {
          ok = false;
        }
        if (!ok) s.end();
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
  /** Bytes not yet taken by the socket, in order (the first may be a remainder of a partial write). */
  pending: Buffer[];
  pendingBytes: number;
  retryAt: number;
  /** This connection sends binary frames (the listener accepted the offer). */
  binary: boolean;
  /** The listener's answer lines. */
  answers: LineReader;
}

const newConn = (): ClientConn => ({ socket: undefined, connecting: false, pending: [], pendingBytes: 0, retryAt: 0, binary: false, answers: new LineReader(HELLO_BYTES_MAX) });

function clearPending(c: ClientConn): void {
  c.pending = [];
  c.pendingBytes = 0;
}

/**
 * `tls`: connect with TLS, trusting `ca` (the cluster CA; absent: the system's roots).
 * `wire`: 1 dials as a peer of an older version does (JSON lines only, never offers frames; for tests).
 */
export function createTcpTransport(self: NodeId, initialPeers: TcpPeer[], secret: string, reconnectMs = 100, onPeerLost: (id: NodeId) => void = () => {}, tls?: { ca?: string }, wire: WireVersion = 2): TcpTransport {
  const peers = [...initialPeers];
  const conns = new Map<NodeId, ClientConn>(peers.map((p) => [p.id, newConn()]));
  let stopped = false;
  const greeting = JSON.stringify(wire === 2 ? { secret, from: self, wire: 2 } : { secret, from: self });

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
          c.binary = false;
          c.answers = new LineReader(HELLO_BYTES_MAX);
          // Messages queued while connecting go right after the greeting.
          c.pending.unshift(Buffer.from(`${greeting}\n`));
          c.pendingBytes += greeting.length + 1;
          flush(c, s);
        },
        drain(s) {
          flush(c, s);
        },
        data(s, chunk) {
          // Peers send their messages on their own connection: the one line a listener sends here accepts frames.
          const got = c.answers.push(chunk);
          if (got === undefined || c.binary || wire !== 2 || !got.lines.includes(OFFER_ACCEPTED)) return;
          c.binary = true;
          // After every JSON line already queued: the listener reads the stream in order.
          enqueue(c, Buffer.from(`${SWITCH_LINE}\n`));
          flush(c, s);
        },
        close() {
          const wasOpen = c.socket !== undefined;
          c.socket = undefined;
          clearPending(c);
          c.retryAt = Date.now() + reconnectMs;
          if (wasOpen && !stopped && conns.get(peer.id) === c) onPeerLost(peer.id);
        },
        error() {
          c.socket = undefined;
        },
        connectError() {
          c.connecting = false;
          clearPending(c);
          c.retryAt = Date.now() + reconnectMs;
          if (!stopped && conns.get(peer.id) === c) onPeerLost(peer.id);
        },
      },
    }).catch(() => {
      c.connecting = false;
      clearPending(c);
      c.retryAt = Date.now() + reconnectMs;
    });
  }

  function enqueue(c: ClientConn, bytes: Buffer): void {
    c.pending.push(bytes);
    c.pendingBytes += bytes.length;
  }

  function flush(c: ClientConn, s: Socket<undefined>): void {
    while (c.pending.length > 0) {
      const head = c.pending[0] as Buffer;
      const wrote = Math.max(0, s.write(head));
      c.pendingBytes -= Math.min(wrote, head.length);
      if (wrote < head.length) {
        c.pending[0] = head.subarray(wrote);
        return;
      }
      c.pending.shift();
    }
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
        enqueue(c, c.binary ? encodeFrame(list) : Buffer.from(`${JSON.stringify(list.map(encodeMessage))}\n`));
        if (c.pendingBytes > MAX_PENDING_BYTES) {
          c.socket?.end();
          clearPending(c);
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
      const c = newConn();
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
