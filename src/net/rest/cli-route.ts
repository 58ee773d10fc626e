/**
 * @module rest/cli-route
 * `scontrol --json show ...`, `scontrol --json ping` and `sdiag --json`: the same route
 * handlers and envelope spurrestd answers GET /slurm/v0.0.45/<path> with, run in the command
 * itself against its controller port (one serializer per thing, as the brief of the REST
 * API says), with meta.command echoing the invocation as Slurm's commands do. A failure
 * (no such job, no controller) is the envelope's `errors` entry and exit status 1.
 */
import type { CliPort, CliResult } from "../ctl-port.ts";
import type { HostInfo, RequestContext, Route } from "./route.ts";
import { SLURM_ROUTES } from "./routes-slurm.ts";
import { ADMIN_ROUTES } from "./routes-admin.ts";
import { toRestError } from "./ctl-errors.ts";
import { pruneForVersion } from "./schema.ts";
import { RawMembers, rawBody } from "./raw-json.ts";
import { metaFor, NEWEST, VERSIONS, versionNumber, type Version } from "./versions.ts";

export interface Invocation {
  command: string;
  argv: readonly string[];
  version?: Version;
}

const routeOf = (operation: string): Route | undefined => [...SLURM_ROUTES, ...ADMIN_ROUTES].find((r) => r.operation === operation);

async function clusterName(port: CliPort): Promise<string> {
  try {
    return (await port.ctl.getConfig()).entries.ClusterName ?? "";
  } catch {
    return "";
  }
}

/** Run the GET route named `operation` (e.g. "get_nodes") with path `params`; its JSON text. */
export async function routeJson(operation: string, params: Record<string, string>, port: CliPort, who: Invocation): Promise<CliResult> {
  const route = routeOf(operation);
  if (route === undefined) return { stdout: "", stderr: `${who.command}: error: --json is not available for this request\n`, exitCode: 1 };
  const version = who.version ?? NEWEST;
  const cluster = await clusterName(port);
  const host: HostInfo = { cluster, hostname: port.invoker.hostname, homeOf: () => "", operators: () => [], controller: { host: "", port: 0 } };
  const caller = { user: port.invoker.user, uid: port.invoker.uid, group: port.invoker.group, token: "" };
  const meta = { ...metaFor({ version, api: "slurmctld", user: caller.user, group: caller.group, source: "", cluster }), command: [who.command, ...who.argv] };
  const rc: RequestContext = { version, caller, ctl: port.ctl, params, query: {}, body: undefined, nowSec: Math.floor(port.now()), host, warnings: [] };
  try {
    const payload = await route.handle(rc);
    const envelope = { meta, errors: [], warnings: rc.warnings };
    if (payload instanceof RawMembers) return { stdout: `${JSON.stringify(JSON.parse(String(rawBody(payload, envelope))), null, 2)}\n`, stderr: "", exitCode: 0 };
    pruneForVersion(route.response.node, payload, versionNumber(version));
    return { stdout: `${JSON.stringify({ ...payload, ...envelope }, null, 2)}\n`, stderr: "", exitCode: 0 };
  } catch (e) {
    const error = toRestError(e, operation);
    return { stdout: `${JSON.stringify({ meta, errors: [error.item()], warnings: [] }, null, 2)}\n`, stderr: "", exitCode: 1 };
  }
}

/** scontrol's `show <entity> [id]` (entity as scontrol resolved it) → the route and its parameters. */
export function showRoute(entity: string, id: string | undefined): { operation: string; params: Record<string, string> } | undefined {
  const one = id !== undefined && id !== "";
  switch (entity) {
    case "jobs":
    case "jobid":
      return one ? { operation: "get_job", params: { job_id: id } } : { operation: "get_jobs", params: {} };
    case "nodes":
      return one ? { operation: "get_node", params: { node_name: id } } : { operation: "get_nodes", params: {} };
    case "partitions":
    case "partitionname":
      return one ? { operation: "get_partition", params: { partition_name: id } } : { operation: "get_partitions", params: {} };
    case "reservations":
    case "reservationname":
      return one ? { operation: "get_reservation", params: { reservation_name: id } } : { operation: "get_reservations", params: {} };
    case "licenses":
      return { operation: "get_licenses", params: {} };
    default:
      return undefined;
  }
}

/** `--json[=VERSION]` of a command answered by one route: the version checked, then routeJson. */
export async function jsonFlagAnswer(operation: string, params: Record<string, string>, port: CliPort, command: string, argv: readonly string[], asked: string | undefined): Promise<CliResult> {
  const version = asked === undefined || asked === "" ? NEWEST : asked.replace(/^data_parser\//, "");
  if (!isVersion(version)) return { stdout: "", stderr: `${command}: error: Unable to find data_parser plugin for ${asked} (available: ${VERSIONS.join(", ")})\n`, exitCode: 1 };
  return routeJson(operation, params, port, { command, argv, version });
}

const isVersion = (v: string): v is Version => (VERSIONS as readonly string[]).includes(v);
