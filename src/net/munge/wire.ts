/**
 * @module net/munge/wire
 * The message format munged speaks on its Unix socket (MUNGE 0.5.x, message version 4),
 * pure: an 11-byte header (magic 0x00606D4B, version, type, retry, body length) and the
 * four bodies a client needs: encode request/response and decode request/response. Every
 * integer is big-endian; strings are length-prefixed and carry their NUL in the length.
 * Facts from MUNGE's sources (src/libcommon/m_msg.[ch]) and from watching a real munged;
 * no code of theirs. Malformed input is a Result error, never a throw or an over-read.
 */
import { err, ok, type Result } from "../../lib/result.ts";

export const MUNGE_MSG_MAGIC = 0x00606d4b;
export const MUNGE_MSG_VERSION = 4;
export const MUNGE_HEADER_BYTES = 11;
/** munged refuses far less; this bounds what a client will allocate for one answer. */
export const MUNGE_BODY_BYTES_MAX = 1 << 20;

/** Message types (m_msg_type): 2..5 are the client's. */
export const MsgType = { encodeRequest: 2, encodeResponse: 3, decodeRequest: 4, decodeResponse: 5 } as const;
/** "Default" for cipher, MAC and compression: munged picks its own (the NONE MAC is refused). */
export const MUNGE_DEFAULT = 1;
export const MUNGE_ID_ANY = 0xffffffff;

/** munge_err_t values a caller acts on. */
export const MungeErr = {
  success: 0, socket: 6, timeout: 7, badCred: 8, credInvalid: 14, credExpired: 15, credRewound: 16, credReplayed: 17, credUnauthorized: 18,
} as const;

const ERROR_TEXT: Record<number, string> = {
  1: "Internal error", 2: "Invalid argument", 3: "Exceeded maximum message length", 4: "Buffer overflow", 5: "Out of memory",
  6: "Socket communication error", 7: "Socket timeout", 8: "Invalid credential format", 9: "Invalid credential version",
  10: "Invalid cipher type", 11: "Invalid MAC type", 12: "Invalid compression type", 13: "Unrecognized security realm",
  14: "Invalid credential", 15: "Expired credential", 16: "Rewound credential", 17: "Replayed credential", 18: "Unauthorized credential",
};

/** munged's own text when it sent one, else the library's words for the code. */
export const mungeErrorText = (num: number, sent = ""): string => sent !== "" ? sent : ERROR_TEXT[num] ?? `Unknown error ${num}`;

export interface MsgHeader {
  type: number;
  retry: number;
  bodyBytes: number;
}

export interface EncodeRequest {
  /** Credential lifetime in seconds; 0 = munged's default. */
  ttlSec: number;
  /** Only this uid/gid may decode it; MUNGE_ID_ANY = anyone. */
  authUid: number;
  authGid: number;
  payload: Uint8Array;
  realm?: string;
}

export interface EncodeResponse {
  errorNum: number;
  errorText: string;
  /** "MUNGE:...:" without its NUL; "" on error. */
  credential: string;
}

export interface DecodeResponse {
  errorNum: number;
  errorText: string;
  cipher: number;
  mac: number;
  zip: number;
  realm: string;
  ttlSec: number;
  /** The IPv4 address of the host that encoded it, dotted; "" when absent. */
  originAddr: string;
  encodeTime: number;
  decodeTime: number;
  uid: number;
  gid: number;
  authUid: number;
  authGid: number;
  payload: Uint8Array;
}

const enc = new TextEncoder();
const dec = new TextDecoder();

/** Appends big-endian fields into one growing byte list. */
class Writer {
  readonly bytes: number[] = [];
  u8(v: number): this {
    this.bytes.push(v & 0xff);
    return this;
  }
  u32(v: number): this {
    return this.u8(v >>> 24).u8(v >>> 16).u8(v >>> 8).u8(v);
  }
  raw(b: Uint8Array): this {
    for (const x of b) this.bytes.push(x);
    return this;
  }
  /** A NUL-terminated string with a u8 length prefix (0 and no bytes for ""). */
  str8(s: string): this {
    const b = s === "" ? new Uint8Array(0) : enc.encode(`${s}\0`);
    if (b.length > 255) throw new RangeError("munge string longer than 254 bytes");
    return this.u8(b.length).raw(b);
  }
  /** Bytes with a u32 length prefix. */
  blob(b: Uint8Array): this {
    return this.u32(b.length).raw(b);
  }
}

/** Reads big-endian fields; every read is bounds-checked (`ok` turns false, values read 0). */
class Reader {
  at = 0;
  ok = true;
  constructor(private readonly b: Uint8Array) {}
  private take(n: number): Uint8Array {
    if (!this.ok || n < 0 || this.at + n > this.b.length) {
      this.ok = false;
      return new Uint8Array(n < 0 ? 0 : n);
    }
    const out = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  u8(): number {
    return this.take(1)[0] ?? 0;
  }
  u32(): number {
    const x = this.take(4);
    return (((x[0] ?? 0) << 24) | ((x[1] ?? 0) << 16) | ((x[2] ?? 0) << 8) | (x[3] ?? 0)) >>> 0;
  }
  /** A length-prefixed string, its trailing NUL dropped. */
  str(len: number): string {
    const s = dec.decode(this.take(len));
    return s.endsWith("\0") ? s.slice(0, -1) : s;
  }
  bytes(len: number): Uint8Array {
    return this.take(len).slice();
  }
  done(): boolean {
    return this.ok && this.at === this.b.length;
  }
}

const bad = (what: string): Result<never> => err("MungeWire", `malformed munge ${what}`);

export function encodeHeader(h: MsgHeader): Uint8Array {
  return Uint8Array.from(new Writer().u32(MUNGE_MSG_MAGIC).u8(MUNGE_MSG_VERSION).u8(h.type).u8(h.retry).u32(h.bodyBytes).bytes);
}

export function decodeHeader(bytes: Uint8Array): Result<MsgHeader> {
  if (bytes.length !== MUNGE_HEADER_BYTES) return bad("header (length)");
  const r = new Reader(bytes);
  const magic = r.u32();
  const version = r.u8();
  const h = { type: r.u8(), retry: r.u8(), bodyBytes: r.u32() };
  if (magic !== MUNGE_MSG_MAGIC) return err("MungeWire", `not a munge message (magic 0x${magic.toString(16)})`);
  if (version !== MUNGE_MSG_VERSION) return err("MungeWire", `munge message version ${version} (this client speaks ${MUNGE_MSG_VERSION})`);
  if (h.bodyBytes > MUNGE_BODY_BYTES_MAX) return err("MungeWire", `munge message of ${h.bodyBytes} bytes is too long`);
  return ok(h);
}

const frame = (type: number, retry: number, body: number[]): Uint8Array => {
  const out = new Uint8Array(MUNGE_HEADER_BYTES + body.length);
  out.set(encodeHeader({ type, retry, bodyBytes: body.length }));
  out.set(body, MUNGE_HEADER_BYTES);
  return out;
};

/** A whole encode request (header and body), as libmunge's munge_encode sends it. */
export function encodeRequest(req: EncodeRequest, retry = 0): Uint8Array {
  const w = new Writer().u8(MUNGE_DEFAULT).u8(MUNGE_DEFAULT).u8(MUNGE_DEFAULT).str8(req.realm ?? "")
    .u32(req.ttlSec).u32(req.authUid).u32(req.authGid).blob(req.payload);
  return frame(MsgType.encodeRequest, retry, w.bytes);
}

export function decodeEncodeResponse(body: Uint8Array): Result<EncodeResponse> {
  const r = new Reader(body);
  const errorNum = r.u8();
  const errorText = r.str(r.u8());
  const credential = r.str(r.u32());
  if (!r.done()) return bad("encode response");
  return ok({ errorNum, errorText, credential: errorNum === 0 ? credential : "" });
}

/** A whole decode request: the credential with its NUL, as munge_decode sends it. */
export function decodeRequest(credential: string, retry = 0): Uint8Array {
  return frame(MsgType.decodeRequest, retry, new Writer().blob(enc.encode(`${credential}\0`)).bytes);
}

export function decodeDecodeResponse(body: Uint8Array): Result<DecodeResponse> {
  const r = new Reader(body);
  const errorNum = r.u8();
  const errorText = r.str(r.u8());
  const cipher = r.u8();
  const mac = r.u8();
  const zip = r.u8();
  const realm = r.str(r.u8());
  const ttlSec = r.u32();
  const addr = r.bytes(r.u8());
  const rest = { encodeTime: r.u32(), decodeTime: r.u32(), uid: r.u32(), gid: r.u32(), authUid: r.u32(), authGid: r.u32() };
  const payload = r.bytes(r.u32());
  if (!r.done()) return bad("decode response");
  const originAddr = addr.length === 4 ? Array.from(addr).join(".") : "";
  return ok({ errorNum, errorText, cipher, mac, zip, realm, ttlSec, originAddr, ...rest, payload });
}

// The daemon's side, for tests and fakes: the same layouts read the other way.

export function encodeEncodeResponse(rsp: EncodeResponse): Uint8Array {
  const cred = rsp.credential === "" ? new Uint8Array(0) : enc.encode(`${rsp.credential}\0`);
  return frame(MsgType.encodeResponse, 0, new Writer().u8(rsp.errorNum).str8(rsp.errorText).blob(cred).bytes);
}

export function encodeDecodeResponse(rsp: DecodeResponse): Uint8Array {
  const addr = rsp.originAddr === "" ? [] : rsp.originAddr.split(".").map(Number);
  const w = new Writer().u8(rsp.errorNum).str8(rsp.errorText).u8(rsp.cipher).u8(rsp.mac).u8(rsp.zip).str8(rsp.realm)
    .u32(rsp.ttlSec).u8(addr.length).raw(Uint8Array.from(addr)).u32(rsp.encodeTime).u32(rsp.decodeTime)
    .u32(rsp.uid).u32(rsp.gid).u32(rsp.authUid).u32(rsp.authGid).blob(rsp.payload);
  return frame(MsgType.decodeResponse, 0, w.bytes);
}

export function parseEncodeRequest(body: Uint8Array): Result<EncodeRequest> {
  const r = new Reader(body);
  r.u8();
  r.u8();
  r.u8();
  const realm = r.str(r.u8());
  const req = { ttlSec: r.u32(), authUid: r.u32(), authGid: r.u32(), payload: r.bytes(r.u32()) };
  if (!r.done()) return bad("encode request");
  return ok(realm === "" ? req : { ...req, realm });
}

export function parseDecodeRequest(body: Uint8Array): Result<string> {
  const r = new Reader(body);
  const cred = r.str(r.u32());
  return r.done() ? ok(cred) : bad("decode request");
}
