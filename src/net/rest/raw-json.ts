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
