/**
 * @module raft/transport-http
 * Raft messages between controllers as compact JSON over HTTP POST, served on the
 * controller's own RPC port (path RAFT_STEP_PATH). Per peer at most one request is in
 * flight; messages queued meanwhile go in the next request, in order (batching under
 * load, no reordering). Peers prove membership with the cluster's shared secret.
 * Failure policy: a peer that does not answer loses the messages of that request (Raft
 * re-sends what matters); a queue over maxQueued drops its oldest messages; a request
 * with a wrong secret or a malformed body is refused and changes nothing.
 */
import { timingSafeEqual } from "node:crypto";
import type { Entry, Message, NodeId } from "./core/index.ts";

export const RAFT_STEP_PATH = "/spur.raft.v1.Raft/Step";

interface WireEntry {
  t: number;
  i: number;
  k: 0 | 1;
  d: string;
}
type WireMessage = Omit<Message, "entries" | "chunk"> & {
  entries: WireEntry[];
  chunk?: { meta: NonNullable<Message["chunk"]>["meta"]; offset: number; totalBytes: number; data: string };
};

const b64 = (u: Uint8Array): string => Buffer.from(u.buffer, u.byteOffset, u.byteLength).toString("base64");
const unb64 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, "base64"));

export function encodeMessage(m: Message): WireMessage {
  const { chunk, entries, ...rest } = m;
  const w: WireMessage = { ...rest, entries: entries.map((e) => ({ t: e.term, i: e.index, k: e.type === "normal" ? 0 : 1, d: b64(e.data) })) };
  if (chunk !== undefined) w.chunk = { ...chunk, data: b64(chunk.data) };
  return w;
}

export function decodeMessage(w: WireMessage): Message {
  const { chunk, entries, ...rest } = w;
  const m: Message = {
    ...rest,
    entries: entries.map((e): Entry => ({ term: e.t, index: e.i, type: e.k === 0 ? "normal" : "conf-change", data: unb64(e.d) })),
  };
  if (chunk !== undefined) m.chunk = { ...chunk, data: unb64(chunk.data) };
  return m;
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The server side: a fast-JSON handler for the controller's RPC server. */
export function raftStepHandler(secret: string, receive: (messages: Message[]) => void): (body: unknown) => unknown {
  return (body) => {
    const req = body as { secret?: unknown; msgs?: unknown };
    if (typeof req.secret !== "string" || !sameSecret(req.secret, secret)) throw new Error("raft peer authentication failed");
    if (!Array.isArray(req.msgs)) throw new Error("raft request without messages");
    receive((req.msgs as WireMessage[]).map(decodeMessage));
    return {};
  };
}

export interface HttpTransport {
  send(messages: Message[]): void;
  stop(): void;
}

export function createHttpTransport(peers: Map<NodeId, string>, secret: string, timeoutMs = 1000, maxQueued = 10_000): HttpTransport {
  const queues = new Map<NodeId, Message[]>();
  const busy = new Set<NodeId>();
  let stopped = false;

  async function flush(to: NodeId): Promise<void> {
    const url = peers.get(to);
    const queue = queues.get(to);
    if (url === undefined || queue === undefined || queue.length === 0 || busy.has(to) || stopped) return;
    busy.add(to);
    const batch = queue.splice(0, queue.length);
    try {
      const res = await fetch(`${url}${RAFT_STEP_PATH}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ secret, msgs: batch.map(encodeMessage) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await res.arrayBuffer();
    } catch {
      /* peer down or slow: these messages are lost, Raft re-sends */
    } finally {
      busy.delete(to);
    }
    void flush(to);
  }

  return {
    send(messages) {
      for (const m of messages) {
        let q = queues.get(m.to);
        if (q === undefined) queues.set(m.to, (q = []));
        q.push(m);
        if (q.length > maxQueued) q.splice(0, q.length - maxQueued);
      }
      for (const to of queues.keys()) void flush(to);
    },
    stop() {
      stopped = true;
    },
  };
}
