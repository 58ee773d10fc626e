/**
 * @module net/munge/client
 * Talks to the local munged over its Unix socket with the codec of net/munge/wire.ts: one
 * connection per request, as libmunge does (munged answers one message and closes). No
 * `munge` process is spawned. munged learns the caller's uid/gid from the socket itself
 * (SO_PEERCRED), so the credential names whoever runs this code.
 * Failure policy: an unreachable or silent munged is a Result error naming the socket (after
 * RETRIES_MAX quick retries, the retry count sent in the header as libmunge does, so that
 * munged does not call a retried decode a replay); munged's own refusals come back as values.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import {
  MUNGE_HEADER_BYTES, MUNGE_ID_ANY, MsgType, decodeDecodeResponse, decodeEncodeResponse, decodeHeader, decodeRequest,
  encodeRequest, type DecodeResponse, type EncodeResponse,
} from "./wire.ts";

/** Debian's and MUNGE's default socket. */
export const MUNGE_SOCKET_DEFAULT = "/run/munge/munge.socket.2";
const TIMEOUT_MS = 5000;
const RETRIES_MAX = 2;
const RETRY_DELAY_MS = 20;

/** One request/response exchange: the raw answer body of the expected type, or why not. */
function exchange(socketPath: string, request: Uint8Array, wantType: number): Promise<Result<Uint8Array>> {
  return new Promise((resolve) => {
    let buf = new Uint8Array(0);
    let settled = false;
    const finish = (r: Result<Uint8Array>, close?: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      close?.();
      resolve(r);
    };
    const timer = setTimeout(() => finish(err("MungeSocket", `munged at ${socketPath} did not answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    const answer = (): Result<Uint8Array> | undefined => {
      if (buf.length < MUNGE_HEADER_BYTES) return undefined;
      const h = decodeHeader(buf.subarray(0, MUNGE_HEADER_BYTES));
      if (!h.ok) return h;
      if (h.value.type !== wantType) return err("MungeWire", `munged answered message type ${h.value.type}, expected ${wantType}`);
      if (buf.length < MUNGE_HEADER_BYTES + h.value.bodyBytes) return undefined;
      return ok(buf.slice(MUNGE_HEADER_BYTES, MUNGE_HEADER_BYTES + h.value.bodyBytes));
    };
    Bun.connect({
      unix: socketPath,
      socket: {
        open(s) {
          s.write(request);
        },
        data(s, chunk) {
          const next = new Uint8Array(buf.length + chunk.length);
          next.set(buf);
          next.set(chunk, buf.length);
          buf = next;
          const r = answer();
          if (r !== undefined) finish(r, () => s.end());
        },
        close() {
          finish(answer() ?? err("MungeSocket", `munged at ${socketPath} closed the connection before answering`));
        },
        error(_s, e) {
          finish(err("MungeSocket", `munged at ${socketPath}: ${e.message}`));
        },
      },
    }).catch((e: Error) => finish(err("MungeSocket", `cannot connect to munged at ${socketPath}: ${e.message}`)));
  });
}

async function withRetries(socketPath: string, build: (retry: number) => Uint8Array, wantType: number): Promise<Result<Uint8Array>> {
  let last: Result<Uint8Array> = err("MungeSocket", "no attempt");
  for (let retry = 0; retry <= RETRIES_MAX; retry++) {
    last = await exchange(socketPath, build(retry), wantType);
    if (last.ok || last.error.code !== "MungeSocket") return last;
    await Bun.sleep(RETRY_DELAY_MS * (retry + 1));
  }
  return last;
}

export interface EncodeOptions {
  socketPath?: string;
  ttlSec?: number;
  payload?: Uint8Array;
  authUid?: number;
  authGid?: number;
}

/** Asks munged for a credential naming the calling process's uid/gid. */
export async function mungeEncode(opts: EncodeOptions = {}): Promise<Result<EncodeResponse>> {
  const socketPath = opts.socketPath ?? MUNGE_SOCKET_DEFAULT;
  const req = {
    ttlSec: opts.ttlSec ?? 0, authUid: opts.authUid ?? MUNGE_ID_ANY, authGid: opts.authGid ?? MUNGE_ID_ANY, payload: opts.payload ?? new Uint8Array(0),
  };
  const body = await withRetries(socketPath, (retry) => encodeRequest(req, retry), MsgType.encodeResponse);
  return body.ok ? decodeEncodeResponse(body.value) : body;
}

/** Asks munged to check a credential; munged's refusal (expired, replayed, ...) is in errorNum. */
export async function mungeDecode(credential: string, socketPath = MUNGE_SOCKET_DEFAULT): Promise<Result<DecodeResponse>> {
  const body = await withRetries(socketPath, (retry) => decodeRequest(credential, retry), MsgType.decodeResponse);
  return body.ok ? decodeDecodeResponse(body.value) : body;
}
