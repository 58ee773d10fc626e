/**
 * @module cli/sinfo-run
 * One `sinfo` listing: argv + env + the controller's nodes and partitions in, Slurm
 * 22.05's exact text out. Options, columns, grouping and order are tables in
 * compat/format/sinfo-*; this file sequences them. An unreachable controller
 * prints `slurm_load_partitions: ...` and exits 1.
 */
import { sinfoReservations } from "./scontrol-resv.ts";
import { formatCtime } from "../compat/format-time.ts";
import { type FormatItem, parseLetterFormat, parseNameFormat, type ParsedFormat, renderLine } from "../compat/format/format-spec.ts";
import { sinfoJson } from "../compat/format/json-nodes.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { nodeNames, SINFO_ALL_FORMAT, sinfoColumn, sinfoLetter, sinfoMatch, sinfoName } from "../compat/format/sinfo-fields.ts";
import { parseSinfoArgs, type SinfoParams } from "../compat/format/sinfo-options.ts";
import { buildRecords, type MatchKey, type Node, type Partition, type SinfoRecord } from "../compat/format/sinfo-records.ts";
import { sortRecords } from "../compat/format/sinfo-sort.ts";
import { stateSelects } from "../compat/format/sinfo-states.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import type { ListNodesResponse } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

/** Narrowest data-sized partition and node columns (Slurm's MIN_*_FIELD_SIZE). */
const FIELD_SIZE_MIN = 9;

function parseFormat(p: SinfoParams): { parsed: ParsedFormat; stderr: string } {
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

function keepNode(p: SinfoParams): ((n: Node) => boolean) | undefined {
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

function records(resp: Plain<ListNodesResponse>, p: SinfoParams, items: readonly FormatItem[]): SinfoRecord[] {
  const match = new Set<MatchKey>();
  for (const item of items) {
    const key = item.kind === "field" ? sinfoMatch(item.key) : undefined;
    if (key !== undefined) match.add(key);
  }
  const parts = resp.partitions.filter((part) => p.all || !part.hidden);
  const members = new Map<Partition, Set<string>>();
  const memberOf = (part: Partition): Set<string> => {
    let set = members.get(part);
    if (set === undefined) {
      const names = expandHostlist(part.nodes);
      set = new Set(names.ok ? names.value : []);
      members.set(part, set);
    }
    return set;
  };
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

function loadErrorText(e: unknown): string {
  if (e instanceof RpcError && e.code === "unavailable") return "Unable to contact slurm controller (connect failure)";
  return e instanceof Error ? e.message : String(e);
}

/** -v: the parameter dump Slurm prints before running. */
function optionsDump(p: SinfoParams): string {
  const b = (x: boolean): string => (x ? "true" : "false");
  const computed = (items: string): boolean => p.builtIn && p.format.includes(items);
  return [
    "-----------------------------",
    `dead        = ${b(p.dead)}`,
    `exact       = ${p.exact ? 1 : 0}`,
    `filtering   = ${b(keepNode(p) !== undefined)}`,
    `format      = ${p.format.replaceAll("%#", "%").replaceAll("%.#", "%.")}`,
    `iterate     = ${p.iterate}`,
    `long        = ${b(p.long)}`,
    `no_header   = ${b(p.noHeader)}`,
    `node_field  = ${b(computed("%#N"))}`,
    `node_format = ${b(p.nodeFlag)}`,
    `nodes       = ${p.nodesText ?? "n/a"}`,
    `part_field  = ${b(computed("#P"))}`,
    `partition   = ${p.partitions?.join(",") ?? "n/a"}`,
    `responding  = ${b(p.responding)}`,
    `states      = ${p.statesText ?? "(null)"}`,
    `sort        = ${p.sort ?? "(null)"}`,
    `summarize   = ${b(p.summarize)}`,
    `verbose     = ${p.verbose}`,
    "-----------------------------",
    "",
    "",
  ].join("\n");
}

/**
 * --json[=v0.0.4x]: the lines the text form would print (same filters, grouping
 * and order) as data_parser's openapi_sinfo_resp. The cluster name comes from
 * the controller's config (ListNodes does not carry it).
 */
async function jsonV4(argv: string[], port: CliPort, p: SinfoParams, resp: Plain<ListNodesResponse>, items: readonly FormatItem[], stdout: string, stderr: string): Promise<CliResult> {
  const cj = await import("../net/rest/cli-json.ts");
  const v = cj.dataParserVersion(p.jsonVersion);
  if (v === cj.LEGACY_JSON) return { stdout: stdout + sinfoJson(resp.nodes), stderr, exitCode: 0 };
  if (!cj.isDataParser(v)) return { stdout, stderr: `${stderr}sinfo: error: ${v}\n`, exitCode: 1 };
  let cluster = "";
  try {
    cluster = (await port.ctl.getConfig()).entries.ClusterName ?? "";
  } catch {
    // an older controller or a fake without GetConfig: the document stays valid with ""
  }
  const who = { user: port.invoker.user, group: port.invoker.group, argv, command: "sinfo" };
  return { stdout: stdout + cj.sinfoJsonV4(v, records(resp, p, items), cluster, who), stderr, exitCode: 0 };
}

/** One listing (sinfo.ts runs it once, or every -i seconds). */
export async function sinfoRun(argv: string[], port: CliPort): Promise<CliResult> {
  const parsedArgs = parseSinfoArgs(argv, port.env, SLURM_VERSION_LINE);
  if (!parsedArgs.ok) return parsedArgs.exit;
  const p = parsedArgs.params;
  const { parsed, stderr } = parseFormat(p);
  let stdout = p.verbose > 0 ? optionsDump(p) : "";
  if (!p.noHeader && !p.json && (p.long || p.verbose > 0 || p.iterate > 0)) stdout += `${formatCtime(Math.floor(port.now()))}\n`;
  let resp: Plain<ListNodesResponse>;
  try {
    resp = await port.ctl.listNodes();
  } catch (e) {
    const what = p.reservation ? "slurm_load_reservations" : "slurm_load_partitions";
    return { stdout, stderr: `${stderr}${what}: ${loadErrorText(e)}\n`, exitCode: 1 };
  }
  if (p.json) return jsonV4(argv, port, p, resp, parsed.items, stdout, stderr);
  if (p.reservation) {
    const rows = port.ctl.listReservations === undefined ? [] : (await port.ctl.listReservations({ withDeleted: false })).reservations;
    if (rows.length === 0) return { stdout: `${stdout}No reservations in the system\n`, stderr, exitCode: 0 };
    return { stdout: stdout + sinfoReservations(rows, !p.noHeader), stderr, exitCode: 0 };
  }
  const recs = records(resp, p, parsed.items);
  const widths = computedWidth(recs);
  if (!p.noHeader) stdout += renderLine(parsed.items, sinfoColumn, undefined, widths);
  for (const rec of recs) stdout += renderLine(parsed.items, sinfoColumn, rec, widths);
  return { stdout, stderr, exitCode: 0 };
}
