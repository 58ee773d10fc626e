/**
 * @module array-spec
 * Job array index sets: parse `sbatch --array=<spec>` ("0-15", "1,3,5", "1-7:2",
 * "0-15%4") into sorted task ids plus a throttle, and print an index set the way
 * squeue/scontrol/sacct show it (`4-10`, `1,3,5,7`, `1-99:2`, `%N` suffix).
 * Facts: /work/shared/slurm-surface/dependency-and-array.md §2.
 */
import { assert } from "../lib/assert.ts";
import { err, ok, type Result } from "../lib/result.ts";

/** Slurm's default MaxArraySize: indexes must be < this value (so 0..1000). */
export const DEFAULT_MAX_ARRAY_SIZE = 1001;

/**
 * Text of ESLURM_INVALID_ARRAY as the controller returns it; sbatch prints it as
 * `sbatch: error: Batch job submission failed: Invalid job array specification`
 * (golden 099), adding the "Batch job submission failed: " prefix itself, as it
 * does for every rejected submit RPC.
 */
export const INVALID_ARRAY_MESSAGE = "Invalid job array specification";

/** Default cut of the bracket text in squeue (SLURM_BITSTR_LEN unset). */
export const DEFAULT_BITSTR_LEN = 64;

/** SLURM_BITSTR_LEN is capped at this length. */
const BITSTR_LEN_MAX = 4096;

export interface ArraySpec {
  /** Sorted, de-duplicated task indexes. */
  taskIds: number[];
  /** Max tasks running at once (`%K`); 0 = no throttle. */
  throttle: number;
}

const invalid = (): Result<never> => err("InvalidArraySpec", INVALID_ARRAY_MESSAGE, 1);

/** A non-negative decimal integer made of digits only, or undefined. */
function parseIndex(text: string): number | undefined {
  if (!/^[0-9]+$/.test(text)) return undefined;
  const value = Number(text);
  return Number.isSafeInteger(value) ? value : undefined;
}

/**
 * One token `N`, `N-M` or `N-M:S`, optionally wrapped in `[ ]`. Adds its
 * indexes to `into`; returns false when the token is malformed or out of range.
 */
function addToken(token: string, maxArraySize: number, into: Set<number>): boolean {
  const bare = token.replace(/^\[/, "").replace(/\]$/, "");
  const match = /^([^-:]+)(?:-([^:]+))?(?::(.+))?$/.exec(bare);
  if (match === null) return false;
  const first = parseIndex(match[1] ?? "");
  const last = match[2] === undefined ? first : parseIndex(match[2]);
  const step = match[3] === undefined ? 1 : parseIndex(match[3]);
  if (first === undefined || last === undefined || step === undefined) return false;
  if (last < first || last >= maxArraySize) return false;
  if (step <= 0 || step >= maxArraySize) return false;
  for (let index = first; index <= last; index += step) into.add(index);
  return true;
}

/**
 * Parse an `--array` value. The throttle is taken from the first `%` anywhere
 * in the string (so `1,3,5%2` works); empty comma tokens are skipped, as the
 * controller's tokenizer does. Every failure is "Invalid job array
 * specification", including indexes >= MaxArraySize and MaxArraySize=0.
 */
export function parseArraySpec(
  spec: string,
  maxArraySize = DEFAULT_MAX_ARRAY_SIZE,
): Result<ArraySpec> {
  if (maxArraySize <= 0) return invalid();
  const percentAt = spec.indexOf("%");
  const indexText = percentAt < 0 ? spec : spec.slice(0, percentAt);
  let throttle = 0;
  if (percentAt >= 0) {
    const parsed = parseIndex(spec.slice(percentAt + 1));
    if (parsed === undefined || parsed > 0xfffffffe) return invalid();
    throttle = parsed;
  }
  const ids = new Set<number>();
  const tokens = indexText.split(",").filter((token) => token !== "");
  if (tokens.length === 0) return invalid();
  for (const token of tokens) {
    if (!addToken(token, maxArraySize, ids)) return invalid();
  }
  const taskIds = [...ids].sort((a, b) => a - b);
  assert(taskIds.length > 0, "a valid spec names at least one index");
  assert((taskIds[taskIds.length - 1] ?? 0) < maxArraySize, "indexes below MaxArraySize");
  return ok({ taskIds, throttle });
}

/**
 * SLURM_ARRAY_TASK_STEP: the number after the first `:` of the spec, 1 when
 * there is none (`1-10:3,20` gives 3).
 */
export function arrayTaskStep(spec: string): number {
  const match = /:([0-9]+)/.exec(spec);
  const step = match === null ? undefined : parseIndex(match[1] ?? "");
  return step === undefined || step === 0 ? 1 : step;
}

/** Runs of consecutive ids: [first, last] pairs, input sorted ascending. */
function consecutiveRuns(ids: readonly number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const id of ids) {
    const run = runs[runs.length - 1];
    if (run !== undefined && id === run[1] + 1) run[1] = id;
    else if (run === undefined || id !== run[1]) runs.push([id, id]);
  }
  return runs;
}

/** `first-last:step` when the ids are one regular stride (> 5 ids, span > 10). */
function strideForm(ids: readonly number[]): string | undefined {
  const first = ids[0];
  const second = ids[1];
  const last = ids[ids.length - 1];
  if (first === undefined || second === undefined || last === undefined) return undefined;
  if (ids.length <= 5 || last - first <= 10) return undefined;
  const step = second - first;
  if (step <= 1) return undefined;
  for (let i = 1; i < ids.length; i++) {
    if (ids[i] !== first + i * step) return undefined;
  }
  return `${first}-${last}:${step}`;
}

/**
 * Display form of an index set (the text inside `17_[...]`, scontrol
 * `ArrayTaskId=`): ranges joined by commas (`1,3,5,7`, `4-10`), a regular
 * stride as `1-99:2` when it spans more than 10 with more than 5 ids, cut to
 * `bitstrLen` characters ending in `...` (0 = no cut), then `%N` when
 * throttled. Ids need not be sorted or unique.
 */
export function formatArrayTasks(
  ids: readonly number[],
  throttle: number,
  bitstrLen = DEFAULT_BITSTR_LEN,
): string {
  const sorted = [...new Set(ids)].sort((a, b) => a - b);
  let text =
    strideForm(sorted) ??
    consecutiveRuns(sorted)
      .map(([first, last]) => (first === last ? `${first}` : `${first}-${last}`))
      .join(",");
  const limit = Math.min(bitstrLen, BITSTR_LEN_MAX);
  if (limit > 3 && text.length > limit) text = `${text.slice(0, limit - 3)}...`;
  return throttle > 0 ? `${text}%${throttle}` : text;
}
