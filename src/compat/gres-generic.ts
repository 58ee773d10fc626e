/**
 * @module compat/gres-generic
 * Generic resources other than GPUs (nvme, bandwidth, shard, mps, ...) as Slurm
 * writes them: `name[:type][:no_consume][:count]` items in a comma list, counts with the
 * K/M/G/T/P suffixes (powers of 1024, as gres.conf's Count=). A job's share may note the
 * GPU its shards sit on ("shard:3(IDX:1)"). Pure text <-> data, plus the TRES texts made
 * from them; the GPU items of a node's list are split off untouched for the GPU path.
 */
import { err, ok, type Result } from "../lib/result.ts";

/** One counted GRES: `nvme:2`, `bandwidth:lustre:4G` (type "" = untyped). */
export interface GresItem {
  name: string;
  type: string;
  count: number;
  /** Node Gres= `no_consume`: any number of jobs may use it at once; nothing is held. */
  noConsume?: boolean;
  /** The GPU index a sharing GRES (shard, mps) of a job's share sits on: "shard:3(IDX:1)". */
  gpu?: number;
}

const SUFFIX: Record<string, number> = { K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4, P: 1024 ** 5 };
const NAME_RE = /^[A-Za-z0-9_.-]+$/;
/** Bound on the number of items in one list (malformed text must not allocate without limit). */
const GRES_ITEMS_MAX = 64;

/** "4G" -> 4294967296, "2" -> 2; undefined when malformed. */
export function parseGresCount(text: string): number | undefined {
  const m = /^([0-9]+)([KMGTP]?)$/i.exec(text.trim());
  if (m === null) return undefined;
  const value = Number(m[1]) * (SUFFIX[(m[2] ?? "").toUpperCase()] ?? 1);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** 4294967296 -> "4G", 3 -> "3": the largest suffix that divides the count exactly, as Slurm prints counts. */
export function formatGresCount(count: number): string {
  for (const [suffix, mult] of Object.entries(SUFFIX).reverse()) if (count >= mult && count % mult === 0) return `${count / mult}${suffix}`;
  return String(count);
}

/**
 * One item "name[:type][:no_consume][:count]" (count defaults to 1; a trailing "(S:0-1)"
 * socket note is ignored; `no_consume` as slurm.conf's Gres= writes it).
 */
export function parseGresItem(text: string): GresItem | undefined {
  const idx = /\(IDX:(\d+)\)$/.exec(text.trim())?.[1];
  const gpu = idx !== undefined ? { gpu: Number(idx) } : {};
  const all = text.trim().replace(/\(.*\)$/, "").split(":");
  const parts = all.filter((p, i) => i === 0 || p.toLowerCase() !== "no_consume");
  const noConsume = parts.length !== all.length ? { noConsume: true } : {};
  const name = parts[0] ?? "";
  if (!NAME_RE.test(name) || parts.length > 3) return undefined;
  const last = parts[parts.length - 1] ?? "";
  const count = parts.length > 1 ? parseGresCount(last) : 1;
  if (parts.length === 3 && count === undefined) return undefined;
  const type = parts.length === 3 || (parts.length === 2 && count === undefined) ? (parts[1] ?? "") : "";
  if (type !== "" && !NAME_RE.test(type)) return undefined;
  return { name, type, count: count ?? 1, ...noConsume, ...gpu };
}

export interface SplitGres {
  /** The GPU items as written ("gpu:mi300x:8"): the GPU path reads this text. */
  gpuText: string;
  /** Every other item, in the order written. */
  generic: GresItem[];
}

/**
 * A node's `Gres=` list split into its GPU text and generic items. Every name must be
 * listed in `gresTypes` (slurm.conf GresTypes=; "gpu" is always accepted because Spur
 * derives it from the GPUs), else the error names the item as a config error.
 */
export function splitNodeGres(text: string, gresTypes: readonly string[]): Result<SplitGres> {
  const out: SplitGres = { gpuText: "", generic: [] };
  if (text.trim() === "" || text.toLowerCase() === "(null)") return ok(out);
  const gpus: string[] = [];
  const items = text.split(",");
  if (items.length > GRES_ITEMS_MAX) return err("BadConfig", `Gres=${text}: more than ${GRES_ITEMS_MAX} items`);
  for (const raw of items) {
    const parsed = parseGresItem(raw);
    if (parsed === undefined) return err("BadConfig", `Invalid GRES data for ${raw.trim()}`);
    const item = { ...parsed, name: parsed.name.toLowerCase() };
    if (item.name === "gpu") {
      gpus.push(raw.trim());
      continue;
    }
    if (!gresTypes.includes(item.name)) return err("BadConfig", `Invalid GRES data for ${raw.trim()}: ${item.name} not in GresTypes`);
    out.generic.push(item);
  }
  out.gpuText = gpus.join(",");
  return ok(out);
}

/** Items -> "nvme:2,bandwidth:lustre:4G" (counts with suffixes when `withSuffix`, else plain). */
export function formatGresItems(items: readonly GresItem[], withSuffix = true): string {
  return items
    .map((g) => `${g.name}${g.type ? `:${g.type}` : ""}${g.noConsume ? ":no_consume" : ""}:${withSuffix ? formatGresCount(g.count) : String(g.count)}${g.gpu !== undefined ? `(IDX:${g.gpu})` : ""}`)
    .join(",");
}

/** "nvme:2,bandwidth:lustre:4G" -> items; malformed items are skipped (the text was written by Spur). */
export function parseGresItems(text: string): GresItem[] {
  if (text === "") return [];
  return text.split(",").slice(0, GRES_ITEMS_MAX).map(parseGresItem).filter((g): g is GresItem => g !== undefined);
}

/** GresTypes= as a list of lower-case names ("gpu,nvme" -> [gpu, nvme]); "" -> []. */
export function parseGresTypes(text: string | undefined): string[] {
  return (text ?? "").split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "" && s !== "(null)");
}

/** Total count of `name` in items (all types). */
export const gresTotalOf = (items: readonly GresItem[], name: string): number =>
  items.reduce((sum, g) => sum + (g.name === name ? g.count : 0), 0);

/**
 * The generic GRES AccountingStorageTRES tracks ("gres/nvme", "gres/bandwidth:lustre"),
 * as names without the "gres/" prefix; gpu is left out (Spur always tracks it).
 */
export const trackedGresNames = (accountingTres: readonly string[] | undefined): string[] =>
  (accountingTres ?? []).filter((t) => t.startsWith("gres/") && !/^gres\/gpu(:|$)/.test(t)).map((t) => t.slice(5));

/**
 * ",gres/nvme=2,gres/bandwidth:lustre=4294967296": each tracked name (or name:type) with
 * the items' count, in the order AccountingStorageTRES lists them; counts without
 * suffixes, zero counts left out (TRES strings print plain numbers). `times` scales
 * per-node items to a job's node count.
 */
export function gresTresText(items: readonly GresItem[], tracked: readonly string[], times = 1): string {
  const out: string[] = [];
  for (const t of tracked) {
    const [name, type] = t.split(":");
    const count = items.reduce((s, g) => s + (g.name === name && (type === undefined || g.type === type) ? g.count : 0), 0);
    if (count > 0) out.push(`,gres/${t}=${count * times}`);
  }
  return out.join("");
}

/** Items as TRES-per-node text: "gres/nvme:1,gres/bandwidth:lustre:1G" ("" when none; an item given without a count shows none). */
export const gresPerNodeText = (items: readonly (GresItem & { countOmitted?: boolean })[]): string =>
  items.map((g) => `gres/${g.name}${g.type ? `:${g.type}` : ""}${g.countOmitted === true ? "" : `:${formatGresCount(g.count)}`}`).join(",");

/** The counted GRES a TRES string names ("...,gres/gpu=2,gres/nvme=1" → ["nvme"]): what was tracked for that job. */
export const trackedInTres = (tres: string): string[] =>
  tres.split(",").map((t) => /^gres\/([^=]+)=/.exec(t)?.[1]).filter((n): n is string => n !== undefined && !/^gpu(:|$)/.test(n));

/** The GPUs a share's shards or MPS sit on ("shard:3(IDX:1)" → [1]): the devices the job uses without holding them whole. */
export const sharingGpusOf = (gres: string | undefined): number[] =>
  [...new Set(parseGresItems(gres ?? "").flatMap((g) => (g.gpu === undefined ? [] : [g.gpu])))].sort((a, b) => a - b);
