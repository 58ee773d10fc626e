/**
 * @module compat/licenses
 * Licenses as Slurm reads them: the site's `Licenses=` (slurm.conf: `name[:count]`
 * comma list, count 1 when absent; `*` is accepted for `:` as older slurm.conf files
 * write it) and a job's `-L/--licenses` (`name[@server][:count]`, `,` = all of them,
 * `|` = any one of them; the two are not mixed). An unknown name, a count of 0 or a
 * count above the configured total is Slurm's "Invalid license specification".
 * Pure: callers pass the configured totals.
 */
import { err, ok, type Result } from "../lib/result.ts";

export const INVALID_LICENSE = "Invalid license specification";

export interface LicenseItem {
  name: string;
  count: number;
}

/** What a job asked for: every item (`a,b`), or any one of them (`a|b`). */
export interface LicenseRequest {
  items: LicenseItem[];
  anyOf: boolean;
}

const ITEM = /^([A-Za-z0-9_.\-]+(?:@[A-Za-z0-9_.\-]+)?)(?:[:*]([0-9]+))?$/;

function parseItem(text: string): LicenseItem | undefined {
  const m = ITEM.exec(text.trim());
  if (m === null) return undefined;
  const count = m[2] === undefined ? 1 : Number(m[2]);
  return { name: m[1] as string, count };
}

/** `Licenses=` of slurm.conf: name → total, in the order written (a repeated name adds up). */
export function parseLicenseConf(text: string): Result<Map<string, number>> {
  const totals = new Map<string, number>();
  for (const part of text.split(",").filter((p) => p.trim() !== "")) {
    const item = parseItem(part);
    if (item === undefined) return err("BadConfig", `bad Licenses entry: ${part}`);
    totals.set(item.name, (totals.get(item.name) ?? 0) + item.count);
  }
  return ok(totals);
}

/** A job's request, checked against the configured totals; the error text is Slurm's. */
export function parseLicenseRequest(text: string, totals: ReadonlyMap<string, number>): Result<LicenseRequest> {
  const anyOf = text.includes("|");
  if (anyOf && text.includes(",")) return err("BadLicense", INVALID_LICENSE);
  const items: LicenseItem[] = [];
  for (const part of text.split(anyOf ? "|" : ",")) {
    const item = parseItem(part);
    if (item === undefined || item.count === 0) return err("BadLicense", INVALID_LICENSE);
    const total = totals.get(item.name);
    if (total === undefined || item.count > total) return err("BadLicense", INVALID_LICENSE);
    const same = items.find((i) => i.name === item.name);
    if (same !== undefined && !anyOf) same.count += item.count;
    else items.push(item);
  }
  if (!anyOf && items.some((i) => i.count > (totals.get(i.name) ?? 0))) return err("BadLicense", INVALID_LICENSE);
  return ok({ items, anyOf });
}

/** `name:count` joined as Slurm shows a job's licenses (scontrol Licenses=, squeue %W). */
export const licenseText = (req: LicenseRequest): string => req.items.map((i) => `${i.name}:${i.count}`).join(req.anyOf ? "|" : ",");

export const licenseItemsText = (items: readonly LicenseItem[]): string => items.map((i) => `${i.name}:${i.count}`).join(",");

/** Items back from their text (a job's allocated licenses as recorded); "" = none. */
export function licenseItemsOf(text: string): LicenseItem[] {
  if (text === "") return [];
  return text.split(",").map((p) => parseItem(p)).filter((i): i is LicenseItem => i !== undefined);
}

/** `scontrol show licenses` (Slurm 22.05+ layout; -o puts each record on one line). */
export function licensesShowText(rows: readonly { name: string; total: number; used: number; reserved: number }[], oneLiner: boolean, only?: string): string {
  if (rows.length === 0) return "No licenses configured in Slurm.\n";
  const sep = oneLiner ? " " : "\n    ";
  return [...rows]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((r) => only === undefined || r.name === only)
    .map((r) => `LicenseName=${r.name}${sep}Total=${r.total} Used=${r.used} Free=${Math.max(0, r.total - r.used - r.reserved)} Reserved=${r.reserved} Remote=no\n`)
    .join("");
}
