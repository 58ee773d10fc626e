/**
 * @module compat/format/sinfo-listing
 * sinfo's listing from the controller's nodes and partitions, pure: the format it parses, the
 * records it groups, their widths and lines. The sinfo command (cli/sinfo-run.ts) and the
 * controller (ListNodesRequest.sinfo_view, ctld/service.ts) run this same code, so a listing the
 * controller renders is the one sinfo would print from the nodes it would have been sent
 * (tests/unit/squeue-sinfo/sinfo-view.test.ts compares them).
 */
import { type FormatItem, parseLetterFormat, parseNameFormat, type ParsedFormat, renderLine } from "./format-spec.ts";
import { nodeNames, SINFO_ALL_FORMAT, sinfoColumn, sinfoLetter, sinfoMatch, sinfoName } from "./sinfo-fields.ts";
import { parseSinfoArgs, type SinfoParams } from "./sinfo-options.ts";
import { buildRecords, type MatchKey, type Node, type Partition, type SinfoRecord } from "./sinfo-records.ts";
import { sortRecords } from "./sinfo-sort.ts";
import { stateSelects } from "./sinfo-states.ts";
import { SLURM_VERSION_LINE } from "./openapi-json.ts";
import { expandHostlist } from "../hostlist.ts";
import { isStandardTimeFormat, isStandardTimeValue } from "../format-time.ts";

/** What a listing reads of ListNodes' answer. */
export interface SinfoInput {
  nodes: readonly Node[];
  partitions: readonly Partition[];
}

/** Narrowest data-sized partition and node columns (Slurm's MIN_*_FIELD_SIZE). */
const FIELD_SIZE_MIN = 9;

export function parseFormat(p: SinfoParams): { parsed: ParsedFormat; stderr: string } {
  let parsed: ParsedFormat;
  if (p.longForm) {
    const items: FormatItem[] = [];
    const invalid: string[] = [];
    for (const token of p.format.split(",").filter((t) => t !== "")) {
      const part =
        token.toLowerCase() === "all"
          ? parseLetterFormat("%all", sinfoLetter, { allFormat: SINFO_ALL_FORMAT })
          : parseNameFormat(token, sinfoName);
      items.push(...part.items);
      invalid.push(...part.invalid);
    }
    parsed = { items, invalid };
  } else {
    parsed = parseLetterFormat(p.format, sinfoLetter, { allowComputed: p.builtIn, allFormat: SINFO_ALL_FORMAT });
  }
  // Slurm's own wording: -O fields are reported as a "job" format, with sinfo's error prefix; -o letters without one
  const say = p.longForm ? (x: string) => `sinfo: error: Invalid job format specification: ${x}\n` : (x: string) => `Invalid node format specification: ${x}\n`;
  return { parsed, stderr: parsed.invalid.map(say).join("") };
}

export function keepNode(p: SinfoParams): ((n: Node) => boolean) | undefined {
  const filtering = p.dead || p.responding || p.nodes !== undefined || p.partitions !== undefined || p.states !== undefined;
  if (!filtering) return undefined;
  return (n) => {
    const noResp = n.stateFlags.some((f) => f.toUpperCase() === "NOT_RESPONDING");
    if (p.nodes !== undefined && !p.nodes.includes(n.name)) return false;
    if ((p.dead && !noResp) || (p.responding && noResp)) return false;
    if (p.states === undefined || p.states === "all") return true;
    return p.states.some((s) => stateSelects(s, n));
  };
}

/**
 * A partition's node names as a set, by its Nodes= hostlist. Kept between calls (a controller
 * renders sinfo for every caller, and a partition's list changes only with the configuration):
 * expanding 10k names and building the set was about a quarter of a listing's time. The same
 * text always expands to the same names, so an entry is never stale; bounded by count.
 */
const memberSets = new Map<string, ReadonlySet<string>>();
const MEMBER_SETS_MAX = 256;

function memberOf(part: Partition): ReadonlySet<string> {
  let set = memberSets.get(part.nodes);
  if (set === undefined) {
    const names = expandHostlist(part.nodes);
    set = new Set(names.ok ? names.value : []);
    if (memberSets.size >= MEMBER_SETS_MAX) memberSets.clear();
    memberSets.set(part.nodes, set);
  }
  return set;
}

export function records(resp: SinfoInput, p: SinfoParams, items: readonly FormatItem[]): SinfoRecord[] {
  const match = new Set<MatchKey>();
  for (const item of items) {
    const key = item.kind === "field" ? sinfoMatch(item.key) : undefined;
    if (key !== undefined) match.add(key);
  }
  const parts = resp.partitions.filter((part) => p.all || !part.hidden);
  const keep = keepNode(p);
  const built = buildRecords(resp.nodes, parts, memberOf, {
    match, nodeLines: p.nodeFlag, listReasons: p.listReasons, exact: p.exact,
    ...(p.partitions === undefined ? {} : { partitions: p.partitions }),
    ...(keep === undefined ? {} : { keepNode: keep }),
  });
  return sortRecords(built, p.sort ?? (p.nodeFlag ? "N" : "#P,-t"));
}

/** Widths of the `%#P` / `%#N` columns: the longest value, at least 9. */
function computedWidth(recs: readonly SinfoRecord[]): (key: string, width: number) => number {
  const part = Math.max(FIELD_SIZE_MIN, ...recs.map((r) => r.part.name.length + (r.part.isDefault ? 1 : 0)));
  const node = Math.max(FIELD_SIZE_MIN, ...recs.map((r) => nodeNames(r).length));
  return (key, width) => (key === "NodeList" || key === "NodeHost" ? node : key === "Partition" || key === "PartitionName" ? part : width);
}


/** The header (unless -h) and one line per record: what sinfo prints after its own preamble. */
export function sinfoLines(resp: SinfoInput, p: SinfoParams, items: readonly FormatItem[]): string {
  const recs = records(resp, p, items);
  const widths = computedWidth(recs);
  let out = p.noHeader ? "" : renderLine(items, sinfoColumn, undefined, widths);
  for (const rec of recs) out += renderLine(items, sinfoColumn, rec, widths);
  return out;
}

/** The environment a view carries: what sinfo's options read (SINFO_*) and Slurm's own (SLURM_*). */
const viewEnv = (env: Readonly<Record<string, string | undefined>>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && (k.startsWith("SINFO_") || k.startsWith("SLURM_"))) out[k] = v;
  return out;
};

/** Whether the listing prints a local time (-R's TIMESTAMP, %H): it is then the renderer's time zone's. */
export const printsLocalTime = (items: readonly FormatItem[]): boolean => items.some((i) => i.kind === "field" && i.key === "TimeStamp");

/**
 * Whether the controller may render this listing: a text listing of nodes (not --json or -T),
 * whose times, if it prints any, are in the standard form (a SLURM_TIME_FORMAT style is the
 * reader's, format-time.ts). The time zone is settled by the caller (ListNodesResponse.sinfo_text_zone).
 */
export function renderableHere(p: SinfoParams, items: readonly FormatItem[], env: Readonly<Record<string, string | undefined>>): boolean {
  if (p.json || p.reservation) return false;
  return !printsLocalTime(items) || isStandardTimeValue(env.SLURM_TIME_FORMAT);
}

/** ListNodesRequest.sinfo_view for this command line. */
export function sinfoViewToWire(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): string {
  return JSON.stringify({ argv, env: viewEnv(env) });
}

/**
 * The controller's side: the listing sinfo would print for `view` from `resp`, and whether it
 * prints local times (then in this process's zone); undefined when it is not one to render here
 * (malformed, options sinfo rejects, or renderableHere says no).
 */
export function renderSinfoView(view: string, resp: SinfoInput): { text: string; localTime: boolean } | undefined {
  let parsedView: unknown;
  try {
    parsedView = JSON.parse(view);
  } catch {
    return undefined;
  }
  const v = parsedView as { argv?: unknown; env?: unknown } | null;
  if (v === null || typeof v !== "object" || !Array.isArray(v.argv) || !v.argv.every((a) => typeof a === "string")) return undefined;
  const env: Record<string, string> = {};
  if (v.env !== null && typeof v.env === "object") {
    for (const [k, val] of Object.entries(v.env as Record<string, unknown>)) if (typeof val === "string") env[k] = val;
  }
  const args = parseSinfoArgs(v.argv as string[], env, SLURM_VERSION_LINE);
  if (!args.ok) return undefined;
  const { parsed } = parseFormat(args.params);
  // this process's own time style must be the standard one too (a controller never sets another)
  const localTime = printsLocalTime(parsed.items);
  if (!renderableHere(args.params, parsed.items, env) || (localTime && !isStandardTimeFormat())) return undefined;
  return { text: sinfoLines(resp, args.params, parsed.items), localTime };
}
