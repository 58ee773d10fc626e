/**
 * @module compat/options/cpu-bind-syntax
 * srun's check of a --cpu-bind value (or SLURM_CPU_BIND) before it asks for anything, as
 * 22.05's srun makes it (rules read off the oracle, cases in the unit test): the first bad
 * piece is named on one error line and srun ends with "Failed to parse --cpu-bind= values."
 * (exit 1). What binding a valid value asks for is spurd's business (agent/cgroup/bind.ts).
 * Pure.
 *
 * - A comma separates pieces unless a value follows it (a digit, or hex digits up to the next
 *   comma or the end), so a list keeps its commas: `mask_cpu:0x3,0xC`; `map_cpu:0,x` is the
 *   list `0` and the piece `x`. A semicolon always separates. Empty pieces are pieces (`,cores`
 *   names "").
 * - A piece is a word (any case), or a list keyword followed by `:` or `=` and its list.
 * - A list's items: decimal CPU or domain ids (map_*), hex masks with an optional `0x`
 *   (mask_*), each optionally `*N` with N >= 1; empty items are skipped.
 */

/** Words that stand alone (singular and plural forms both count). */
const WORDS = new Set([
  "help", "v", "verbose", "q", "quiet", "no", "none", "rank", "rank_ldom",
  "socket", "sockets", "core", "cores", "thread", "threads", "ldom", "ldoms", "one_thread",
]);

/** Keywords that take a list; 22.05 matches them as prefixes of the piece. `hex`: the list holds masks. */
const LIST_KEYWORDS: readonly { name: string; hex: boolean }[] = [
  { name: "map_cpu", hex: false }, { name: "mask_cpu", hex: true },
  { name: "map_ldom", hex: false }, { name: "mask_ldom", hex: true },
];

/** The line srun ends with after the error line. */
export const CPU_BIND_FATAL = "Failed to parse --cpu-bind= values.";

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= "0" && c <= "9";
const isHex = (c: string | undefined): boolean => c !== undefined && /^[0-9a-fA-F]$/.test(c);

/** Whether a value starts at `i`: a digit, or hex digits running to a comma or the end. */
function valueAt(text: string, i: number): boolean {
  if (isDigit(text[i])) return true;
  let j = i;
  while (isHex(text[j])) j++;
  return j >= text.length || text[j] === ",";
}

/** The value split into pieces at the semicolons and at the commas no value follows. */
export function cpuBindPieces(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === ";" || (text[i] === "," && !valueAt(text, i + 1))) {
      pieces.push(text.slice(start, i));
      start = i + 1;
    }
  }
  pieces.push(text.slice(start));
  return pieces;
}

/** `shown` (what the message names) has a character outside `ok` at or after `from`: the error line. */
function badNumber(shown: string, from: number, ok: (c: string) => boolean): string | undefined {
  for (let i = from; i < shown.length; i++) {
    const c = shown[i] as string;
    if (!ok(c)) return `Failed to validate number: ${shown}, the offending character is ${c}`;
  }
  return undefined;
}

function checkItem(item: string, keyword: { name: string; hex: boolean }): string | undefined {
  const star = item.indexOf("*");
  let value = star < 0 ? item : item.slice(0, star);
  if (keyword.hex && value.startsWith("0x")) value = value.slice(2);
  const bad = badNumber(value, 0, keyword.hex ? isHex : isDigit);
  if (bad !== undefined) return bad;
  if (star < 0) return undefined;
  const times = item.slice(star);
  const badTimes = badNumber(times, 1, isDigit);
  if (badTimes !== undefined) return badTimes;
  return Number(times.slice(1) || "0") >= 1 ? undefined : `Invalid ${keyword.name} multiplier: ${times.slice(1)}`;
}

/** The error line for a --cpu-bind value srun refuses, or undefined when it passes. */
export function cpuBindError(text: string): string | undefined {
  for (const piece of cpuBindPieces(text)) {
    const lower = piece.toLowerCase();
    if (WORDS.has(lower)) continue;
    const keyword = LIST_KEYWORDS.find((k) => lower.startsWith(k.name));
    if (keyword === undefined) return `unrecognized --cpu-bind argument "${piece}"`;
    const sep = piece.search(/[:=]/);
    const list = sep < 0 ? "" : piece.slice(sep + 1);
    if (list === "") return `missing list for "--cpu-bind=${keyword.name}:<list>"`;
    for (const item of list.split(",")) {
      if (item === "") continue;
      const bad = checkItem(item, keyword);
      if (bad !== undefined) return bad;
    }
  }
  return undefined;
}
