/**
 * @module rest/ui/routes
 * The live cluster page of spurrestd: GET /ui (the page), /ui/page.css and /ui/page.js (its
 * code, compiled into the executable: nothing is fetched from anywhere else), and its data
 * calls: /ui/api/view (nodes, GPUs, partitions, reservations, fair share) and /ui/api/jobs
 * (the queue), the two parts of one view built once per poll interval per user and shared
 * by every tab of that user, and /ui/api/job/{id} (one job, its steps, samples and, for its
 * owner and operators, its script).
 * Authentication is the REST API's: a JWT in X-SLURM-USER-TOKEN or Authorization, or the
 * Unix-socket peer (rest_auth/local). `/ui?token=T` checks T once, puts it in an HttpOnly,
 * SameSite=Strict cookie and redirects to /ui, so the token leaves the address bar; the
 * page's calls then carry the cookie. Only GETs, none changes anything.
 */
import type { Context, Hono } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { createHash } from "node:crypto";
import { gzipSync } from "node:zlib";
import type { ControllerPort } from "../../ctl-port.ts";
import { RpcError } from "../../ctl-port.ts";
import type { Authenticator, Caller } from "../auth.ts";
import type { RateLimiter } from "../rate-limit.ts";
import { RestError } from "../errors.ts";
import { buildView } from "./view.ts";
import { jobDetail } from "./job-view.ts";
import { UsageSamples, type NodeLoad } from "./samples.ts";
import { PAGE_CSS, PAGE_HTML, PAGE_JS } from "./assets.ts";

export const UI_COOKIE = "spur_ui_token";
/** The page polls this often; a view younger than this is served again instead of rebuilt. */
export const UI_POLL_MS = 2000;
/** Views kept at most (one per user polling); one unused this long is dropped. */
const VIEW_CACHE_USERS_MAX = 64;
const VIEW_KEEP_MS = 5 * UI_POLL_MS;

export interface UiDeps {
  auth: Authenticator;
  /** The API's per-user limiter: the page's calls count against the same budget. */
  limiter?: RateLimiter;
  controllerFor(caller: Caller): ControllerPort;
  nowSec(): number;
  localPeer?(c: Context): string | undefined;
}

/** No outside origin, no inline code: the page works air-gapped and a stray injection cannot run. */
const SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/** One JSON answer of a built view, with its tag and (made when first asked) its gzip. */
interface Part {
  json: string;
  /** Hash of `json`: the same cluster gives the same tag, so a poll can be answered 304. */
  etag: string;
  gzip?: Uint8Array;
}

/** The view in two parts: `nodes` (everything but the job rows: the grid is drawn from it) and `jobs` (the queue). */
interface BuiltView {
  atMs: number;
  buildMs: number;
  nodes: Part;
  jobs: Part;
}

const part = (json: string): Part => ({ json, etag: `"${createHash("sha1").update(json).digest("base64url")}"` });

async function callerOf(c: Context, deps: UiDeps): Promise<Caller> {
  const cookie = getCookie(c, UI_COOKIE);
  const explicit = c.req.header("x-slurm-user-token") !== undefined || c.req.header("authorization") !== undefined;
  const header = (name: string): string | undefined => c.req.header(name) ?? (name === "x-slurm-user-token" && !explicit ? cookie : undefined);
  const local = explicit || cookie !== undefined ? undefined : deps.localPeer?.(c);
  const now = deps.nowSec();
  const caller = await (local === undefined ? deps.auth.authenticate(header, now) : deps.auth.authenticateLocal(local, header, now));
  if (deps.limiter !== undefined && !deps.limiter.take(caller.user, now)) throw new RestError("RateLimited", `Rate limit exceeded for user ${caller.user}`, "rate_limit");
  return caller;
}

function problem(c: Context, e: unknown): Response {
  const status = e instanceof RestError ? e.status : e instanceof RpcError && e.code === "not_found" ? 404 : 502;
  const message = e instanceof Error ? e.message : String(e);
  return c.json({ error: message.slice(0, 500) }, status as 401, SECURITY_HEADERS);
}

function sendJson(c: Context, built: Part, buildMs: number): Response {
  const headers = { ...SECURITY_HEADERS, "content-type": "application/json", "cache-control": "no-cache", etag: built.etag, "x-spur-view-build-ms": buildMs.toFixed(1) };
  // An unchanged cluster costs the page neither a transfer nor a parse (the common case between events).
  if (c.req.header("if-none-match") === built.etag) return c.body(null, 304, headers);
  if (!/\bgzip\b/.test(c.req.header("accept-encoding") ?? "") || built.json.length < 1024) return c.body(built.json, 200, headers);
  built.gzip ??= gzipSync(built.json, { level: 4 });
  return c.body(built.gzip as Uint8Array<ArrayBuffer>, 200, { ...headers, "content-encoding": "gzip", vary: "accept-encoding" });
}

export function mountUi(app: Hono, deps: UiDeps): void {
  const views = new Map<string, { view: Promise<BuiltView>; startedMs: number }>();
  const loads: Loads = { samples: new UsageSamples() };

  async function build(ctl: ControllerPort, user: string): Promise<BuiltView> {
    const started = performance.now();
    const [nodes, jobs, shares, reservations] = await Promise.all([
      ctl.listNodes(), ctl.listJobs({}), ctl.getShares?.({}).catch(() => undefined), ctl.listReservations?.({ withDeleted: false }).catch(() => undefined),
    ]);
    loads.nodes = { atMs: Date.now(), byName: new Map(nodes.nodes.map((n) => [n.name, n])) };
    const { jobs: rows, jobColumns, ...rest } = buildView({ nodes, jobs, shares, reservations, user });
    const nodesPart = part(JSON.stringify(rest));
    const jobsPart = part(JSON.stringify({ jobColumns, strings: rest.strings, jobs: rows }));
    return { atMs: Date.now(), buildMs: performance.now() - started, nodes: nodesPart, jobs: jobsPart };
  }

  /**
   * One build per user per poll interval, however many tabs ask; a failed build is not kept.
   * A view is megabytes on a large cluster: those of users who stopped polling are dropped.
   */
  function viewFor(caller: Caller): Promise<BuiltView> {
    const key = caller.user;
    const cached = views.get(key);
    if (cached !== undefined) return cached.view.then((v) => (Date.now() - v.atMs < UI_POLL_MS ? v : rebuild()), rebuild);
    return rebuild();
    function rebuild(): Promise<BuiltView> {
      const now = Date.now();
      for (const [user, entry] of views) if (now - entry.startedMs > VIEW_KEEP_MS) views.delete(user);
      if (views.size >= VIEW_CACHE_USERS_MAX) views.delete(views.keys().next().value ?? key);
      const view = build(deps.controllerFor(caller), caller.user);
      views.delete(key); // to the end of the Map's order: the first entry is the least recently built
      views.set(key, { view, startedMs: now });
      view.catch(() => views.delete(key));
      return view;
    }
  }

  app.get("/ui", async (c) => {
    const token = c.req.query("token");
    if (token === undefined) return c.html(PAGE_HTML, 200, { ...SECURITY_HEADERS, "cache-control": "no-cache" });
    try {
      await deps.auth.authenticate((name) => (name === "x-slurm-user-token" ? token : undefined), deps.nowSec());
    } catch (e) {
      return problem(c, e);
    }
    const secure = new URL(c.req.url).protocol === "https:";
    setCookie(c, UI_COOKIE, token, { httpOnly: true, sameSite: "Strict", path: "/ui", secure });
    return c.redirect("/ui", 303);
  });
  app.get("/ui/", (c) => c.redirect("/ui", 301));
  app.get("/ui/page.css", (c) => c.body(PAGE_CSS, 200, { ...SECURITY_HEADERS, "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" }));
  app.get("/ui/page.js", (c) => c.body(PAGE_JS, 200, { ...SECURITY_HEADERS, "content-type": "text/javascript; charset=utf-8", "cache-control": "no-cache" }));

  for (const [path, which] of [["/ui/api/view", "nodes"], ["/ui/api/jobs", "jobs"]] as const) {
    app.get(path, async (c) => {
      try {
        const built = await viewFor(await callerOf(c, deps));
        return sendJson(c, built[which], built.buildMs);
      } catch (e) {
        return problem(c, e);
      }
    });
  }

  app.get("/ui/api/job/:id", async (c) => {
    try {
      return await jobAnswer(c, deps, loads);
    } catch (e) {
      return problem(c, e);
    }
  });
}

/** The node loads last read (any user's view build refreshes them) and the job samples taken from them. */
interface Loads {
  samples: UsageSamples;
  nodes?: { atMs: number; byName: Map<string, NodeLoad> };
}

async function jobAnswer(c: Context, deps: UiDeps, loads: Loads): Promise<Response> {
  const caller = await callerOf(c, deps);
  const id = c.req.param("id") ?? "";
  if (!/^\d{1,10}$/.test(id)) throw new RestError("InvalidQuery", `Unable to parse job id "${id.slice(0, 32)}"`, "ui");
  const ctl = deps.controllerFor(caller);
  const jobId = Number(id);
  const res = await ctl.listJobs({ jobIds: [jobId], includeSteps: true, includeFinished: true });
  const job = res.jobs.find((j) => j.jobId === jobId);
  if (job === undefined) return c.json({ error: `Job ${jobId} not found` }, 404, SECURITY_HEADERS);
  const points = loads.samples.watch(jobId);
  if (job.state === "RUNNING") {
    if (loads.nodes === undefined || Date.now() - loads.nodes.atMs > UI_POLL_MS) loads.nodes = { atMs: Date.now(), byName: new Map((await ctl.listNodes()).nodes.map((n) => [n.name, n])) };
    loads.samples.add(jobId, deps.nowSec(), job.alloc, loads.nodes.byName);
  }
  const script = await scriptOf(ctl, jobId);
  // who and where, for the page's header when it is opened on a job
  const body = { cluster: res.clusterName, user: caller.user, ...jobDetail(job, res.clusterName, deps.nowSec(), points, script) };
  return c.json(body, 200, { ...SECURITY_HEADERS, "cache-control": "no-store" });
}

async function scriptOf(ctl: ControllerPort, jobId: number): Promise<{ text: string } | { refused: string }> {
  if (ctl.getJobScript === undefined) return { refused: "This controller does not give job scripts" };
  try {
    return { text: (await ctl.getJobScript({ jobId })).script };
  } catch (e) {
    // slurmctld's word for a reader who is not the owner is "Invalid user id"; the page says what it means
    if (e instanceof RpcError && e.code === "permission_denied") return { refused: "Access/permission denied" };
    return { refused: e instanceof Error ? e.message : String(e) };
  }
}
