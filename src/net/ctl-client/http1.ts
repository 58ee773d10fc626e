/**
 * @module net/ctl-client/http1
 * One plain-HTTP/1.1 POST over a Bun.connect socket, answered as a fetch Response: what a
 * CLI's one call to a single controller needs, without fetch. fetch runs on Bun's HTTP
 * client thread, so a call from a fresh process pays that thread's start and two handoffs
 * between threads, which on a loaded machine wait for the scheduler (issue 16: measured
 * about 1.5-3 ms of a compiled `sbatch` at low load, more under load); a Bun.connect socket
 * is served by the process's own event loop. The request says `connection: close`: a CLI
 * makes one call, and the controller's answer ends at its content-length or when it closes.
 * https (the cluster's TLS) and anything else keep fetch (controller-port.ts).
 * Failure policy: a refused or reset connection, or an answer cut short, rejects (as fetch
 * does): the caller reports "Unable to contact slurm controller".
 */

export interface Http1Answer {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/** Bytes as text, one character per byte (so indexes are byte offsets): for finding CRLFs with indexOf. */
const bytesText = (bytes: Uint8Array): string => new TextDecoder("latin1").decode(bytes);

/** Where the head ends (its blank line), looked for in the first 64 KiB first: a body may be megabytes. */
function headEnd(bytes: Uint8Array): { text: string; end: number } {
  const first = bytesText(bytes.subarray(0, 65536));
  const end = first.indexOf("\r\n\r\n");
  if (end >= 0 || bytes.length <= 65536) return { text: first, end };
  const all = bytesText(bytes);
  return { text: all, end: all.indexOf("\r\n\r\n") };
}

/** A chunked body decoded; undefined while (or if) it is incomplete or malformed. Pure. */
export function dechunk(bytes: Uint8Array): Uint8Array | undefined {
  const text = bytesText(bytes);
  const parts: Uint8Array[] = [];
  let at = 0;
  let total = 0;
  for (;;) {
    const eol = text.indexOf("\r\n", at);
    if (eol < 0) return undefined;
    const sizeText = (text.slice(at, eol).split(";")[0] ?? "").trim();
    if (!/^[0-9a-fA-F]+$/.test(sizeText)) return undefined;
    const size = parseInt(sizeText, 16);
    if (size === 0) break;
    const start = eol + 2;
    if (start + size + 2 > bytes.length) return undefined;
    parts.push(bytes.subarray(start, start + size));
    total += size;
    at = start + size + 2;
  }
  return concat(parts, total);
}

/**
 * The answer in `bytes` (what the server sent so far): complete when its body has all of
 * its content-length (or its last chunk), or, with neither, once the server closed
 * (`closed`). undefined while incomplete. Pure.
 */
export function parseHttp1(bytes: Uint8Array, closed: boolean): Http1Answer | undefined {
  const { text, end } = headEnd(bytes);
  if (end < 0) return undefined;
  const lines = text.slice(0, end).split("\r\n");
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0] ?? "");
  if (status === null) throw new Error(`not an HTTP/1.1 answer: ${lines[0] ?? ""}`);
  const headers: [string, string][] = [];
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.push([line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]);
  }
  const header = (name: string): string | undefined => headers.find(([k]) => k === name)?.[1];
  const rest = bytes.subarray(end + 4);
  const length = header("content-length");
  let body: Uint8Array | undefined;
  if (/chunked/i.test(header("transfer-encoding") ?? "")) body = dechunk(rest);
  else if (length !== undefined && /^\d+$/.test(length)) body = rest.length >= Number(length) ? rest.subarray(0, Number(length)) : undefined;
  else body = closed ? rest : undefined;
  return body === undefined ? undefined : { status: Number(status[1]), headers, body };
}

/** The whole answer's size in bytes by its head; Infinity when only the server's close ends it; undefined before the head is in. Pure. */
export function answerSize(bytes: Uint8Array): number | undefined {
  const { text, end } = headEnd(bytes);
  if (end < 0) return undefined;
  const head = text.slice(0, end).toLowerCase();
  if (/\r\ntransfer-encoding:[^\r]*chunked/.test(head)) return Infinity;
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  return length === null ? Infinity : end + 4 + Number(length[1]);
}

/** Statuses a Response may not carry a body with. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function concat(chunks: readonly Uint8Array[], size: number): Uint8Array {
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** POST `body` to an http: URL on a socket of its own; the answer as a Response (headers and status as sent). */
export function postHttp1(url: string, headers: Record<string, string>, body: string): Promise<Response> {
  const u = new URL(url);
  const payload = new TextEncoder().encode(body);
  const head = [`POST ${u.pathname}${u.search} HTTP/1.1`, `host: ${u.host}`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `content-length: ${payload.length}`, "connection: close", "", ""].join("\r\n");
  const headBytes = new TextEncoder().encode(head);
  const request = concat([headBytes, payload], headBytes.length + payload.length);
  const hostname = u.hostname.startsWith("[") ? u.hostname.slice(1, -1) : u.hostname;
  const port = Number(u.port || 80);
  return new Promise<Response>((resolve, reject) => {
    const chunks: Uint8Array[] = [];
    let size = 0;
    let done = false;
    let pending = request;
    /** Bytes of the whole answer once its head says (content-length); Infinity: until the server closes. */
    let whole: number | undefined;
    /**
     * The answer's bytes in one buffer of its announced size, filled as they come: a listing of
     * 10k nodes is 5 MB, and copying each chunk and then joining them touched twice the memory.
     */
    let into: Uint8Array | undefined;
    const finish = (closed: boolean, sock?: { end(): void }): void => {
      if (done) return;
      if (whole === undefined) {
        // the head is small and comes first: joined until its end is in
        const all = concat(chunks, size);
        chunks.splice(0, chunks.length, all);
        whole = answerSize(all);
        if (whole !== undefined && Number.isFinite(whole) && whole > size) {
          into = new Uint8Array(whole);
          into.set(all);
          chunks.length = 0;
        }
      }
      if (!closed && (whole === undefined || size < whole)) return;
      done = true;
      sock?.end();
      let answer: Http1Answer | undefined;
      try {
        answer = parseHttp1(into === undefined ? concat(chunks, size) : into.subarray(0, size), closed);
      } catch (e) {
        reject(e);
        return;
      }
      if (answer === undefined) reject(new Error("connection closed before the whole answer"));
      else resolve(new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, headers: answer.headers }));
    };
    const fail = (e: unknown): void => {
      if (done) return;
      done = true;
      reject(e);
    };
    const flush = (s: { write(d: Uint8Array): number }): void => {
      // write() may take part of it (a full socket buffer): the rest goes on drain
      const n = s.write(pending);
      pending = n > 0 ? pending.subarray(n) : pending;
    };
    Bun.connect({
      hostname,
      port,
      socket: {
        open: (s) => flush(s),
        drain: (s) => {
          if (pending.length > 0) flush(s);
        },
        data: (s, d) => {
          if (into !== undefined && size + d.length > into.length) {
            // more than the head announced: kept as it came, after what the buffer holds
            chunks.push(into.subarray(0, size));
            into = undefined;
          }
          if (into !== undefined) into.set(d, size);
          else chunks.push(new Uint8Array(d));
          size += d.length;
          finish(false, s);
        },
        close: () => finish(true),
        end: () => finish(true),
        error: (_s, e) => fail(e),
        connectError: (_s, e) => fail(e),
        timeout: () => fail(new Error("timed out")),
      },
    }).catch(fail);
  });
}
