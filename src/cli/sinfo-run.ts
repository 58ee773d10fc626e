/**
 * @module cli/sinfo-run
 * One `sinfo` listing: argv + env + the controller's nodes and partitions in, Slurm
 * 22.05's exact text out. Options, columns, grouping and order are tables in
 * compat/format/sinfo-*; this file sequences them. An unreachable controller
 * prints `slurm_load_partitions: ...` and exits 1.
 */
import { sinfoReservations } from "./scontrol-resv.ts";
import { formatCtime, renderedZoneFits } from "../compat/format-time.ts";
import type { FormatItem } from "../compat/format/format-spec.ts";
import { sinfoJson } from "../compat/format/json-nodes.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseSinfoArgs, type SinfoParams } from "../compat/format/sinfo-options.ts";
import { keepNode, parseFormat, records, renderableHere, sinfoLines, sinfoViewToWire } from "../compat/format/sinfo-listing.ts";
import type { ListNodesResponse } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

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
    // The controller renders the listing with this same code (compat/format/sinfo-listing.ts): no
    // node list crosses the wire. An older controller, or a line it does not render, sends the nodes.
    const view = renderableHere(p, parsed.items, port.env) ? sinfoViewToWire(argv, port.env) : undefined;
    resp = await port.ctl.listNodes(view === undefined ? {} : { sinfoView: view });
    if (view !== undefined && typeof resp.sinfoText === "string") {
      // Local times in the text are the controller's zone's: used only in the same zone.
      if (renderedZoneFits(resp.sinfoTextZone)) return { stdout: stdout + resp.sinfoText, stderr, exitCode: 0 };
      resp = await port.ctl.listNodes({});
    }
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
  return { stdout: stdout + sinfoLines(resp, p, parsed.items), stderr, exitCode: 0 };
}
