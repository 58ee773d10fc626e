/**
 * @module ctld/list-cache
 * The serialized job list of the last ListJobs calls, kept while nothing they show can have
 * changed: squeue in a loop (users' `watch squeue`, scripts polling for their jobs) then costs
 * the controller a string concatenation instead of building and serializing every job's view
 * again (10k jobs: tens of ms of the event loop per call, which every other RPC waits behind).
 * An entry is good for one request shape, one `state.appliedIndex` (every change through the
 * log) and one `Controller.viewsVersion()` (scheduling passes that changed a reason, priority or
 * plan; leadership), until the time its builder said the views change by the clock alone
 * (`validUntil`: a finished job leaving the list after MinJobAge; the next second while any
 * job's dependency is being evaluated). Bounded: a few request shapes, 64 Mi characters in all.
 * Each text built gets a version, unique in this process and across restarts (`epoch`): a
 * caller that holds the text of a version still served learns that its copy is current.
 */

export interface ListCacheKey {
  /** The request as JSON (its shape: job ids, flags). */
  request: string;
  appliedIndex: number;
  viewsVersion: number;
}

export interface Built {
  text: string;
  /** The entry serves calls whose `now` is below this (epoch seconds; Infinity: no clock dependence). */
  validUntil: number;
}

export interface Served {
  text: string;
  /** Names this text: the same version is the same text (until the entry is dropped: a new version then). */
  version: string;
}

export interface ListCache {
  /** The cached text for `key` at `now`, or `build()`'s (remembered when it is small enough). */
  get(key: ListCacheKey, now: number, build: () => Built): Served;
  /** Hits and misses since start (tests, sdiag-style figures). */
  stats(): { hits: number; misses: number };
}

const sameKey = (a: ListCacheKey, b: ListCacheKey): boolean =>
  a.appliedIndex === b.appliedIndex && a.viewsVersion === b.viewsVersion && a.request === b.request;

/** `textCharsMax`: all entries together (a 100k-job list is about 47 MB of text). */
export function createListCache(opts: { entriesMax?: number; textCharsMax?: number; epoch?: string } = {}): ListCache {
  const entriesMax = opts.entriesMax ?? 4;
  const textCharsMax = opts.textCharsMax ?? 64 * 2 ** 20;
  const epoch = opts.epoch ?? "0";
  let entries: { key: ListCacheKey; built: Served & { validUntil: number } }[] = [];
  let hits = 0;
  let misses = 0;
  return {
    get(key, now, build) {
      const found = entries.find((e) => sameKey(e.key, key) && now < e.built.validUntil);
      if (found !== undefined) {
        hits++;
        return found.built;
      }
      misses++;
      // The number of builds so far names this one (a version is never reused in this process).
      const built = { ...build(), version: `${epoch}.${misses}` };
      // Entries of older states can never hit again: only other request shapes of this state stay.
      entries = entries.filter((e) => e.key.request !== key.request && e.key.appliedIndex === key.appliedIndex && e.key.viewsVersion === key.viewsVersion);
      if (built.text.length <= textCharsMax) entries.unshift({ key, built });
      if (entries.length > entriesMax) entries.length = entriesMax;
      let chars = 0;
      entries = entries.filter((e) => (chars += e.built.text.length) <= textCharsMax);
      return built;
    },
    stats: () => ({ hits, misses }),
  };
}
