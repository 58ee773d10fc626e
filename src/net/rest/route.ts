/**
 * @module rest/route
 * What one REST operation is: method, path (after /<api>/<version>/), the
 * versions that bind it, its request and response schemas and its handler.
 * The route tables (routes-slurm.ts, routes-slurmdb.ts) drive both the hono
 * app and the OpenAPI document, so the two cannot disagree.
 */
import type { ControllerPort } from "../ctl-port.ts";
import type { Caller } from "./auth.ts";
import type { Schema } from "./schema.ts";
import type { WarningItem } from "./schemas-common.ts";
import type { Version } from "./versions.ts";
import type { RawMembers } from "./raw-json.ts";

export type Api = "slurm" | "slurmdb" | "util";

export interface HostInfo {
  cluster: string;
  hostname: string;
  /** Home directory of a user (default working directory of a submission). */
  homeOf(user: string): string;
  /** Operators (SpurOperators=) may act on every job, as root does. */
  operators(): readonly string[];
  /** Controller address, for /slurmdb/clusters. */
  controller: { host: string; port: number };
}

export interface RequestContext {
  version: Version;
  caller: Caller;
  ctl: ControllerPort;
  params: Record<string, string>;
  query: Record<string, string>;
  /** The request body, already validated against the route's schema. */
  body: unknown;
  nowSec: number;
  host: HostInfo;
  warnings: WarningItem[];
}

export interface Route {
  method: "get" | "post" | "delete";
  api: Api;
  /** After /<api>/<version>/, with {param} placeholders, e.g. "job/{job_id}". */
  path: string;
  /** First and last data_parser minor version binding it (42..45 here). */
  since: number;
  until?: number;
  operation: string;
  summary: string;
  query?: readonly string[];
  body?: Schema<unknown>;
  response: Schema<unknown>;
  /** The payload members (the app adds meta/errors/warnings), or members already written as JSON. */
  handle(rc: RequestContext): Promise<Record<string, unknown> | RawMembers>;
}

/** Path parameters of a route path, in order. */
export const pathParams = (path: string): string[] => [...path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1] ?? "");
