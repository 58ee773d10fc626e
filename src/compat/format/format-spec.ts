/**
 * @module format/format-spec
 * The `-o "%[.][width]letter[suffix]"` and `-O "name[:[.]width[suffix]],..."`
 * syntax shared by squeue and sinfo, plus the one cell printer both commands
 * use (Slurm's _print_str rules for padding and truncation). Pure and
 * table-agnostic: callers pass a resolver from letter/name to a field key.
 */

/** One parsed field of a format: which column, how wide, which way, what follows. */
export interface FieldItem {
  kind: "field";
  key: string;
  /** 0 = natural width. */
  width: number;
  right: boolean;
  /** Literal text printed after the cell (the default formats use " "). */
  suffix: string;
  /** Width taken from the data (sinfo's partition/node columns), not the spec. */
  computed: boolean;
}

/** Literal text: the prefix before the first `%`, or an unknown `%x` kept as text. */
export interface LiteralItem {
  kind: "literal";
  text: string;
}

export type FormatItem = FieldItem | LiteralItem;

export interface ParsedFormat {
  items: FormatItem[];
  /** Letters or names that were not recognised (the caller prints the error). */
  invalid: string[];
}

/** Maps a letter ("i") or a name ("JobID") to a field key, undefined when unknown. */
export type FieldResolver = (token: string) => string | undefined;

/** Options of the `-o` parser. */
export interface LetterFormatOptions {
  /** Accept `%#X` (and `%.#X`) = width computed from the data; built-in formats only. */
  allowComputed?: boolean;
  /** What `%all` stands for (every letter with its separators); unknown letters in it are skipped. */
  allFormat?: string;
}

interface LetterToken {
  right: boolean;
  width: number;
  computed: boolean;
  letter: string;
  suffix: string;
}

/** `[.][digits|#]letter[suffix]` (the text after one `%`). */
function parseLetterToken(token: string, allowComputed: boolean): LetterToken {
  let i = 0;
  const right = token[i] === ".";
  if (right) i++;
  let computed = false;
  if (allowComputed && token[i] === "#") {
    computed = true;
    i++;
  }
  let width = 0;
  while (i < token.length && token.charCodeAt(i) >= 48 && token.charCodeAt(i) <= 57) {
    width = width * 10 + (token.charCodeAt(i) - 48);
    i++;
  }
  const letter = token[i] ?? "";
  return { right, width, computed, letter, suffix: token.slice(i + 1) };
}

/**
 * Parse an `-o` format. Text before the first `%` is a prefix printed on every
 * line; the rest is split at `%` (runs of `%` count as one separator, as
 * strtok does). An unknown letter is kept as literal `%<token>` text.
 */
export function parseLetterFormat(
  format: string,
  resolve: FieldResolver,
  options: LetterFormatOptions = {},
): ParsedFormat {
  const items: FormatItem[] = [];
  const invalid: string[] = [];
  const allFormat = options.allFormat !== undefined && format.toLowerCase() === "%all";
  const text = allFormat ? (options.allFormat ?? "") : format;
  const firstPercent = text.indexOf("%");
  if (firstPercent !== 0) {
    items.push({ kind: "literal", text: firstPercent < 0 ? text : text.slice(0, firstPercent) });
  }
  if (firstPercent < 0) return { items, invalid };
  const tokens = text.slice(firstPercent).split("%").filter((t) => t !== "");
  for (const token of tokens) {
    const parsed = parseLetterToken(token, options.allowComputed === true);
    const key = parsed.letter === "" ? undefined : resolve(parsed.letter);
    if (key === undefined) {
      if (!allFormat) {
        items.push({ kind: "literal", text: `%${token}` });
        invalid.push(parsed.letter);
      }
      continue;
    }
    items.push({ kind: "field", key, ...widthOf(parsed), suffix: parsed.suffix });
  }
  return { items, invalid };
}

const widthOf = (t: LetterToken): { width: number; right: boolean; computed: boolean } => ({
  width: t.width,
  right: t.right,
  computed: t.computed,
});

/** C strtol on the digits at the start of `text`: value and the rest. */
function leadingInt(text: string): [number, string] {
  const m = /^\s*([+-]?\d+)/.exec(text);
  if (m === null || m[1] === undefined) return [0, text];
  return [Number.parseInt(m[1], 10), text.slice(m[0].length)];
}

/**
 * Parse an `-O` format: comma-separated `name[:[.]width[suffix]]`. Without
 * `:` a field is 20 wide and left-justified with no suffix. Unknown names are
 * reported and print nothing (Slurm adds an "invalid" field with no suffix).
 */
export function parseNameFormat(format: string, resolve: FieldResolver): ParsedFormat {
  const items: FormatItem[] = [];
  const invalid: string[] = [];
  for (const token of format.split(",").filter((t) => t !== "")) {
    const colon = token.indexOf(":");
    const name = colon < 0 ? token : token.slice(0, colon);
    let width = 20;
    let right = false;
    let suffix = "";
    if (colon >= 0) {
      let rest = token.slice(colon + 1);
      right = rest.startsWith(".");
      if (right) rest = rest.slice(1);
      [width, suffix] = leadingInt(rest);
    }
    const key = resolve(name);
    if (key === undefined) {
      invalid.push(name);
      continue;
    }
    items.push({ kind: "field", key, width, right, suffix, computed: false });
  }
  return { items, invalid };
}

/**
 * One cell, as Slurm's _print_str: width 0 prints the text as is; a
 * left-justified cell is always cut to the width (printf precision) and
 * padded; a right-justified cell is padded on the left and cut to the width
 * only when `cut` (node lists and durations pass false).
 */
export function padCell(text: string, width: number, right: boolean, cut = true): string {
  if (width <= 0) return text;
  const gap = width - text.length;
  if (gap === 0) return text;
  if (gap < 0) return !right || cut ? text.slice(0, width) : text;
  return right ? blanks(gap) + text : text + blanks(gap);
}

/** Runs of spaces for padding, built once per length (faster than padStart/padEnd). */
const BLANKS: string[] = [""];
export function blanks(n: number): string {
  if (n > 256) return " ".repeat(n);
  while (BLANKS.length <= n) BLANKS.push(`${BLANKS[BLANKS.length - 1] ?? ""} `);
  return BLANKS[n] ?? " ".repeat(n);
}

/** How one table column prints: its header and its value for a row. */
export interface ColumnDef<Row> {
  header: string;
  /** The cell text; `width` is the printed width (sinfo marks cut names with it). */
  value: (row: Row, width: number) => string | undefined;
  /** False for node lists and durations (not cut when right-justified). */
  cut?: boolean | ((row: Row) => boolean);
  /** False when the header itself is printed without cutting. */
  cutHeader?: boolean;
}

/** Printed form of a value: unset strings print "(null)" as glibc printf does. */
export const cellText = (value: string | undefined): string => value ?? "(null)";

function cutOf<Row>(column: ColumnDef<Row>, row: Row): boolean {
  if (typeof column.cut === "function") return column.cut(row);
  return column.cut !== false;
}

/**
 * Render one line (header when `row` is undefined) through the parsed items.
 * `widthOverride` supplies the data-driven widths of `computed` fields.
 */
export function renderLine<Row>(
  items: readonly FormatItem[],
  columns: (key: string) => ColumnDef<Row>,
  row: Row | undefined,
  widthOverride: (key: string, width: number) => number = (_k, w) => w,
): string {
  let line = "";
  for (const item of items) {
    if (item.kind === "literal") {
      line += item.text;
      continue;
    }
    const column = columns(item.key);
    const width = item.computed ? widthOverride(item.key, item.width) : item.width;
    const text = row === undefined ? column.header : cellText(column.value(row, width));
    const cut = row === undefined ? column.cutHeader !== false : cutOf(column, row);
    line += padCell(text, width, item.right, cut) + item.suffix;
  }
  return `${line}\n`;
}

/** Distinct texts remembered per column before its cache gives up (ids, times are all distinct). */
const CELL_CACHE_LIMIT = 512;

/** One field of a compiled line, with the padded texts it has already printed. */
interface Cell<Row> {
  value: ColumnDef<Row>["value"];
  width: number;
  right: boolean;
  /** The row-dependent cut rule, or undefined when `cut` decides. */
  cutOf: ((row: Row) => boolean) | undefined;
  cut: boolean;
  suffix: string;
  /** Printed cell (with suffix) by text, for cut = true / false; undefined once given up. */
  cached: [Map<string, string> | undefined, Map<string, string> | undefined];
}

/** The printed cell (with suffix) for `text`, remembered while the column repeats itself. */
function printCell<Row>(cell: Cell<Row>, text: string, cut: boolean): string {
  const slot = cut ? 0 : 1;
  const cache = cell.cached[slot];
  if (cache === undefined) return padCell(text, cell.width, cell.right, cut) + cell.suffix;
  let printed = cache.get(text);
  if (printed === undefined) {
    // Stored flat (a join, not a rope), so every line that reuses it copies it directly.
    printed = [padCell(text, cell.width, cell.right, cut), cell.suffix].join("");
    if (cache.size < CELL_CACHE_LIMIT) cache.set(text, printed);
    else cell.cached[slot] = undefined;
  }
  return printed;
}

/**
 * renderLine for many rows of one format: the columns, widths and literal
 * runs are resolved once, and the returned function prints one row exactly
 * as `renderLine(items, columns, row, widthOverride)` would. Repeated cell
 * texts (partition, user, state...) reuse their padded form.
 */
export function lineRenderer<Row>(
  items: readonly FormatItem[],
  columns: (key: string) => ColumnDef<Row>,
  widthOverride: (key: string, width: number) => number = (_k, w) => w,
): (row: Row) => string {
  const segments: (string | Cell<Row>)[] = items.map((item) => {
    if (item.kind === "literal") return item.text;
    const column = columns(item.key);
    const width = item.computed ? widthOverride(item.key, item.width) : item.width;
    const cutOf = typeof column.cut === "function" ? column.cut : undefined;
    const cut = column.cut !== false;
    // Natural-width cells print their text as is: nothing to remember.
    const cached: Cell<Row>["cached"] = width > 0 ? [new Map(), new Map()] : [undefined, undefined];
    return { value: column.value, width, right: item.right, cutOf, cut, suffix: item.suffix, cached };
  });
  const n = segments.length;
  return (row) => {
    let line = "";
    for (let i = 0; i < n; i++) {
      const seg = segments[i] as string | Cell<Row>;
      if (typeof seg === "string") {
        line += seg;
        continue;
      }
      const text = seg.value(row, seg.width) ?? "(null)";
      line += printCell(seg, text, seg.cutOf === undefined ? seg.cut : seg.cutOf(row));
    }
    return `${line}\n`;
  };
}
