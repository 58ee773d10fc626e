/**
 * @module net/rpc-unary-fast
 * A Connect unary method served without the Connect adapter (issue 16: a Submit spent about
 * as much of the controller's CPU in connect-node's request/response plumbing, async
 * generators, abort signals and handler context as in the command itself). The request is a
 * Connect unary JSON POST (no request compression, no timeout header: those go through the
 * adapter); it is decoded, answered and its errors written exactly as the adapter does
 * (its own serialization, error JSON, HTTP status, metadata headers and response
 * compression), so a client cannot tell the two paths apart (tests/unit/net/rpc-unary-fast.test.ts
 * compares their bytes).
 */
import type { IncomingMessage } from "node:http";
import { create, type DescMessage, type DescMethodUnary, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { compressionNegotiate, createMethodSerializationLookup, readAllBytes } from "@connectrpc/connect/protocol";
import { codeToHttpStatus, errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { compressionBrotli, compressionGzip } from "@connectrpc/connect-node";

/** The request headers a handler reads (what Connect's HandlerContext offers as requestHeader). */
export interface RequestHeaderView {
  get(name: string): string | null;
}

/** What a handler needs of its call: the request headers. A Connect HandlerContext is one. */
export interface CallHeaders {
  requestHeader: RequestHeaderView;
}

export interface UnaryAnswer {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** A fast unary method: the request's body (read here) and headers in, the HTTP answer out. */
export type FastUnary = (req: IncomingMessage) => Promise<UnaryAnswer>;

/** Options as startRpcServer gives the adapter (the answers must be the same). */
export interface FastUnaryOptions {
  readMaxBytes: number;
  jsonOptions: { alwaysEmitImplicit: boolean; ignoreUnknownFields: boolean };
}

/** The adapter's defaults: writeMaxBytes, compressMinBytes (connect's limit-io) and its accepted compressions (connect-node-adapter). */
const WRITE_MAX_BYTES = 0xffffffff;
const COMPRESS_MIN_BYTES = 1024;
const ACCEPT_COMPRESSION = [compressionGzip, compressionBrotli];
const CONTENT_TYPE_JSON = "application/json";
/** Connect's unary JSON content types (protocol-connect/content-type.ts, the JSON half). */
const UNARY_JSON = /^application\/json(?:; ?charset=utf-?8)?$/i;

/** Whether a request is one the fast path answers as the adapter would; else it goes to the adapter. */
export function fastUnaryEligible(req: IncomingMessage): boolean {
  return req.method === "POST" && UNARY_JSON.test(req.headers["content-type"] ?? "")
    && req.headers["content-encoding"] === undefined && req.headers["connect-timeout-ms"] === undefined;
}

export function headerView(req: IncomingMessage): RequestHeaderView {
  return {
    get(name: string): string | null {
      const v = req.headers[name.toLowerCase()];
      return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
    },
  };
}

/** A unary method's fast handler around the same implementation the Connect router serves. */
export function fastUnary<I extends DescMessage, O extends DescMessage>(
  method: DescMethodUnary<I, O>,
  impl: (req: MessageShape<I>, call: CallHeaders) => Promise<MessageInitShape<O> | MessageShape<O>> | MessageInitShape<O> | MessageShape<O>,
  opt: FastUnaryOptions,
): FastUnary {
  const serialization = createMethodSerializationLookup(method, undefined, opt.jsonOptions, { readMaxBytes: opt.readMaxBytes, writeMaxBytes: WRITE_MAX_BYTES });
  return async (req) => {
    const requestHeader = headerView(req);
    const headers: Record<string, string> = { "content-type": CONTENT_TYPE_JSON };
    const compression = compressionNegotiate(ACCEPT_COMPRESSION, null, requestHeader.get("accept-encoding"), "accept-encoding");
    let status = 200;
    let body: Uint8Array;
    try {
      const bytes = await readBody(req, opt.readMaxBytes, requestHeader.get("content-length"));
      const input = serialization.getI(false).parse(bytes) as MessageShape<I>;
      const out = await impl(input, { requestHeader });
      // create() returns a message of this type as it is (Connect's normalize)
      body = serialization.getO(false).serialize(create(method.output, out as MessageInitShape<O>));
    } catch (e) {
      const error = e instanceof ConnectError ? e : new ConnectError("internal error", Code.Internal, undefined, undefined, e);
      status = codeToHttpStatus(error.code);
      error.metadata.forEach((value, key) => {
        headers[key] = value;
      });
      body = errorToJsonBytes(error, opt.jsonOptions);
    }
    if (compression.response !== null && body.byteLength >= COMPRESS_MIN_BYTES) {
      body = await compression.response.compress(body);
      headers["content-encoding"] = compression.response.name;
    }
    headers["content-length"] = body.byteLength.toString(10);
    return { status, headers, body };
  };
}

/**
 * The request body. With a content-length within the limit (what every client here sends) it is
 * read by the stream's events into one buffer of that size: node's parser frames the body to
 * that length, and Connect's readAllBytes would do the same through an async iterator (about a
 * tenth of a Submit's time in a profile). Anything else goes through readAllBytes itself, so
 * its limits and errors stay Connect's.
 */
function readBody(req: IncomingMessage, readMaxBytes: number, lengthHint: string | null): Promise<Uint8Array> {
  const hint = lengthHint === null ? Number.NaN : Number.parseInt(lengthHint, 10);
  if (!Number.isSafeInteger(hint) || hint < 0 || hint > readMaxBytes) return readAllBytes(req as AsyncIterable<Uint8Array>, readMaxBytes, lengthHint);
  return new Promise((resolve, reject) => {
    const buffer = new Uint8Array(hint);
    let offset = 0;
    let failed = false;
    const fail = (error: unknown) => {
      if (!failed) reject(error);
      failed = true;
    };
    req.on("data", (chunk: Buffer) => {
      if (failed) return;
      if (offset + chunk.byteLength > hint) return fail(new ConnectError(`protocol error: promised ${hint} bytes, received ${offset + chunk.byteLength}`, Code.InvalidArgument));
      buffer.set(chunk, offset);
      offset += chunk.byteLength;
    });
    req.once("end", () => {
      if (offset < hint) fail(new ConnectError(`protocol error: promised ${hint} bytes, received ${offset}`, Code.InvalidArgument));
      else if (!failed) resolve(buffer);
    });
    req.once("error", fail);
  });
}
