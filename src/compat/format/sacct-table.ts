/**
 * @module format/sacct-table
 * Turning a --format list into columns and columns into sacct's text: the
 * header, the dash line, fixed-width cells (one trailing space each, overlong
 * text cut with "+"), -p/-P parsable lines, and the --helpformat grid.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { blanks } from "./format-spec.ts";
import { findField, type Getter, isBlankField, SACCT_FIELDS, type SacctField } from "./sacct-fields.ts";
import type { SacctRow } from "./sacct-row.ts";

/** One printed column: the field and its signed width (negative = left). */
export interface Column {
  field: SacctField;
  len: number;
}

const defaultLen = (f: SacctField): number => (f.left ? -f.width : f.width);

/** `name%N`: Slurm's atoi of the text after "%" (0 when not a number). */
function widthOverride(text: string): number {
  const m = /^\s*([+-]?\d+)/.exec(text);
  return m ? Number(m[1]) : 0;
}

/**
 * Parse a comma-separated field list. Leading blanks are skipped, empty items
 * ignored, `%N` sets the width (a negative N left-justifies), any prefix of
 * "ALL" selects every field. Unknown → `Invalid field requested: "x"`.
 */
export function parseFieldList(list: string): Result<Column[]> {
  const columns: Column[] = [];
  for (const raw of list.split(",")) {
    const item = raw.replace(/^\s+/, "");
    if (item === "") continue;
    const pct = item.indexOf("%");
    const name = pct < 0 ? item : item.slice(0, pct);
    const len = pct < 0 ? undefined : widthOverride(item.slice(pct + 1));
    if (name.length <= 3 && "all".startsWith(name.toLowerCase())) {
      for (const field of SACCT_FIELDS) columns.push({ field, len: len ?? defaultLen(field) });
      continue;
    }
    const field = findField(name);
    if (field === undefined) return err("InvalidField", `Invalid field requested: "${name}"`, 1);
    columns.push({ field, len: len ?? defaultLen(field) });
  }
  return ok(columns);
}

/** padEnd (negative len) / padStart to |len|, without the builtins' per-call cost. */
function pad(text: string, len: number): string {
  const gap = Math.abs(len) - text.length;
  if (gap <= 0) return text;
  return len < 0 ? text + blanks(gap) : blanks(gap) + text;
}

/** A fixed-width cell: text is cut with "+", times and headers plainly, numbers never. */
function cell(text: string, col: Column, isHeader: boolean): string {
  const width = Math.abs(col.len);
  if (width === 0 || text.length <= width) return pad(text, col.len);
  if (col.field.kind === "n" && !isHeader) return text;
  if (col.field.kind === "s" && !isHeader) return pad(`${text.slice(0, width - 1)}+`, col.len);
  return pad(text.slice(0, width), col.len);
}

export interface TableStyle {
  /** 0: fixed width; 1: -p (delimiter after every field); 2: -P (between fields). */
  parsable: 0 | 1 | 2;
  delimiter: string;
  header: boolean;
}

function line(texts: string[], columns: Column[], style: TableStyle, isHeader: boolean): string {
  if (style.parsable === 0) return `${texts.map((t, i) => `${cell(t, columns[i] as Column, isHeader)} `).join("")}\n`;
  const body = texts.join(style.delimiter);
  return `${body}${style.parsable === 1 ? style.delimiter : ""}\n`;
}

/** Distinct texts remembered per column (ids and times are all distinct; names, states repeat). */
const CELL_CACHE_LIMIT = 512;

/** A run of always-blank columns (printed once) or one column with its remembered cells. */
type Segment = string | { column: Column; get: Getter; cache: Map<string, string> | undefined };

/** Columns of a fixed-width line: neighbouring blank fields are merged into one constant text. */
function segmentsOf(columns: Column[]): Segment[] {
  const segments: Segment[] = [];
  for (const column of columns) {
    const last = segments[segments.length - 1];
    if (!isBlankField(column.field)) segments.push({ column, get: column.field.get, cache: new Map() });
    else if (typeof last === "string") segments[segments.length - 1] = `${last}${cell("", column, false)} `;
    else segments.push(`${cell("", column, false)} `);
  }
  return segments.map((s) => (typeof s === "string" ? [s].join("") : s));
}

/** Fixed-width rows: each column's printed cell (with its space) by text, while it repeats. */
function fixedRows(columns: Column[], rows: SacctRow[]): string[] {
  const segments = segmentsOf(columns);
  const lines: string[] = new Array<string>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as SacctRow;
    let text = "";
    for (const seg of segments) {
      if (typeof seg === "string") {
        text += seg;
        continue;
      }
      const value = seg.get(row);
      let printed = seg.cache?.get(value);
      if (printed === undefined) {
        const padded = cell(value, seg.column, false);
        if (seg.cache === undefined) printed = `${padded} `;
        else {
          // Remembered flat (a join, not a rope), so the lines reusing it copy it directly.
          printed = [padded, " "].join("");
          if (seg.cache.size < CELL_CACHE_LIMIT) seg.cache.set(value, printed);
          else seg.cache = undefined;
        }
      }
      text += printed;
    }
    lines[r] = `${text}\n`;
  }
  return lines;
}

/** -p/-P rows: values joined by the delimiter (-p adds one at the end). */
function parsableRows(columns: Column[], rows: SacctRow[], style: TableStyle): string[] {
  const getters = columns.map((c) => c.field.get);
  const end = `${style.parsable === 1 ? style.delimiter : ""}\n`;
  const lines: string[] = new Array<string>(rows.length);
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r] as SacctRow;
    let text = "";
    for (let c = 0; c < getters.length; c++) {
      if (c > 0) text += style.delimiter;
      text += (getters[c] as Getter)(row) ?? "";
    }
    lines[r] = text + end;
  }
  return lines;
}

/** The whole sacct table: header (+ dash line when fixed width) and rows. */
export function renderTable(columns: Column[], rows: SacctRow[], style: TableStyle): string {
  let out = "";
  if (style.header) {
    out += line(columns.map((c) => c.field.name), columns, style, true);
    if (style.parsable === 0) out += `${columns.map((c) => `${"-".repeat(Math.abs(c.len))} `).join("")}\n`;
  }
  const lines = style.parsable === 0 ? fixedRows(columns, rows) : parsableRows(columns, rows, style);
  return out + lines.join("");
}

/** --helpformat: names at 19 characters, four per line, one space between. */
export function helpFormat(names: readonly string[]): string {
  let out = "";
  names.forEach((name, i) => {
    if (i & 3) out += " ";
    else if (i) out += "\n";
    out += name.padEnd(19);
  });
  return `${out}\n`;
}
