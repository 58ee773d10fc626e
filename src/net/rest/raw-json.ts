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
    /** JSON members without the braces, e.g. `"jobs":[...]`, already adapted to the version. */
    readonly text: string,
    /** Further members, stringified with the envelope. */
    readonly rest: Record<string, unknown>,
  ) {}
}

/** Body text: the raw members, then `rest` and the envelope. */
export function rawBody(raw: RawMembers, envelope: Record<string, unknown>): string {
  const tail = JSON.stringify({ ...raw.rest, ...envelope });
  return tail === "{}" ? `{${raw.text}}` : `{${raw.text},${tail.slice(1)}`;
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
