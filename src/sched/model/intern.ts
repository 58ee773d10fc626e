/**
 * @module sched/model/intern
 * One copy of what jobs repeat. A replica gets each job as JSON (a log entry, a snapshot) and
 * decoding makes every string of it anew: the same user, account, partition, working
 * directory, output path and script, and the same environment (sbatch --export=ALL sends the
 * user's whole shell environment, ~60 variables, ~5 KB), again for every job. A pending job
 * cost ~12 KB of heap that way, ~2/3 of it its environment and script (bench/job-memory.ts).
 * internJob swaps a job's strings for the instances an earlier job already holds, and its
 * environment for an identical one already held (frozen: jobs share it, and nothing in the
 * controller writes a stored job's environment), and its empty lists (no node shares, state
 * flags, arguments, GRES, pending array tasks) for one frozen empty list: the controller gives
 * a job a new list when one of them changes, never writes one in place (a frozen list would
 * refuse it loudly); an empty steps' list is shared too, and a job's first step gets a list of
 * its own (apply-step pushes to that one). An empty environment is one frozen object. Only
 * identity changes: every value reads
 * the same, so nothing that compares, prints or serializes can tell. The tables are a
 * two-generation cache (a value not met again within a generation is forgotten), so values
 * that never repeat (job names with ids, unique scripts) do not pile up.
 */
import type { JobRecord } from "./types.ts";

/** Entries of a generation (strings and environments alike) before it is retired. */
const GENERATION_ENTRIES = 50_000;
/** Characters a generation keeps (scripts and environments' keys are large). */
const GENERATION_CHARS = 32 * 2 ** 20;

class Generations<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();
  private chars = 0;

  /** The held value for `key`, or `make()`'s, held from now on. */
  get(key: string, make: () => V): V {
    const now = this.current.get(key);
    if (now !== undefined) return now;
    const before = this.previous.get(key);
    const value = before ?? make();
    if (this.current.size >= GENERATION_ENTRIES || this.chars + key.length > GENERATION_CHARS) {
      this.previous = this.current;
      this.current = new Map();
      this.chars = 0;
    }
    this.current.set(key, value);
    this.chars += key.length;
    return value;
  }
}

/** The empty list jobs share (frozen: written in place by mistake it throws rather than changes every job). */
const NONE: readonly never[] = Object.freeze([]);

/** The empty environment jobs share (frozen, as NONE: a job's environment is never written in place). */
const NO_ENVIRONMENT: Readonly<Record<string, string>> = Object.freeze({});

/** `list`, or the shared empty list when it is empty. */
function shareEmpty<T>(list: T[]): T[] {
  return Array.isArray(list) && list.length === 0 && !Object.isFrozen(list) ? (NONE as unknown as T[]) : list;
}

const strings = new Generations<string>();
/** A shared environment and its variable names in order. */
interface HeldEnvironment {
  env: Readonly<Record<string, string>>;
  keys: readonly string[];
}

/** Held environments by a cheap fingerprint (count, first and last variables): a few per bucket, compared in full. */
const environments = new Generations<HeldEnvironment[]>();
/** Environments kept per fingerprint (most recent first). */
const BUCKET_MAX = 8;

/** `s`, or an equal string a job already holds. */
export function internString(s: string): string {
  return s === "" ? s : strings.get(s, () => s);
}

/** Every string-valued field of `o` (own, top level) swapped for its interned instance. */
function internFields(o: object): void {
  const r = o as Record<string, unknown>;
  for (const key in r) {
    const v = r[key];
    if (typeof v === "string" && v !== "") r[key] = internString(v);
  }
}

/** Same variables, same values, same order. */
function sameEnvironment(held: HeldEnvironment, env: Record<string, string>, keys: readonly string[]): boolean {
  if (held.keys.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i] as string;
    if (held.keys[i] !== k || held.env[k] !== env[k]) return false;
  }
  return true;
}

/**
 * An environment equal to `env` (same variables, same order), shared and frozen. Found by a
 * fingerprint and compared in full: no key text is built (a 5 KB environment's JSON took
 * ~15 µs a job, more than the rest of the interning).
 */
function internEnvironment(env: Record<string, string>): Record<string, string> {
  if (Object.isFrozen(env)) return env;
  const keys = Object.keys(env);
  if (keys.length === 0) return NO_ENVIRONMENT as Record<string, string>;
  const first = keys[0] as string;
  const last = keys[keys.length - 1] as string;
  const fingerprint = `${keys.length}\u0000${first}\u0000${env[first]}\u0000${last}\u0000${env[last]}`;
  const bucket = environments.get(fingerprint, () => []);
  for (const held of bucket) if (sameEnvironment(held, env, keys)) return held.env as Record<string, string>;
  const shared: Record<string, string> = {};
  const sharedKeys = keys.map(internString);
  for (const k of sharedKeys) shared[k] = internString(env[k] as string);
  bucket.unshift({ env: Object.freeze(shared), keys: sharedKeys });
  if (bucket.length > BUCKET_MAX) bucket.length = BUCKET_MAX;
  return shared;
}

/** A job's spec (or part of one: a snapshot's reference or difference) with shared strings, environment and empty lists. */
export function internSpec(spec: Partial<JobRecord["spec"]>): void {
  internFields(spec);
  if (spec.env !== undefined && spec.env !== null && typeof spec.env === "object") spec.env = internEnvironment(spec.env);
  if (Array.isArray(spec.gresPerNode)) spec.gresPerNode = shareEmpty(spec.gresPerNode);
  if (Array.isArray(spec.argv)) spec.argv = shareEmpty(spec.argv);
  if (Array.isArray(spec.argv) && !Object.isFrozen(spec.argv)) {
    for (let i = 0; i < spec.argv.length; i++) {
      const a = spec.argv[i];
      if (typeof a === "string") spec.argv[i] = internString(a);
    }
  }
}

/** A job's info (or part of one) with shared strings and empty lists. */
export function internInfo(info: Partial<JobRecord["info"]>): void {
  internFields(info);
  if (Array.isArray(info.alloc)) info.alloc = shareEmpty(info.alloc);
  if (Array.isArray(info.stateFlags)) info.stateFlags = shareEmpty(info.stateFlags);
  // every queued job's: replaced, never written in place, when a step starts (apply-step.ts)
  if (Array.isArray(info.steps)) info.steps = shareEmpty(info.steps);
}

/** A job's own fields (or part of them) with its empty lists shared. */
export function internJobFields(job: Partial<JobRecord>): void {
  if (Array.isArray(job.arrayPending)) job.arrayPending = shareEmpty(job.arrayPending);
}

/** The job's strings and environment swapped for shared instances (values unchanged). */
export function internJob(job: JobRecord): void {
  const spec = job.spec as JobRecord["spec"] | undefined;
  if (spec !== undefined) internSpec(spec);
  const info = job.info as JobRecord["info"] | undefined;
  if (info !== undefined) internInfo(info);
  internJobFields(job);
}
