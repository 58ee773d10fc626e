/**
 * @module filename-pattern
 * Expansion of `-o/-e/-i` filename patterns (%j %A %a %x %N ...) with Slurm's
 * zero padding, unknown-letter and backslash rules, and the default output
 * names (facts: shared/slurm-surface/filename-patterns.tsv; current Slurm).
 */

/** Everything a pattern may refer to. */
export interface FilenameContext {
  jobId: number;
  /** 0 for a non-array job. */
  arrayJobId: number;
  /** -1 for a non-array job. */
  arrayTaskId: number;
  jobName: string;
  user: string;
  /** NodeName of the node doing the expansion. */
  nodeName: string;
  /** Index of that node in the allocation (0 = first). */
  nodeIndex: number;
  /** Task rank in the step; the batch script is task 0 (default). */
  taskId?: number;
  /** Step id; undefined (or BATCH_STEP_ID) = the batch step. */
  stepId?: number;
  /** Requeue count (default 0). */
  restartCount?: number;
  /** SLUID; empty when not known. */
  sluid?: string;
}

/** Slurm's NO_VAL, which %a (and %b) print for a non-array job. */
const NO_VAL = 4294967294;
/** Step id Slurm uses for the batch step (SLURM_BATCH_SCRIPT as a signed int). */
export const BATCH_STEP_ID = -5;
/** Widths above 9 are treated as 10. */
const PAD_WIDTH_MAX = 10;

/** A substitution: a number (padding applies) or text (padding ignored). */
type Value = { num: number } | { text: string };

const isBatch = (ctx: FilenameContext): boolean =>
  ctx.stepId === undefined || ctx.stepId === BATCH_STEP_ID;

const arrayTask = (ctx: FilenameContext): number => (ctx.arrayTaskId >= 0 ? ctx.arrayTaskId : NO_VAL);

/** One row per pattern letter. %J is handled apart (number plus ".step"). */
const LETTERS: Readonly<Record<string, (ctx: FilenameContext) => Value>> = {
  A: (c) => ({ num: c.arrayJobId > 0 ? c.arrayJobId : c.jobId }),
  a: (c) => ({ num: arrayTask(c) }),
  b: (c) => ({ num: arrayTask(c) % 10 }),
  j: (c) => ({ num: c.jobId }),
  N: (c) => ({ text: c.nodeName }),
  n: (c) => ({ num: c.nodeIndex }),
  r: (c) => ({ num: c.restartCount ?? 0 }),
  S: (c) => ({ text: c.sluid ?? "" }),
  s: (c) => (isBatch(c) ? { text: "batch" } : { num: c.stepId ?? 0 }),
  t: (c) => ({ num: c.taskId ?? 0 }),
  u: (c) => ({ text: c.user }),
  x: (c) => ({ text: c.jobName }),
};

const pad = (n: number, width: number): string => String(n).padStart(width, "0");

/** The text for letter `ch` at `width`, or undefined for an unknown letter. */
function substitute(ch: string, width: number, ctx: FilenameContext): string | undefined {
  if (ch === "J") {
    const id = pad(ctx.jobId, width);
    return isBatch(ctx) ? id : `${id}.${ctx.stepId}`;
  }
  const row = LETTERS[ch];
  if (!row) return undefined;
  const v = row(ctx);
  return "num" in v ? pad(v.num, width) : v.text;
}

/**
 * Expand a filename pattern. "%%" → "%"; "%4j" zero-pads to 4 (widths over 9
 * count as 10; ignored for %N %u %x %S and "batch"); an unknown letter is
 * left as written ("%q", "%5q"). Any backslash disables every substitution
 * and all backslashes are removed ("a\\%j" → "a%j").
 */
export function expandFilenamePattern(pattern: string, ctx: FilenameContext, only?: ReadonlySet<string>): string {
  if (pattern.includes("\\")) return pattern.replaceAll("\\", "");
  let out = "";
  let i = 0;
  while (i < pattern.length) {
    const ch = pattern[i] as string;
    if (ch !== "%") {
      out += ch;
      i++;
      continue;
    }
    if (pattern[i + 1] === "%") {
      out += "%";
      // the job record's expansion (22.05's controller) takes one "%" of "%%" and reads the second as the
      // start of the next field: "%%j" shows %<id>, "%%" and "a%%b" stay (oracle; differential seed 9655)
      i += only === undefined ? 2 : 1;
      continue;
    }
    const m = /^\d*/.exec(pattern.slice(i + 1));
    const digits = m?.[0] ?? "";
    const width = digits === "" ? 0 : Math.min(Number(digits), PAD_WIDTH_MAX);
    const letter = pattern[i + 1 + digits.length];
    // the job record's expansion reads no width: "%4j" stays as written there (oracle 22.05, pending and
    // running: StdErr=/tmp/%4j; differential seed 10744); the node pads it
    const recordWidth = only !== undefined && digits !== "";
    const text = letter === undefined || recordWidth || (only !== undefined && !only.has(letter)) ? undefined : substitute(letter, width, ctx);
    if (text === undefined) {
      out += ch; // unknown letter or trailing "%": keep the text as written
      i++;
      continue;
    }
    out += text;
    i += 2 + digits.length;
  }
  return out;
}

/**
 * The letters the job record expands (scontrol StdOut/StdErr/StdIn): %A %a %j %u %x; the
 * node's share of the pattern (%N %n %t %s %J) and "%%" stay as written, for the node to
 * expand (oracle 22.05, pending and running: `-o x-%N-%J-%%-%j.out` shows x-%N-%J-%%-475.out).
 */
export const RECORD_LETTERS: ReadonlySet<string> = new Set(["A", "a", "j", "u", "x"]);

/** sbatch's default stdout (and stderr) pattern. */
export function defaultOutputPattern(isArray: boolean): string {
  return isArray ? "slurm-%A_%a.out" : "slurm-%j.out";
}

/** srun --async default output pattern (relative to each task's cwd). */
export const SRUN_ASYNC_OUTPUT_PATTERN = "slurm-%J.out";

/** sbatch: a path not starting with "/" is relative to the job's working directory. */
export function resolveStdioPath(path: string, workDir: string): string {
  if (path.startsWith("/")) return path;
  return `${workDir.replace(/\/+$/, "")}/${path}`;
}
