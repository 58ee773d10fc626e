/**
 * @module net/rpc-server
 * Serves Connect routes on node:http (which Bun runs), with two things every
 * Spur daemon needs at the edge: the caller's identity (auth/loopback: the uid
 * owning the client socket, put in a header that clients cannot forge because
 * it is overwritten here) and survival of malformed requests (bodies are capped
 * and handler errors become Connect errors, never a crash).
 */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from "node:http";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { isLoopback, loopbackPeerUid } from "./peer-identity.ts";
import { NO_OWNER, sockDiagUid } from "./sock-diag.ts";
import { isMetricsPath, serveMetrics, timeRequest } from "./metrics-http.ts";
import type { RpcMetrics } from "./rpc-metrics.ts";
import { AGENT_NODE_HEADER, CLUSTER_AUTH_HEADER, verifyAgentCall } from "./cluster-auth.ts";
import type { ServerTls } from "./tls.ts";
import { RATE_LIMITED_MESSAGE } from "./rpc-rate-limit.ts";
import { guardServer, HTTP_LIMITS_DEFAULT, type HttpLimits } from "./http-guard.ts";
import { listenGuarded } from "./listen-guarded.ts";
import { AUTH_ERROR_ERRNO, AUTH_ERROR_MESSAGE, CRED_HEADER, type CredVerifier } from "./cred-header.ts";
import { SLURM_ERRNO_HEADER } from "../compat/slurm-errors.ts";
import { fastUnaryEligible, type CallHeaders, type FastUnary, type FastUnaryOptions } from "./rpc-unary-fast.ts";

export const PEER_UID_HEADER = "x-spur-peer-uid";
/** The caller's IP address as the socket saw it (always overwritten: a client cannot set it). */
export const PEER_ADDR_HEADER = "x-spur-peer-addr";
/** A JWT (auth/jwt) naming the user a trusted front end such as spurrestd acts for. */
export const USER_TOKEN_HEADER = "x-spur-user-token";
/**
 * Set (always overwritten: a client cannot set it) when a cluster with credentials
 * (verifyCred) got a call from a caller this host's socket table does not know and that
 * sent no credential: peerUid answers Slurm's "Protocol authentication error".
 */
export const AUTH_REFUSED_HEADER = "x-spur-auth-refused";
const MAX_BODY_BYTES = 64 * 1024 * 1024;

export interface RpcServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * Read-only methods whose responses are already plain objects in the JSON shape
 * (no 64-bit, enum or bytes fields): served by JSON.stringify directly, skipping
 * protobuf's create()+toJson (measured: 10k jobs took ~380 ms through Connect).
 * Requests still go through the schema (fromJson), so defaults and validation hold.
 */
export type FastJsonHandlers = Record<string, (request: unknown) => unknown>;

/** A fast handler's answer that is JSON text already (sent as is, not stringified again). */
export class RawJson {
  constructor(readonly text: string) {}
}

/**
 * Verifies a token and names its user's uid (undefined = invalid). When a
 * request carries a token it alone decides who is asking: with no verifier, or
 * an invalid token, the request is unauthenticated (never the socket's uid,
 * which for spurrestd is root's).
 */
export type TokenVerifier = (token: string) => Promise<number | undefined>;

/**
 * Answers a request before any handler sees it (e.g. a replicated controller that is not
 * the leader): undefined lets the request through.
 */
export type RequestGate = (req: IncomingMessage) => { status: number; headers: Record<string, string>; body: string } | undefined;

/**
 * Optional extras: GET /metrics served from `metrics`, every request timed into
 * `rpc`, `verifyToken` for requests that carry a user token, and `gate` to answer
 * requests this server must not handle (a follower redirecting to its leader).
 */
export interface RpcServerExtras {
  metrics?: () => string;
  rpc?: RpcMetrics;
  verifyToken?: TokenVerifier;
  gate?: RequestGate;
  /** The cluster's shared secret: agent calls carrying a credential (net/cluster-auth) are verified. */
  clusterSecret?: string;
  /**
   * Runs after `gate` lets a request through and before its handler: undefined = no wait;
   * else the handler runs once the promise resolves with undefined, or the request is
   * answered with what it resolves to (a replicated controller's ReadIndex round for reads).
   */
  readBarrier?: (req: IncomingMessage) => Promise<ReturnType<RequestGate>> | undefined;
  /** Serve HTTPS with this certificate (net/tls.ts listenerTls); absent: plaintext. */
  tls?: ServerTls;
  /**
   * Per-user RPC rate limit (net/rpc-rate-limit): false refuses the call with 429 before
   * any handler runs. Calls with no known uid and verified agent calls are not counted.
   */
  rateLimit?: (uid: number, nowSec: number) => boolean;
  /** Connection and body limits (net/http-guard); tests shorten them. */
  limits?: Partial<HttpLimits>;
  /**
   * AuthType's verifier for `x-spur-cred` (net/cred-header): a request carrying one is
   * identified by it alone, and refused here with Slurm's words when it does not verify
   * (`onRefused` logs why). A request without one keeps loopback identity.
   */
  verifyCred?: CredVerifier;
  onCredRefused?: (why: string, peerAddr: string) => void;
  /**
   * Unary methods served past the Connect adapter with the same answers (net/rpc-unary-fast),
   * by path, built with the options given; identity, gates and limits as for any call.
   */
  fastUnary?: (opt: FastUnaryOptions) => Record<string, FastUnary>;
}

/** The adapter's request limit and JSON options: the fast unary path answers with the same. */
export const RPC_UNARY_OPTIONS: FastUnaryOptions = { readMaxBytes: 64 * 1024 * 1024, jsonOptions: { alwaysEmitImplicit: true, ignoreUnknownFields: true } };

export async function startRpcServer(
  routes: (router: ConnectRouter) => void,
  listen: { host: string; port: number },
  fastJson: FastJsonHandlers = {},
  extras: RpcServerExtras = {},
): Promise<RpcServer> {
  const handler = connectNodeAdapter({ routes, readMaxBytes: RPC_UNARY_OPTIONS.readMaxBytes, jsonOptions: RPC_UNARY_OPTIONS.jsonOptions });
  const unary = extras.fastUnary?.(RPC_UNARY_OPTIONS) ?? {};
  const dispatch = (req: IncomingMessage, res: ServerResponse) => {
    if (extras.rateLimit !== undefined && !withinRate(req, extras.rateLimit)) {
      req.resume();
      res.writeHead(429, { "content-type": "application/json", "retry-after": "1" });
      res.end(JSON.stringify({ code: "resource_exhausted", message: RATE_LIMITED_MESSAGE }));
      return;
    }
    const refused = extras.gate?.(req);
    if (refused !== undefined) {
      req.resume();
      res.writeHead(refused.status, { "content-type": "application/json", ...refused.headers });
      res.end(refused.body);
      return;
    }
    const barrier = extras.readBarrier?.(req);
    if (barrier === undefined) return route(req, res);
    void barrier.then(
      (answer) => {
        if (answer === undefined) return route(req, res);
        req.resume();
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(answer.body);
      },
      (error: unknown) => {
        req.resume();
        res.writeHead(503, { "content-type": "application/json" });
        res.end(JSON.stringify({ code: "unavailable", message: String((error as Error).message ?? error) }));
      },
    );
  };
  const fastOf = (req: IncomingMessage) => (req.method === "POST" && isJson(req) ? fastJson[req.url ?? ""] : undefined);
  const route = (req: IncomingMessage, res: ServerResponse) => {
    const direct = unary[req.url ?? ""];
    if (direct !== undefined && fastUnaryEligible(req)) return void serveUnary(req, res, direct);
    const fast = fastOf(req);
    if (fast === undefined) handler(req, res);
    else void serveFast(req, res, fast);
  };
  const listener: RequestListener = (req, res) => {
    if (!admit(req, res)) return;
    if (extras.metrics !== undefined && req.method === "GET" && isMetricsPath(req.url)) return serveMetrics(res, extras.metrics);
    if (extras.rpc !== undefined) timeRequest(req, res, extras.rpc, peerUidOf);
    stampAgent(req, extras.clusterSecret);
    req.headers[PEER_ADDR_HEADER] = req.socket.remoteAddress ?? "";
    delete req.headers[AUTH_REFUSED_HEADER];
    const token = req.headers[USER_TOKEN_HEADER];
    const cred = req.headers[CRED_HEADER];
    if (token === undefined && typeof cred === "string" && extras.verifyCred !== undefined) {
      void stampCred(req, res, cred, extras.verifyCred, extras.onCredRefused).then((admitted) => (admitted ? dispatch(req, res) : undefined));
      return;
    }
    if (token === undefined && extras.verifyCred !== undefined && needsCredential(req)) {
      // From another host nothing but a credential names the caller (agents sign with the cluster secret).
      refuseUnauthenticated(req, res, "no credential sent from another host", extras.onCredRefused);
      return;
    }
    if (token === undefined) {
      // The JSON fast path (squeue's and sinfo's listings) never reads the caller's uid, and
      // finding it reads /proc/net/tcp, which costs milliseconds and grows with every socket
      // on the host (a loop of CLI calls leaves one in TIME_WAIT each): skip it there.
      // With the per-user rate limit on (rl_enable), every call needs its caller, listings too.
      if (fastOf(req) === undefined || extras.rateLimit !== undefined) {
        stampPeer(req);
        if (extras.verifyCred !== undefined && req.headers[PEER_UID_HEADER] === "") req.headers[AUTH_REFUSED_HEADER] = "no credential sent";
      } else delete req.headers[PEER_UID_HEADER];
      dispatch(req, res);
      return;
    }
    void stampToken(req, typeof token === "string" ? token : "", extras.verifyToken).then(() => dispatch(req, res));
  };
  // TLS is terminated in front of the server (net/listen-guarded) so that the handshake is timed too.
  const server: Server = createServer(listener);
  const limits = { ...HTTP_LIMITS_DEFAULT, bodyBytesMax: MAX_BODY_BYTES, ...extras.limits };
  const admit = guardServer(server, limits, { tls: extras.tls !== undefined });
  server.on("clientError", (_err, socket) => socket.destroy());
  const listening = await listenGuarded(server, listen, limits, extras.tls);
  return { server, port: listening.port, close: listening.close };
}

/** The caller this server identified for the request (absent on listings served without looking it up, and before identification). */
function peerUidOf(req: IncomingMessage): number | undefined {
  const uid = req.headers[PEER_UID_HEADER];
  return typeof uid === "string" && /^\d+$/.test(uid) ? Number(uid) : undefined;
}

function withinRate(req: IncomingMessage, admit: (uid: number, nowSec: number) => boolean): boolean {
  const uid = req.headers[PEER_UID_HEADER];
  if (typeof uid !== "string" || uid === "") return true; // refused later as unauthenticated
  const agent = req.headers[AGENT_NODE_HEADER];
  if (typeof agent === "string" && agent !== "" && !agent.startsWith("!")) return true; // a verified node agent
  return admit(Number(uid), Date.now() / 1000);
}

function isJson(req: IncomingMessage): boolean {
  return (req.headers["content-type"] ?? "").startsWith("application/json");
}

async function serveFast(req: IncomingMessage, res: ServerResponse, fast: (request: unknown) => unknown): Promise<void> {
  const reply = (status: number, body: string) => {
    res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  };
  try {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of req) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        req.destroy();
        return reply(413, JSON.stringify({ code: "resource_exhausted", message: "request too large" }));
      }
      chunks.push(chunk as Buffer);
    }
    const text = Buffer.concat(chunks).toString("utf8");
    const request = text.trim() === "" ? {} : JSON.parse(text);
    const answer = fast(request);
    reply(200, answer instanceof RawJson ? answer.text : JSON.stringify(answer));
  } catch (error) {
    reply(400, JSON.stringify({ code: "invalid_argument", message: String((error as Error).message ?? error) }));
  }
}

async function serveUnary(req: IncomingMessage, res: ServerResponse, fast: FastUnary): Promise<void> {
  let answer;
  try {
    answer = await fast(req);
  } catch (error) {
    // Only a failed read of the request gets here (the handler's errors are answers): as the adapter, drop it.
    if (!res.headersSent) res.destroy(error as Error);
    return;
  }
  res.writeHead(answer.status, answer.headers);
  res.end(answer.body);
}

async function stampToken(req: IncomingMessage, token: string, verify: TokenVerifier | undefined): Promise<void> {
  let uid: number | undefined;
  try {
    uid = verify === undefined || token === "" ? undefined : await verify(token);
  } catch {
    uid = undefined;
  }
  req.headers[PEER_UID_HEADER] = uid === undefined ? "" : String(uid);
}

/** Identifies the caller by its credential; false (and answered 401) when it does not verify. */
async function stampCred(
  req: IncomingMessage, res: ServerResponse, cred: string, verify: CredVerifier, onRefused: RpcServerExtras["onCredRefused"],
): Promise<boolean> {
  let why: string;
  try {
    const v = await verify(cred);
    if (v.ok) {
      req.headers[PEER_UID_HEADER] = String(v.value.uid);
      return true;
    }
    why = v.error.message;
  } catch (e) {
    why = String((e as Error).message ?? e);
  }
  refuseUnauthenticated(req, res, why, onRefused);
  return false;
}

/** Ping tells anyone which replica leads (clients probe it without a credential); an agent signs its calls. */
const OPEN_PATHS = new Set(["/spur.v1.Controller/Ping"]);

/** A request from another host that only a credential could identify. */
function needsCredential(req: IncomingMessage): boolean {
  if (req.headers[CLUSTER_AUTH_HEADER] !== undefined || isLoopback(req.socket.remoteAddress ?? "")) return false;
  return !OPEN_PATHS.has((req.url ?? "").split("?")[0] ?? "");
}

/** Answers 401 with Slurm's words before any handler runs; `onRefused` hears why (logged, never sent). */
function refuseUnauthenticated(req: IncomingMessage, res: ServerResponse, why: string, onRefused: RpcServerExtras["onCredRefused"]): void {
  onRefused?.(why, req.socket.remoteAddress ?? "");
  req.resume();
  res.writeHead(401, { "content-type": "application/json", [SLURM_ERRNO_HEADER]: String(AUTH_ERROR_ERRNO) });
  res.end(JSON.stringify({ code: "unauthenticated", message: AUTH_ERROR_MESSAGE }));
}

/** Replace any client-sent AGENT_NODE_HEADER with the verdict on its cluster credential. */
function stampAgent(req: IncomingMessage, secret: string | undefined): void {
  delete req.headers[AGENT_NODE_HEADER];
  const cred = req.headers[CLUSTER_AUTH_HEADER];
  if (cred === undefined) return;
  if (secret === undefined) {
    req.headers[AGENT_NODE_HEADER] = "!this controller has no cluster secret (SpurClusterSecretFile=)";
    return;
  }
  const v = verifyAgentCall(secret, typeof cred === "string" ? cred : "", (req.url ?? "").split("?")[0] ?? "", Date.now() / 1000);
  req.headers[AGENT_NODE_HEADER] = v.ok ? v.value : `!${v.error.message}`;
}

/** The node an agent call's verified credential names; undefined: none, or `{ why }` when it failed. */
export function agentCredential(ctx: HandlerContext): string | { why: string } | undefined {
  const text = ctx.requestHeader.get(AGENT_NODE_HEADER) ?? "";
  if (text === "") return undefined;
  return text.startsWith("!") ? { why: text.slice(1) } : text;
}

/**
 * The caller's uid per kept-alive connection: the owner of a connection's client end is fixed
 * when the client opens it, so one lookup serves every request on it (a loop of calls on one
 * connection otherwise pays a netlink round trip each).
 */
const peerUidBySocket = new WeakMap<object, string>();

function stampPeer(req: IncomingMessage): void {
  const socket = req.socket;
  const known = peerUidBySocket.get(socket);
  if (known !== undefined) {
    req.headers[PEER_UID_HEADER] = known;
    return;
  }
  const peer = {
    remoteAddress: socket.remoteAddress ?? "",
    remotePort: socket.remotePort ?? 0,
    localPort: socket.localPort ?? 0,
  };
  // The kernel's socket table by netlink (one lookup), else /proc/net/tcp (a walk of every socket).
  // NO_OWNER (a socket already closed, or a listener) identifies nobody: unauthenticated.
  const uid = sockDiagUid({ ...peer, localAddress: socket.localAddress ?? "" }) ?? loopbackPeerUid(peer);
  req.headers[PEER_UID_HEADER] = uid === undefined || uid === NO_OWNER ? "" : String(uid);
  if (uid !== undefined && uid !== NO_OWNER) peerUidBySocket.set(socket, String(uid));
}

/** The authenticated uid of the caller; throws Unauthenticated when unknown. */
export function peerUid(ctx: CallHeaders): number {
  const text = ctx.requestHeader.get(PEER_UID_HEADER) ?? "";
  if (ctx.requestHeader.get(AUTH_REFUSED_HEADER) !== null) throw new ConnectError(AUTH_ERROR_MESSAGE, Code.Unauthenticated);
  if (text === "") throw new ConnectError("Unable to identify the caller (auth/loopback accepts loopback clients only)", Code.Unauthenticated);
  return Number(text);
}
