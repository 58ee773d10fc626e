/**
 * @module net/cluster-auth
 * Node agents (spurd) prove to controllers that they hold the cluster's shared secret
 * (SpurClusterSecretFile=, written by `spur init`), so controllers and agents on different
 * hosts can talk without auth/loopback. Each agent RPC carries the header
 * `x-spur-cluster-auth: v1:NODE:UNIXSEC:HMAC`, where HMAC is hex HMAC-SHA256 over
 * "spur-agent\nNODE\nUNIXSEC\nPATH" with the secret. The controller recomputes it and
 * accepts a stamp at most MAX_SKEW_SEC away from its own clock (the stated clock-drift
 * bound between hosts). The secret never travels. Without TLS a captured header can be
 * replayed for the same RPC path within that window (as a munge credential can within its
 * TTL); it cannot be turned into another node's or another path's credential.
 * Pure functions of (secret, clock); rpc-server stamps the verdict, handlers enforce it.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import type { Interceptor } from "@connectrpc/connect";
import { type Result, err, ok } from "../lib/result.ts";

export const CLUSTER_AUTH_HEADER = "x-spur-cluster-auth";
/** Set by rpc-server from CLUSTER_AUTH_HEADER (clients cannot forge it): the node name, or "!why". */
export const AGENT_NODE_HEADER = "x-spur-agent-node";
export const MAX_SKEW_SEC = 300;

const NODE_RE = /^[A-Za-z0-9._-]{1,128}$/;

function mac(secret: string, node: string, stampSec: number, path: string): string {
  return createHmac("sha256", secret).update(`spur-agent\n${node}\n${stampSec}\n${path}`).digest("hex");
}

/** The header value an agent named `node` sends on a call to `path` at `nowSec`. */
export function signAgentCall(secret: string, node: string, path: string, nowSec: number): string {
  const stamp = Math.floor(nowSec);
  return `v1:${node}:${stamp}:${mac(secret, node, stamp, path)}`;
}

/** The node a header proves, or why it proves nothing. */
export function verifyAgentCall(secret: string, header: string, path: string, nowSec: number): Result<string> {
  const parts = header.split(":");
  if (parts.length !== 4 || parts[0] !== "v1") return err("malformed", "malformed cluster credential");
  const [, node = "", stampText = "", got = ""] = parts;
  const stamp = Number(stampText);
  if (!NODE_RE.test(node) || !/^\d{1,12}$/.test(stampText) || !/^[0-9a-f]{64}$/.test(got)) return err("malformed", "malformed cluster credential");
  const want = Buffer.from(mac(secret, node, stamp, path), "hex");
  if (!timingSafeEqual(want, Buffer.from(got, "hex"))) return err("bad-secret", "cluster credential does not match this controller's secret");
  if (Math.abs(nowSec - stamp) > MAX_SKEW_SEC) return err("expired", `cluster credential is ${Math.round(nowSec - stamp)} s off this controller's clock (more than ${MAX_SKEW_SEC} s)`);
  return ok(node);
}

/** A Connect client interceptor that signs every call of agent `node` with the secret. */
export function agentAuthInterceptor(secret: string, node: string): Interceptor {
  return (next) => async (req) => {
    req.header.set(CLUSTER_AUTH_HEADER, signAgentCall(secret, node, new URL(req.url).pathname, Date.now() / 1000));
    return next(req);
  };
}
