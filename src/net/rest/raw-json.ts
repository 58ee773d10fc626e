/**
 * @module rest/raw-json
 * Big listings (GET jobs/ with 10k jobs is ~40 MiB of JSON) are serialized
 * once and shared: `RawMembers` carries members already written as JSON text,
 * which the app splices into the envelope instead of stringifying again, and
 * `singleFlight` lets concurrent identical requests of one user share one
 * controller call and one serialization (data no older than the request that
 * is already in flight; nothing is kept after it completes).
 */
export class RawMembers {
  constructor(
    /**
     * JSON members without the braces, e.g. `"jobs":[...]`, already adapted to the version:
     * text, or UTF-8 chunks to be sent as they are (no 40 MiB join and re-encoding).
     */
    readonly text: string | readonly Uint8Array[],
    /** Further members, stringified with the envelope. */
    readonly rest: Record<string, unknown>,
  ) {}
}

/** Body: the raw members, then `rest` and the envelope (bytes when the members are chunks). */
export function rawBody(raw: RawMembers & { text: string }, envelope: Record<string, unknown>): string;
export function rawBody(raw: RawMembers, envelope: Record<string, unknown>): string | Uint8Array;
export function rawBody(raw: RawMembers, envelope: Record<string, unknown>): string | Uint8Array {
  const tail = JSON.stringify({ ...raw.rest, ...envelope });
  const end = tail === "{}" ? "}" : `,${tail.slice(1)}`;
  if (typeof raw.text === "string") return `{${raw.text}${end}`;
  return Buffer.concat([Buffer.from("{"), ...raw.text, Buffer.from(end)]);
}

/**
 * The bodies written as parts (node-serve.ts writes each part to the socket as it is: a 40 MiB
 * listing is never joined into a fresh buffer per request, whose allocation and collection
 * cost more than the write). Any other server reads the Response's body as usual.
 */
const PARTS = new WeakMap<Response, readonly Uint8Array[]>();

/**
 * A 200 JSON response whose body is `parts` in order (`headers`: e.g. its content-encoding).
 * Vary: the same URL may be answered gzipped or not (gzip-body.ts).
 */
export function partsResponse(parts: readonly Uint8Array[], headers: Record<string, string> = {}): Response {
  let length = 0;
  for (const p of parts) length += p.byteLength;
  const stream = new ReadableStream<Uint8Array>({
    start(ctrl) {
      for (const p of parts) ctrl.enqueue(p);
      ctrl.close();
    },
  });
  const res = new Response(stream, { status: 200, headers: { "content-type": "application/json", "content-length": String(length), vary: "accept-encoding", ...headers } });
  PARTS.set(res, parts);
  return res;
}

/** The parts of a partsResponse (undefined for any other response). */
export const responseParts = (res: Response): readonly Uint8Array[] | undefined => PARTS.get(res);

/** Body parts: "{", the raw members' chunks, then `rest` and the envelope. */
export function rawParts(raw: RawMembers & { text: readonly Uint8Array[] }, envelope: Record<string, unknown>): Uint8Array[] {
  const tail = JSON.stringify({ ...raw.rest, ...envelope });
  const end = tail === "{}" ? "}" : `,${tail.slice(1)}`;
  return [Buffer.from("{"), ...raw.text, Buffer.from(end)];
}

/** Run `f` once per key at a time; callers arriving while it runs get the same promise. */
export function singleFlight<T>(): (key: string, f: () => Promise<T>) => Promise<T> {
  const inFlight = new Map<string, Promise<T>>();
  return (key, f) => {
    const running = inFlight.get(key);
    if (running !== undefined) return running;
    const p = f().finally(() => inFlight.delete(key));
    inFlight.set(key, p);
    return p;
  };
}
