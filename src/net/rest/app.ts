/**
 * @module rest/app
 * The hono application of spurrestd: every route of the route tables bound
 * under /<api>/<version>/ for each version that has it, plus /openapi/v3.
 * Per request: authenticate (rest/auth), rate-limit per user, read and
 * validate the body (size cap, JSON, schema with unknown fields refused), run
 * the handler with a ControllerPort acting as the caller, wrap the payload in
 * the meta/errors/warnings envelope. /ui is the cluster page (rest/ui/routes). Every failure is a RestError answer;
 * nothing a client sends can crash the daemon.
 */
import { Hono, type Context } from "hono";
import type { ControllerPort } from "../ctl-port.ts";
import type { Authenticator, Caller } from "./auth.ts";
import { RestError } from "./errors.ts";
import { toRestError } from "./ctl-errors.ts";
import { openapiDocument } from "./openapi.ts";
import { createRateLimiter, type RateLimitConfig, type RateLimiter } from "./rate-limit.ts";
import type { HostInfo, RequestContext, Route } from "./route.ts";
import { SLURM_ROUTES } from "./routes-slurm.ts";
import { SLURMDB_ROUTES } from "./routes-slurmdb.ts";
import { EXTRA_ROUTES } from "./routes-extra.ts";
import { ADMIN_ROUTES } from "./routes-admin.ts";
import { SLURMDB_WRITE_ROUTES } from "./routes-slurmdb-write.ts";
import { pruneForVersion, validate } from "./schema.ts";
import { partsResponse, RawMembers, rawBody, rawParts } from "./raw-json.ts";
import { deflatedMiddle, gzipParts, gzipWanted } from "./gzip-body.ts";
import type { WarningItem } from "./schemas-common.ts";
import { mountUi } from "./ui/routes.ts";
import { boundIn, metaFor, NEWEST, VERSIONS, versionNumber, type Version } from "./versions.ts";

export const ALL_ROUTES: readonly Route[] = [...SLURM_ROUTES, ...EXTRA_ROUTES, ...ADMIN_ROUTES, ...SLURMDB_ROUTES, ...SLURMDB_WRITE_ROUTES];

/** Fixed paths before parametric ones, so that job/submit is never taken for job/{job_id}. */
const BIND_ORDER: readonly Route[] = [...ALL_ROUTES].sort((a, b) => Number(a.path.includes("{")) - Number(b.path.includes("{")));

/** Request bodies above this are refused with 413 (a job script plus its description fit easily). */
export const BODY_BYTES_MAX_DEFAULT = 4 * 1024 * 1024;

export interface RestDeps {
  auth: Authenticator;
  controllerFor(caller: Caller): ControllerPort;
  host: HostInfo;
  nowSec(): number;
  rateLimit: RateLimitConfig;
  bodyBytesMax?: number;
  /** rest_auth/local: the user of the Unix-socket peer this request came through (undefined: not relayed). */
  localPeer?(c: Context): string | undefined;
}

interface Who {
  version: Version;
  api: Route["api"];
  caller?: Caller;
  source?: string;
}

function peerOf(c: Context): { address: string; port: number } | null {
  const server = c.env as { requestIP?: (r: Request) => { address: string; port: number } | null } | undefined;
  return typeof server?.requestIP === "function" ? server.requestIP(c.req.raw) : null;
}

/** "[127.0.0.1]:54321" when served by Bun.serve (its server is the env hono gets), else "". */
function sourceOf(c: Context): string {
  const ip = peerOf(c);
  return ip === null ? "" : `[${ip.address}]:${ip.port}`;
}

/**
 * A big listing's parts (raw-json.ts), gzipped around its kept middle when the client takes
 * gzip from across a network (gzip-body.ts), else as they are.
 */
async function partsAnswer(c: Context, parts: Uint8Array[]): Promise<Response> {
  const [prefix, middle, tail, ...more] = parts;
  const bodyBytes = parts.reduce((n, p) => n + p.byteLength, 0);
  const peerAddress = peerOf(c)?.address ?? "";
  if (prefix === undefined || middle === undefined || tail === undefined || more.length > 0 || !gzipWanted({ acceptEncoding: c.req.header("accept-encoding"), peerAddress, bodyBytes })) {
    return partsResponse(parts);
  }
  try {
    return partsResponse(gzipParts(await deflatedMiddle(prefix, middle), tail), { "content-encoding": "gzip" });
  } catch {
    return partsResponse(parts); // compression failed (zlib out of memory): the body as it is still answers
  }
}

function envelope(deps: RestDeps, who: Who, warnings: WarningItem[], errors: ReturnType<RestError["item"]>[]) {
  const apiName = who.api === "slurmdb" ? "slurmdbd" : who.api === "util" ? "util" : "slurmctld";
  const meta = metaFor({ version: who.version, api: apiName, user: who.caller?.user ?? "", group: who.caller?.group ?? "", source: who.source ?? "", cluster: deps.host.cluster });
  return { meta, errors, warnings };
}

function errorResponse(c: Context, deps: RestDeps, who: Who, e: RestError): Response {
  return c.json(envelope(deps, who, [], [e.item()]), e.status as 400);
}

async function readBody(c: Context, route: Route, limit: number, version: Version): Promise<unknown> {
  if (route.body === undefined) return undefined;
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > limit) throw new RestError("TooLarge", `Request body of ${declared} bytes is over the limit of ${limit} bytes`, "http");
  const text = await c.req.text();
  if (text.length > limit) throw new RestError("TooLarge", `Request body is over the limit of ${limit} bytes`, "http");
  if (text.trim() === "") throw new RestError("FailParsing", "Request body is empty: a JSON object is required", "http");
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (e) {
    throw new RestError("FailParsing", `Unable to parse JSON: ${String((e as Error).message).slice(0, 200)}`, "http");
  }
  const problems = validate(route.body.node, body, { rejectUnknown: true, problemsMax: 10, version: versionNumber(version) });
  if (problems.length > 0) {
    throw new RestError("InvalidQuery", problems.map((p) => `${p.path}: ${p.message}`).join("; "), route.operation);
  }
  return body;
}

function bind(app: Hono, deps: RestDeps, route: Route, version: Version, limiter: RateLimiter): void {
  const hostPath = `/${route.api}/${version}/${route.path.replace(/\{([a-z_]+)\}/g, ":$1")}`;
  const handler = async (c: Context): Promise<Response> => {
    const who: Who = { version, api: route.api, source: sourceOf(c) };
    try {
      const nowSec = deps.nowSec();
      const header = (name: string) => c.req.header(name);
      const local = header("x-slurm-user-token") === undefined && header("authorization") === undefined ? deps.localPeer?.(c) : undefined;
      who.caller = local === undefined ? await deps.auth.authenticate(header, nowSec) : await deps.auth.authenticateLocal(local, header, nowSec);
      if (!limiter.take(who.caller.user, nowSec)) throw new RestError("RateLimited", `Rate limit of ${deps.rateLimit.perSec} requests/s exceeded for user ${who.caller.user}`, "rate_limit");
      const body = await readBody(c, route, deps.bodyBytesMax ?? BODY_BYTES_MAX_DEFAULT, version);
      const warnings: WarningItem[] = [];
      const rc: RequestContext = {
        version, caller: who.caller, ctl: deps.controllerFor(who.caller), params: c.req.param() as Record<string, string>,
        query: c.req.query(), body, nowSec, host: deps.host, warnings,
      };
      const payload = await route.handle(rc);
      if (payload instanceof RawMembers) {
        if (typeof payload.text !== "string") return await partsAnswer(c, rawParts(payload as RawMembers & { text: readonly Uint8Array[] }, envelope(deps, who, warnings, [])));
        return c.body(rawBody(payload as RawMembers & { text: string }, envelope(deps, who, warnings, [])), 200, { "content-type": "application/json" });
      }
      // The per-version adapter: serializers write the newest shape; drop what this version lacks.
      pruneForVersion(route.response.node, payload, versionNumber(version));
      return c.json({ ...payload, ...envelope(deps, who, warnings, []) });
    } catch (e) {
      return errorResponse(c, deps, who, toRestError(e, route.operation));
    }
  };
  app.on(route.method.toUpperCase(), [hostPath, hostPath.endsWith("/") ? hostPath.slice(0, -1) : `${hostPath}/`], handler);
}

export function createRestApp(deps: RestDeps): Hono {
  const app = new Hono();
  // One limiter for the whole API: the limit is per user, whatever the path.
  const limiter = createRateLimiter(deps.rateLimit);
  for (const version of VERSIONS) for (const route of BIND_ORDER) if (boundIn(version, route.since, route.until)) bind(app, deps, route, version, limiter);
  let doc: string | undefined;
  const openapi = (c: Context) => {
    doc ??= JSON.stringify(openapiDocument(ALL_ROUTES));
    return c.body(doc, 200, { "content-type": "application/json" });
  };
  for (const p of ["/openapi/v3", "/openapi.json", "/openapi"]) app.get(p, openapi);
  // The live cluster page (docs/ui.md), with the same authentication as the API.
  mountUi(app, { ...deps, limiter });
  app.notFound((c) => {
    const m = /^\/(slurm|slurmdb|util)\/(v0\.0\.\d+)\//.exec(c.req.path);
    const version = (VERSIONS as readonly string[]).includes(m?.[2] ?? "") ? (m?.[2] as Version) : NEWEST;
    const api = (m?.[1] ?? "slurm") as Route["api"];
    return errorResponse(c, deps, { version, api }, new RestError("NotFound", `Unable to find a ${c.req.method} handler for ${c.req.path.slice(0, 200)}`, "http"));
  });
  app.onError((e, c) => errorResponse(c, deps, { version: NEWEST, api: "slurm" }, toRestError(e, "http")));
  return app;
}
