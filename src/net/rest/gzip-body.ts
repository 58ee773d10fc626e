/**
 * @module rest/gzip-body
 * GET jobs/ with 10k jobs is ~42 MiB of JSON; spurrestd keeps that body's big middle (the
 * `"jobs":[...]` member) per controller list version (list-memo.ts). For a client that accepts
 * gzip across a network, that member is deflated once per version, off the event loop
 * (zlib's thread pool), and each answer is ONE gzip member built around it: a header, the
 * small prefix and tail deflated per request, the kept deflate stream in between, and the
 * CRC-32 and length of the whole. One member, not a concatenation of gzip members, because
 * curl --compressed decodes only the first member of a concatenation.
 *
 * Which answers are compressed (`gzipWanted`): the client names gzip in Accept-Encoding,
 * the body is big, and the peer is not on loopback. On loopback inflating costs more than
 * moving the bytes: Bun's fetch + arrayBuffer took 574 ms for the 42 MiB gzipped against 178 ms
 * as is from a bare server, and 704 against 333 ms from spurrestd (two interleaved runs,
 * docs/rest.md); curl inflates fast, python-requests does not. Everything else is sent as is.
 */
import { constants, crc32, deflateRaw, deflateRawSync } from "node:zlib";

/** Bodies under this size are sent as they are: compressing them saves less than it costs. */
export const GZIP_BYTES_MIN = 1 << 20;

/** Whether Accept-Encoding admits gzip (RFC 9110 12.5.3: a q of 0 refuses; `*` covers it). */
export function acceptsGzip(header: string | undefined): boolean {
  if (header === undefined) return false;
  let star: boolean | undefined;
  for (const item of header.split(",")) {
    const [name = "", ...params] = item.trim().toLowerCase().split(";");
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    const ok = q === undefined || Number(q) > 0;
    if (name.trim() === "gzip" || name.trim() === "x-gzip") return ok;
    if (name.trim() === "*") star = ok;
  }
  return star ?? false;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string): boolean {
  const a = address.replace(/^::ffff:/i, "");
  return a === "::1" || /^127\./.test(a);
}

/** The choice for one answer: gzip, or the body as it is. */
export function gzipWanted(req: { acceptEncoding: string | undefined; peerAddress: string; bodyBytes: number }): boolean {
  return req.bodyBytes >= GZIP_BYTES_MIN && req.peerAddress !== "" && !isLoopback(req.peerAddress) && acceptsGzip(req.acceptEncoding);
}

/** A body's middle, deflated once: a raw deflate stream ending on a byte boundary, not final. */
export interface DeflatedMiddle {
  deflated: Uint8Array;
  /** CRC-32 of the body's prefix and this middle (gzip's CRC runs from the body's first byte). */
  crcAfter: number;
  /** Length of prefix + middle, uncompressed. */
  bytesAfter: number;
  prefix: Uint8Array;
}

const middles = new WeakMap<Uint8Array, Promise<DeflatedMiddle>>();

/** Level 1: the member is mostly repeated records; a higher level costs time for little. */
const LEVEL = 1;

/**
 * `middle` deflated (once per buffer: kept while the buffer lives), for bodies that start
 * with `prefix`. Z_SYNC_FLUSH ends the stream on a byte boundary with no final block, so the
 * tail's stream can follow it in the same gzip member.
 */
export function deflatedMiddle(prefix: Uint8Array, middle: Uint8Array): Promise<DeflatedMiddle> {
  let kept = middles.get(middle);
  if (kept === undefined) {
    kept = new Promise<DeflatedMiddle>((resolve, reject) => {
      deflateRaw(middle, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH }, (error, deflated) => {
        if (error !== null) {
          middles.delete(middle); // the next answer tries again (this one is sent as is: app.ts)
          return reject(error);
        }
        resolve({ deflated, crcAfter: crc32(middle, crc32(prefix)), bytesAfter: prefix.byteLength + middle.byteLength, prefix });
      });
    });
    middles.set(middle, kept);
  }
  return kept;
}

const HEADER = Uint8Array.of(0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff); // deflate, no flags, no mtime, OS unknown

/** The gzip member of prefix + middle + tail, as parts to write in order. */
export function gzipParts(m: DeflatedMiddle, tail: Uint8Array): Uint8Array[] {
  const head = deflateRawSync(m.prefix, { level: LEVEL, finishFlush: constants.Z_SYNC_FLUSH });
  const end = deflateRawSync(tail, { level: LEVEL });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc32(tail, m.crcAfter) >>> 0, 0);
  // ISIZE is the length modulo 2^32 (RFC 1952)
  trailer.writeUInt32LE((m.bytesAfter + tail.byteLength) % 2 ** 32, 4);
  return [HEADER, head, m.deflated, end, trailer];
}
