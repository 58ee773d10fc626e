/**
 * @module tests/conformance/normalise
 * Turns one side's capture of a scenario (exit code, stdout, stderr) into the
 * text that is compared: masks.ts applied once over the whole block (so a job
 * id gets the same placeholder in stdout and stderr), or, for --json output,
 * a skeleton of keys and value types. Also a small line diff for reports.
 */
import { applyMasks, type MapState, type SideContext } from "./mask-engine.ts";
import { MASKS } from "./masks.ts";

export interface Capture {
  code: number;
  stdout: string;
  stderr: string;
}

export type Compare = "text" | "json" | "sorted";

/** Keys and value types of a JSON document, one `path: type` line each; array elements merged. */
export function jsonSkeleton(text: string): string {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return `(not JSON) ${text.length > 0 ? "non-empty" : "empty"}`;
  }
  const seen = new Map<string, Set<string>>();
  const walk = (v: unknown, path: string): void => {
    const type = v === null ? "null" : Array.isArray(v) ? "array" : typeof v;
    const set = seen.get(path) ?? new Set<string>();
    set.add(type);
    seen.set(path, set);
    if (Array.isArray(v)) for (const e of v) walk(e, `${path}[]`);
    else if (v !== null && typeof v === "object") for (const [k, e] of Object.entries(v)) walk(e, `${path}.${k}`);
  };
  walk(doc, "$");
  return [...seen].map(([p, t]) => `${p}: ${[...t].sort().join("|")}`).join("\n");
}

/** Saved variables holding a job id, as id -> <NAME> (first name wins); *IDS variables are id lists, not names. */
export function namedIds(vars: Record<string, string>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(vars)) if (/^\d+$/.test(v) && !k.endsWith("IDS") && !out.has(v)) out.set(v, `<${k}>`);
  return out;
}

/** Show the end of a stream exactly: a missing final newline is visible in the block. */
function stream(s: string): string {
  if (s === "") return "";
  return s.endsWith("\n") ? s : `${s}\n(no trailing newline)\n`;
}

/** The compared text of one capture. */
export function normalise(c: Capture, ctx: SideContext, how: Compare = "text", vars: Record<string, string> = {}, fileIdVars: string[] = []): string {
  const fileIds = new Set(fileIdVars.flatMap((v) => (vars[v] ?? "").split(/\s+/)).filter((x) => x !== ""));
  const st: MapState = { jobIds: new Map(), named: namedIds(vars), fileIds };
  const masked = (t: string) => applyMasks(t, MASKS, ctx, st).text;
  const sort = (s: string) => s.split("\n").filter((l) => l !== "").sort().map((l) => `${l}\n`).join("");
  if (how === "json") {
    return `exit: ${c.code}\n--- stdout (json skeleton)\n${jsonSkeleton(c.stdout)}\n--- stderr\n${stream(masked(c.stderr))}`;
  }
  const out = stream(masked(c.stdout));
  const err = stream(masked(c.stderr));
  // sorted: the lines of each stream are compared as a sorted list (the scenario's output order races)
  if (how === "sorted") return `exit: ${c.code}\n--- stdout (sorted)\n${sort(out)}--- stderr (sorted)\n${sort(err)}`;
  return `exit: ${c.code}\n--- stdout\n${out}--- stderr\n${err}`;
}

/** Line diff (LCS): "-" lines only in `a` (Slurm), "+" lines only in `b` (Spur). Empty when equal. */
export function lineDiff(a: string, b: string): string[] {
  if (a === b) return [];
  const x = a.split("\n");
  const y = b.split("\n");
  const n = x.length;
  const m = y.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] = x[i] === y[j] ? ((lcs[i + 1] as number[])[j + 1] as number) + 1 : Math.max((lcs[i + 1] as number[])[j] as number, row[j + 1] as number);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      i++;
      j++;
    } else if (i < n && (j >= m || ((lcs[i + 1] as number[])[j] as number) >= ((lcs[i] as number[])[j + 1] as number))) out.push(`-${x[i++]}`);
    else out.push(`+${y[j++]}`);
  }
  return out;
}
