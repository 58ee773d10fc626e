/**
 * @module compat/multi-prog
 * `srun --multi-prog FILE`: each line is `RANKS PROGRAM ARGS...`, where RANKS is
 * `*` (every task not named so far, last line only) or a comma list of task ids
 * and `lo-hi` ranges. Two halves, as in Slurm 22.05 (checked on the oracle):
 * - `checkMultiProg` is srun's check before anything is allocated: every line
 *   well formed, no task twice, every task 0..ntasks-1 named; without -n the
 *   file sets the task count (highest rank + 1). Errors are srun's lines.
 * - `multiProgArgv` is what slurmstepd does per task: the first line naming
 *   the rank gives its command line; words split at white space; `\x` is x;
 *   '...' keeps its text as is; `%t` is the task id and `%o` its offset within
 *   the line's ranks (`1,3-4`: 0, 1, 2); any other `%x` vanishes; a backslash
 *   ending a line continues the command on the next line; srun's own extra
 *   arguments follow.
 * Lines starting with `#` (after blanks) are comments; blank lines are skipped.
 */

/** srun reads at most this much of the file ("Multi_prog config file F is too large"). */
export const MULTI_PROG_BYTES_MAX = 60_000;
/** A line this long (with its newline) is refused ("Line N of configuration file F too long"). */
export const MULTI_PROG_LINE_MAX = 16 * 1024 - 1;
/** slurmstepd keeps at most this many words of a command line (MAX_ARGC - 1). */
const ARGC_MAX = 127;

export type Checked = { ok: true; ntasks: number } | { ok: false; lines: string[] };

interface Line {
  number: number;
  text: string;
  /** The line ends with a backslash: the next line belongs to its command. */
  continued: boolean;
}

/** The file's lines as both halves walk them: a line after a continued one is part of it, not a line of its own. */
function lines(text: string): Line[] {
  const raw = text.split("\n");
  if (raw.at(-1) === "") raw.pop();
  return raw.map((t, i) => ({ number: i + 1, text: t, continued: t.endsWith("\\") }));
}

/** Lines that start a record (comments, blanks and continuation lines left out), with the line's own text. */
function records(all: readonly Line[]): Line[] {
  const out: Line[] = [];
  let afterBreak = false;
  for (const line of all) {
    const skip = afterBreak;
    afterBreak = line.continued;
    const body = line.text.trimStart();
    if (skip || body === "" || body.startsWith("#")) continue;
    out.push({ ...line, text: body });
  }
  return out;
}

type Range = { lo: number; hi: number };

/** C's atoi: an optional sign and the digits that follow, 0 when none. */
const atoi = (text: string): number => Number(/^[+-]?\d+/.exec(text)?.[0] ?? 0);

/** srun's reading of one part of a RANKS word (`N` or `lo-hi`): the range, or the error line. */
function parseRank(part: string): Range | string {
  const digits = /^\d*/.exec(part)?.[0] ?? "";
  const after = part.slice(digits.length);
  if (after === "") return { lo: Number(digits), hi: Number(digits) };
  if (!after.startsWith("-")) return `Invalid task range specification (${part})`;
  const upper = /^\d*/.exec(after.slice(1))?.[0] ?? "";
  if (after.slice(1 + upper.length) !== "") return "Invalid task range specification";
  return { lo: atoi(part), hi: atoi(upper) };
}

/**
 * srun's check of the file `text` (named `file` in the messages) for a step of `ntasks` tasks; `ntasksSet`:
 * -n (or SLURM_NTASKS) fixed the count. Returns the task count to run, or srun's error lines.
 */
export function checkMultiProg(text: string, file: string, ntasks: number, ntasksSet: boolean): Checked {
  if (ntasks <= 0) return { ok: false, lines: [`Invalid task count ${ntasks}`] };
  let count = ntasks;
  let fixed = ntasksSet;
  let grownByFile = false;
  let asterisk = false;
  const named = new Set<number>();
  const mark = (r: Range, ignoreDuplicates: boolean): string | undefined => {
    if (r.lo > r.hi) return `Invalid task range, ${r.lo}-${r.hi}`;
    if (r.lo < 0) return `Invalid task id, ${r.lo} < 0`;
    if (r.hi >= count) {
      if (fixed && !grownByFile) return `Invalid task id, ${r.hi} >= ntasks`;
      count = r.hi + 1;
      fixed = true;
      grownByFile = true;
    }
    for (let t = r.lo; t <= r.hi; t++) {
      if (named.has(t) && !ignoreDuplicates) return `Duplicate record for task ${t}`;
      named.add(t);
    }
    return undefined;
  };
  const all = lines(text);
  for (const line of all) {
    if (line.text.length + (line.number < all.length || text.endsWith("\n") ? 1 : 0) >= MULTI_PROG_LINE_MAX) {
      return { ok: false, lines: [`Line ${line.number} of configuration file ${file} too long`] };
    }
  }
  for (const line of records(all)) {
    const [ranks, program] = line.text.split(/[ \t]+/);
    const invalid = `Line ${line.number} of configuration file ${file} invalid`;
    if (ranks === undefined || program === undefined || program === "") return { ok: false, lines: [invalid] };
    const why = ranks === "*" ? starLine() : rankLine(ranks);
    if (why !== undefined) return { ok: false, lines: [why, invalid] };
  }
  for (let t = 0; t < count; t++) {
    if (!named.has(t)) return { ok: false, lines: [`Configuration file ${file} invalid, no record for task id ${t}`] };
  }
  return { ok: true, ntasks: count };

  function starLine(): string | undefined {
    fixed = true; // the count may not change after `*`
    asterisk = true;
    return mark({ lo: 0, hi: count - 1 }, true);
  }
  function rankLine(ranks: string): string | undefined {
    for (const part of ranks.split(",").filter((p) => p !== "")) {
      if (asterisk) return "Task range specification with asterisk must be last";
      const r = parseRank(part);
      const why = typeof r === "string" ? r : mark(r, false);
      if (why !== undefined) return why;
    }
    return undefined;
  }
}

/** The task's offset within `ranks` when they name `rank` (slurmstepd's reading: bad parts are skipped). */
function offsetIn(ranks: string, rank: number): number | undefined {
  if (ranks === "*") return rank;
  let passed = 0;
  for (const part of ranks.split(",").filter((p) => p !== "")) {
    const m = /^(\d+)(?:-(\d*))?$/.exec(part);
    if (m === null) continue;
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2] || 0);
    if (rank >= lo && rank <= hi) return passed + rank - lo;
    passed += m[2] === undefined ? 1 : hi - lo + 1;
  }
  return undefined;
}

export type TaskArgv = { ok: true; argv: string[] } | { ok: false; error: string };

/** The command line of task `rank` from the file `text`, with srun's `extra` arguments after it. */
export function multiProgArgv(text: string, rank: number, extra: readonly string[] = []): TaskArgv {
  const all = lines(text);
  for (const line of records(all)) {
    const ranks = /^\S+/.exec(line.text)?.[0] ?? "";
    const rest = line.text.slice(ranks.length);
    if (rest === "") return { ok: false, error: `Invalid MPMD configuration line ${line.number}` };
    const offset = offsetIn(ranks, rank);
    if (offset === undefined) continue;
    const following = all.slice(line.number).map((l) => l.text);
    const words = splitWords(rest.trimStart(), following, rank, offset);
    if (words === undefined) return { ok: false, error: "No executable program specified for this task" };
    return { ok: true, argv: [...words, ...extra].slice(0, ARGC_MAX) };
  }
  return { ok: false, error: "No executable program specified for this task" };
}

/**
 * slurmstepd's word splitting of a command line (`next`: the file's following lines, for a trailing
 * backslash). Undefined for an unclosed quote. A word once begun is kept even when empty (`a \` at a line's
 * end gives "a", "" and the next line's words, as 22.05 does).
 */
function splitWords(first: string, next: readonly string[], rank: number, offset: number): string[] | undefined {
  const words: string[] = [];
  let s = first;
  let i = 0;
  let word: string | undefined;
  let following = 0;
  const nextLine = (): boolean => {
    const line = next[following];
    if (line === undefined) return false;
    following += 1;
    s = line;
    i = 0;
    return true;
  };
  while (i < s.length) {
    if (word !== undefined) words.push(word);
    word = "";
    for (;;) {
      const c = s[i];
      if (c === undefined) break;
      if (c === " " || c === "\t" || c === "\r" || c === "\f" || c === "\v") {
        while (/\s/.test(s[i] ?? "x")) i++;
        break;
      }
      if (c === "%") {
        const letter = s[i + 1];
        if (letter === "t") word += String(rank);
        else if (letter === "o") word += String(offset);
        i += 2;
      } else if (c === "\\") {
        if (i + 1 < s.length) {
          word += s[i + 1];
          i += 2;
        } else if (!nextLine()) {
          i += 1;
          break;
        }
      } else if (c === "'") {
        const close = s.indexOf("'", i + 1);
        if (close >= 0) {
          word += s.slice(i + 1, close);
          i = close + 1;
          continue;
        }
        // a quote left open at a line ending in a backslash: 22.05 keeps this line's part and resumes
        // after the quote on the next line (what lay before that quote there is lost)
        if (!s.endsWith("\\")) return undefined;
        const part = s.slice(i + 1);
        const found = nextLine() ? s.indexOf("'") : -1;
        if (found < 0) return undefined;
        word += part;
        i = found + 1;
      } else {
        word += c;
        i += 1;
      }
    }
  }
  if (word !== undefined) words.push(word);
  return words;
}
