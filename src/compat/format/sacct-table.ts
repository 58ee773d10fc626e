/**
 * @module format/sacct-table
 * Turning a --format list into columns and columns into sacct's text: the
 * header, the dash line, fixed-width cells (one trailing space each, overlong
 * text cut with "+"), -p/-P parsable lines, and the --helpformat grid.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { findField, SACCT_FIELDS, type SacctField } from "./sacct-fields.ts";
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

function pad(text: string, len: number): string {
  const width = Math.abs(len);
  return len < 0 ? text.padEnd(width) : text.padStart(width);
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

/** The whole sacct table: header (+ dash line when fixed width) and rows. */
export function renderTable(columns: Column[], rows: SacctRow[], style: TableStyle): string {
  let out = "";
  if (style.header) {
    out += line(columns.map((c) => c.field.name), columns, style, true);
    if (style.parsable === 0) out += `${columns.map((c) => `${"-".repeat(Math.abs(c.len))} `).join("")}\n`;
  }
  for (const row of rows) out += line(columns.map((c) => c.field.get(row)), columns, style, false);
  return out;
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
