/**
 * @module tests/conformance/mask-engine
 * The machinery behind masks.ts: a mask finds spans of text (by regex, or by
 * column in a table with a header); spans are claimed in mask order, then
 * replaced left to right so job ids get placeholders in order of appearance.
 * Table cells are re-padded to their original width so alignment still counts.
 */

/** What one side's paths look like, so path masks can name them. */
export interface SideContext {
  /** Directory the commands and jobs run in. */
  workDir: string;
  /** Cluster state directory (Slurm: $ORACLE_RUN, Spur: the `spur up` state dir). */
  stateDir: string;
  /** Configuration file paths the side may print (slurm.conf / spur.conf). */
  confPaths: string[];
}

/** Replacement state shared by the spans of one normalised block. */
export interface MapState {
  jobIds: Map<string, string>;
  /** Ids the scenario saved in variables (`as: "ARR"`): shown as <ARR> rather than by order. */
  named?: Map<string, string>;
  /** Job ids the scenario declares to appear in output file names (CapStep.ids). */
  fileIds?: Set<string>;
}

export interface Span {
  start: number;
  end: number;
  replace: (text: string, st: MapState) => string;
}

export interface Mask {
  id: string;
  /** Why this differs legitimately between Slurm and Spur (or between two runs). */
  reason: string;
  find: (text: string, ctx: SideContext, st: MapState) => Span[];
}

/** The placeholder for a job id: a saved variable's name, else the first other id seen in a block is <J1>, and so on. */
export function jobPlaceholder(id: string, st: MapState): string {
  const name = st.named?.get(id);
  if (name !== undefined) return name;
  let p = st.jobIds.get(id);
  if (p === undefined) {
    p = `<J${st.jobIds.size + 1}>`;
    st.jobIds.set(id, p);
  }
  return p;
}

/** Replace the leading number of a job id cell ("17", "17_1", "17_[2-3]", "17.batch"). */
export function maskJobCell(value: string, st: MapState): string {
  return value.replace(/^\d+/, (id) => jobPlaceholder(id, st));
}

type ValueFn = (value: string, st: MapState) => string;
const fixed = (placeholder: string): ValueFn => () => placeholder;

/** Spans for every match of `re`; the named group `v` (or the whole match) is replaced. */
export function regexSpans(text: string, re: RegExp, value: ValueFn | string): Span[] {
  const fn = typeof value === "string" ? fixed(value) : value;
  const flags = re.flags.includes("d") ? re.flags : `${re.flags}d`;
  const g = new RegExp(re.source, flags.includes("g") ? flags : `${flags}g`);
  const out: Span[] = [];
  for (const m of text.matchAll(g)) {
    const range = m.indices?.groups?.v ?? m.indices?.[0];
    if (!range || range[0] === range[1]) continue;
    out.push({ start: range[0], end: range[1], replace: (t, st) => fn(t, st) });
  }
  return out;
}

/** Regex mask: `re` with an optional named group `v`; replaced by a fixed placeholder or a function. */
export function regexMask(id: string, reason: string, re: RegExp | RegExp[], value: ValueFn | string): Mask {
  const list = Array.isArray(re) ? re : [re];
  return { id, reason, find: (text) => list.flatMap((r) => regexSpans(text, r, value)) };
}

/** Pad `value` into a cell of `width` characters aligned as the original was. */
function pad(value: string, width: number, align: "left" | "right"): string {
  if (value.length >= width) return value;
  return align === "left" ? value.padEnd(width) : value.padStart(width);
}

/**
 * A span over one table cell (its full extent, padding included): the trimmed
 * value is transformed and padded back to the cell's width, on the side the
 * original was padded (leading blanks = right-aligned).
 */
export function cellSpan(line: string, lineStart: number, cellStart: number, cellEnd: number, fn: ValueFn, align?: "left" | "right"): Span {
  const cell = line.slice(cellStart, cellEnd);
  const right = align ? align === "right" : cell.length > cell.trimStart().length;
  return {
    start: lineStart + cellStart,
    end: lineStart + cellEnd,
    replace: (_t, st) => {
      const v = fn(cell.trim(), st);
      return right ? v.padStart(cell.length) : v.padEnd(cell.length);
    },
  };
}

export interface TableColumns {
  /** Header names (exact, case-sensitive) whose cells are masked, with the value function. */
  columns: Record<string, ValueFn | string>;
}

interface Cell {
  name: string;
  start: number;
  end: number;
}

/** Lines of `text` with their offsets. */
function lines(text: string): { line: string; at: number }[] {
  const out: { line: string; at: number }[] = [];
  let at = 0;
  for (const line of text.split("\n")) {
    out.push({ line, at });
    at += line.length + 1;
  }
  return out;
}

/** Whitespace-separated tokens of a line with their positions. */
function tokens(line: string): Cell[] {
  return [...line.matchAll(/\S+/g)].map((m) => ({ name: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
}

/**
 * Which side each column of a whitespace-aligned table is padded on: left when
 * every row's token starts where the header's does and some row's does not
 * also end where the header ends; otherwise right (squeue's usual `%.Ni`).
 */
function columnAlign(header: Cell[], rows: Cell[][]): ("left" | "right")[] {
  return header.map((h, i) => {
    const col = rows.map((r) => r[i]).filter((c): c is Cell => c !== undefined);
    const starts = col.every((c) => c.start === h.start);
    const ends = col.every((c) => c.end === h.end);
    return starts && !ends ? "left" : "right";
  });
}

/** Cell extents of a whitespace-aligned row: a left cell runs to the next token, a right one from just after the previous. */
function alignedCells(header: Cell[], toks: Cell[], align: ("left" | "right")[], lineLength: number): Cell[] {
  return toks.map((t, i) => {
    const name = (header[i] as Cell).name;
    const prev = toks[i - 1];
    const next = toks[i + 1];
    if (align[i] === "left") return { name, start: t.start, end: next ? next.start - 1 : lineLength };
    return { name, start: prev ? prev.end + 1 : 0, end: t.end };
  });
}

/** Columns of a sacct-style table, from the dash line under the header. */
function dashCells(header: string, dashes: string): Cell[] {
  return [...dashes.matchAll(/-+/g)].map((m) => {
    const start = m.index ?? 0;
    const end = start + m[0].length;
    return { name: header.slice(start, end).trim(), start, end };
  });
}

/** Table mask: finds header lines naming any of `columns`, masks those columns in the rows below. */
export function tableMask(id: string, reason: string, t: TableColumns): Mask {
  const names = new Set(Object.keys(t.columns));
  const fnFor = (name: string): ValueFn => {
    const v = t.columns[name] as ValueFn | string;
    return typeof v === "string" ? fixed(v) : v;
  };
  return {
    id,
    reason,
    find(text) {
      const ls = lines(text);
      const spans: Span[] = [];
      for (let i = 0; i < ls.length; i++) {
        const { line } = ls[i] as { line: string; at: number };
        const delimited = line.includes("|");
        const head = delimited ? line.split("|").map((h) => h.trim()) : tokens(line).map((c) => c.name);
        if (head.length < 2 || !head.some((h) => names.has(h))) continue;
        // a header starts its block (after a blank line or a title line of another shape): not a row of a grid
        const prev = i > 0 ? (ls[i - 1] as { line: string }).line : "";
        if (prev.trim() !== "" && tokens(prev).length === tokens(line).length && !delimited) continue;
        const next = ls[i + 1]?.line ?? "";
        const dashed = /^[- ]+$/.test(next) && next.includes("-");
        const headCells = dashed ? dashCells(line, next) : tokens(line);
        let j = dashed ? i + 2 : i + 1;
        const rows: { line: string; at: number }[] = [];
        for (; j < ls.length && (ls[j] as { line: string }).line.trim() !== ""; j++) rows.push(ls[j] as { line: string; at: number });
        if (delimited) {
          for (const row of rows) spans.push(...delimitedRow(row.line, row.at, head, names, fnFor));
          i = j - 1;
          continue;
        }
        const rowToks = rows.map((r) => tokens(r.line));
        const fits = rowToks.filter((t) => t.length === headCells.length);
        const align = columnAlign(headCells, fits);
        rows.forEach((row, k) => {
          const toks = rowToks[k] as Cell[];
          if (!dashed && toks.length !== headCells.length) return;
          const cells = dashed ? headCells : alignedCells(headCells, toks, align, row.line.length);
          cells.forEach((c, n) => {
            if (!names.has(c.name) || c.start >= row.line.length) return;
            const end = Math.min(c.end, row.line.length);
            if (row.line.slice(c.start, end).trim() === "") return;
            spans.push(cellSpan(row.line, row.at, c.start, end, fnFor(c.name), dashed ? undefined : align[n]));
          });
        });
        i = j - 1;
      }
      return spans;
    },
  };
}

function delimitedRow(line: string, at: number, head: string[], names: Set<string>, fnFor: (n: string) => ValueFn): Span[] {
  const out: Span[] = [];
  let pos = 0;
  line.split("|").forEach((cell, k) => {
    const name = head[k] ?? "";
    // a delimited cell has no padding to keep: replace its trimmed value, leave the blanks around it
    const lead = cell.length - cell.trimStart().length;
    const value = cell.trim();
    if (names.has(name) && value !== "") {
      const fn = fnFor(name);
      out.push({ start: at + pos + lead, end: at + pos + lead + value.length, replace: (v, st) => fn(v, st) });
    }
    pos += cell.length + 1;
  });
  return out;
}

/** Apply masks in order: a span overlapping one already claimed is dropped; then replace left to right. */
export function applyMasks(
  text: string,
  masks: Mask[],
  ctx: SideContext,
  st: MapState = { jobIds: new Map() },
): { text: string; hits: Map<string, number> } {
  const claimed: (Span & { mask: string })[] = [];
  for (const m of masks) {
    for (const s of m.find(text, ctx, st)) {
      if (claimed.some((c) => s.start < c.end && c.start < s.end)) continue;
      claimed.push({ ...s, mask: m.id });
    }
  }
  claimed.sort((a, b) => a.start - b.start);
  const hits = new Map<string, number>();
  let out = "";
  let at = 0;
  for (const s of claimed) {
    out += text.slice(at, s.start) + s.replace(text.slice(s.start, s.end), st);
    at = s.end;
    hits.set(s.mask, (hits.get(s.mask) ?? 0) + 1);
  }
  return { text: out + text.slice(at), hits };
}
