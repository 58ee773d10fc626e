/**
 * @module net/ctl-client/failover
 * How a client (a CLI, spurrestd) reaches a replicated controller: ask every replica at once for its Raft role
 * (Ping answers on any replica), send the request to the one that leads, and follow
 * "not the leader" answers. While no leader can be found (an election, a lost quorum) it
 * keeps looking until SPUR_CONTROLLER_WAIT_MS (default 10 s) has passed, then fails with
 * Slurm's "Unable to contact slurm controller" plus one line naming which controllers
 * answered and which did not. One request waits at most SPUR_CONTROLLER_TIMEOUT_MS
 * (default 5 s) for its answer.
 * Failure policy: a request that changes state is never sent twice unless the first try
 * provably did not reach a serving leader (connection refused, or "not the leader"): a
 * timeout or a failover mid-commit is reported, not retried, so nothing runs twice.
 */
import { fetchWithBackoff } from "./rate-backoff.ts";
import { RpcError } from "../ctl-port.ts";
import { errnoOf } from "./rpc-errno.ts";
import type { Plain } from "../../lib/plain.ts";
import { fetchTls } from "../client-tls.ts";
import type { PingResponse } from "../gen/spur/v1/controller_pb.ts";

const READ_ONLY = new Set(["ListJobs", "ListNodes", "Ping", "GetConfig", "WaitJob"]);
const PROBE_TIMEOUT_MS = 1000;

export interface Endpoints {
  urls: string[];
  /** The leader found last (undefined: unknown). */
  leader?: string;
  /**
   * Where the one-line diagnosis goes when no leader can be found (a CLI: its stderr, in
   * order with its other output); default: straight to this process's stderr.
   */
  warn?: (line: string) => void;
}

const toStderr = (line: string): void => {
  void Bun.write(Bun.stderr, line);
};

interface Probe {
  url: string;
  reachable: boolean;
  role: string;
  leaderUrl: string;
}

async function probe(url: string): Promise<Probe> {
  try {
    const res = await fetch(`${url}/spur.v1.Controller/Ping`, {
      ...fetchTls(url),
      method: "POST", headers: { "content-type": "application/json" }, body: "{}", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
    });
    const body = (await res.json()) as { raft?: { role?: string; leaderUrl?: string } };
    return { url, reachable: res.ok, role: body.raft?.role ?? "leader", leaderUrl: body.raft?.leaderUrl ?? "" };
  } catch {
    return { url, reachable: false, role: "", leaderUrl: "" };
  }
}

/** Ask all replicas; resolves as soon as one says it leads, else with every answer. */
function findLeader(urls: string[]): Promise<{ leader?: string; probes: Probe[] }> {
  return new Promise((resolve) => {
    const probes: Probe[] = [];
    let done = false;
    for (const url of urls) {
      void probe(url).then((p) => {
        probes.push(p);
        if (done) return;
        if (p.role === "leader") {
          done = true;
          resolve({ leader: p.url, probes });
        } else if (probes.length === urls.length) {
          done = true;
          resolve({ probes });
        }
      });
    }
  });
}

function describe(probes: Probe[], urls: string[]): string {
  const byUrl = new Map(probes.map((p) => [p.url, p]));
  const parts = urls.map((u, i) => {
    const p = byUrl.get(u);
    const what = p === undefined || !p.reachable ? "unreachable" : `reachable (${p.role}${p.leaderUrl ? `, names leader ${p.leaderUrl}` : ", no leader"})`;
    return `controller ${i + 1} at ${u} ${what}`;
  });
  const up = probes.filter((p) => p.reachable).length;
  const quorum = Math.floor(urls.length / 2) + 1;
  const verdict = up < quorum ? `no quorum: ${up} of ${urls.length} controllers reachable, ${quorum} needed` : "no leader elected yet";
  return `${verdict}; ${parts.join("; ")}`;
}

/** Ping every replica (scontrol ping): each answer, or none for an unreachable one. */
export async function pingEach(urls: string[]): Promise<{ url: string; ping?: Plain<PingResponse> }[]> {
  return Promise.all(
    urls.map(async (url) => {
      const r = await attempt(url, "Ping", "{}", PROBE_TIMEOUT_MS);
      return r.kind === "ok" ? { url, ping: JSON.parse(r.text) as Plain<PingResponse> } : { url };
    }),
  );
}

type Attempt = { kind: "ok"; text: string } | { kind: "error"; error: RpcError } | { kind: "redirect"; leader: string } | { kind: "refused" } | { kind: "lost"; why: string };

async function attempt(url: string, method: string, body: string, timeoutMs: number | undefined, headers: Record<string, string> = {}): Promise<Attempt> {
  let res: Response;
  try {
    res = await fetchWithBackoff(`${url}/spur.v1.Controller/${method}`, {
      ...fetchTls(url),
      method: "POST", headers: { "content-type": "application/json", ...headers }, body,
      ...(timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) }),
    });
  } catch (e) {
    if (e instanceof RpcError) return { kind: "error", error: e }; // no credential (rate-backoff.ts)
    const code = (e as { code?: string }).code ?? "";
    return code === "ECONNREFUSED" || code === "ConnectionRefused" ? { kind: "refused" } : { kind: "lost", why: String((e as Error).message ?? e) };
  }
  let text: string;
  try {
    text = await res.text();
  } catch (e) {
    return { kind: "lost", why: String((e as Error).message ?? e) };
  }
  if (res.ok) return { kind: "ok", text };
  const leader = res.headers.get("x-spur-leader");
  if (leader !== null && res.headers.get("x-spur-outcome") === null) return { kind: "redirect", leader };
  let parsed: { code?: string; message?: string } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not a Connect error body */
  }
  return { kind: "error", error: new RpcError(parsed.code ?? "unknown", parsed.message ?? `controller answered HTTP ${res.status}`, errnoOf(res)) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One call against a replicated controller (see the module comment for the retry rules); `headers` add to each try (spurrestd's user token). */
export async function callReplicated<T>(ep: Endpoints, method: string, payload: unknown, headers: Record<string, string> = {}): Promise<T> {
  const body = JSON.stringify(payload ?? {});
  const readOnly = READ_ONLY.has(method);
  const waitMs = Number(process.env.SPUR_CONTROLLER_WAIT_MS ?? "10000");
  const deadline = Date.now() + waitMs;
  const requestTimeoutMs = Number(process.env.SPUR_CONTROLLER_TIMEOUT_MS ?? "5000");
  let probes: Probe[] = [];
  for (;;) {
    let target = ep.leader;
    if (target === undefined) {
      const found = await findLeader(ep.urls);
      probes = found.probes;
      target = found.leader;
      // Followers may name a leader this client's list lacks (a controller added at run time).
      const named = probes.find((p) => /^https?:\/\/\S+$/.test(p.leaderUrl) && !ep.urls.includes(p.leaderUrl))?.leaderUrl;
      if (target === undefined && named !== undefined) {
        ep.urls.push(named);
        target = named;
      }
    }
    if (target !== undefined) {
      // A leader that froze must not hold the command forever (WaitJob long-polls by design).
      const r = await attempt(target, method, body, method === "WaitJob" ? undefined : requestTimeoutMs, headers);
      if (r.kind === "ok") {
        ep.leader = target;
        return JSON.parse(r.text) as T;
      }
      if (r.kind === "error") throw r.error;
      if (r.kind === "lost" && !readOnly) {
        throw new RpcError("unavailable", `Unable to contact slurm controller (connect failure): the request may or may not have been done (${r.why})`);
      }
      // A leader this client's list lacks (added by `spur controller add`) is followed and remembered.
      const hinted = r.kind === "redirect" && /^https?:\/\/\S+$/.test(r.leader) && r.leader !== target ? r.leader : undefined;
      if (hinted !== undefined && !ep.urls.includes(hinted)) ep.urls.push(hinted);
      ep.leader = hinted;
      if (ep.leader !== undefined) continue;
    }
    if (Date.now() >= deadline) {
      (ep.warn ?? toStderr)(`spur: ${describe(probes, ep.urls)}\n`);
      throw new RpcError("unavailable", "Unable to contact slurm controller (connect failure)");
    }
    await sleep(50);
  }
}
