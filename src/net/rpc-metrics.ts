/**
 * @module net/rpc-metrics
 * Counts and times every RPC a daemon serves, by method and HTTP status, for the
 * metrics endpoint. Bounded: at most MAX_METHODS method labels; requests to paths that
 * are not "/package.Service/Method", or past the bound, are counted as method "other"
 * (so a client probing random URLs cannot grow the label set).
 */
import { Histogram, LATENCY_BUCKETS_SEC, type MetricFamily, type Sample } from "./metrics-text.ts";

/** Code-point order: deterministic and much cheaper than localeCompare at 10k samples. */
const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const MAX_METHODS = 64;
const METHOD_RE = /^\/[a-zA-Z0-9_.]+\/[a-zA-Z0-9_]+$/;

/** Calls and their total time, by method (first seen first) and by caller uid: sdiag's RPC tables. */
export interface RpcTotals {
  byMethod: { method: string; count: number; totalSec: number }[];
  byUid: { uid: number; count: number; totalSec: number }[];
}

export interface RpcMetrics {
  /** One finished request: its URL path, HTTP status, duration and, when known, the caller's uid. */
  observe(path: string, status: number, seconds: number, uid?: number): void;
  families(): MetricFamily[];
  /** What sdiag shows: since start or the last resetTotals (the metrics endpoint's counters never reset). */
  totals(): RpcTotals;
  resetTotals(): void;
}

/** At most this many callers are counted apart (a host's users); the rest are not counted by user. */
const MAX_UIDS = 1024;

export function createRpcMetrics(): RpcMetrics {
  const counts = new Map<string, number>();
  const latency = new Map<string, Histogram>();
  let byMethod = new Map<string, { count: number; totalSec: number }>();
  let byUid = new Map<number, { count: number; totalSec: number }>();
  const add = <K>(m: Map<K, { count: number; totalSec: number }>, key: K, seconds: number): void => {
    const t = m.get(key);
    if (t === undefined) m.set(key, { count: 1, totalSec: seconds });
    else {
      t.count += 1;
      t.totalSec += seconds;
    }
  };

  function methodOf(path: string): string {
    const method = METHOD_RE.test(path) ? path.slice(1) : "other";
    if (latency.has(method) || latency.size < MAX_METHODS) return method;
    return "other";
  }

  return {
    observe(path, status, seconds, uid) {
      const method = methodOf(path);
      add(byMethod, method, seconds);
      if (uid !== undefined && Number.isInteger(uid) && uid >= 0 && (byUid.has(uid) || byUid.size < MAX_UIDS)) add(byUid, uid, seconds);
      const key = `${method} ${status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      let h = latency.get(method);
      if (h === undefined) {
        h = new Histogram(LATENCY_BUCKETS_SEC);
        latency.set(method, h);
      }
      h.observe(seconds);
    },
    totals() {
      return {
        byMethod: [...byMethod].map(([method, t]) => ({ method, ...t })),
        byUid: [...byUid].map(([uid, t]) => ({ uid, ...t })),
      };
    },
    resetTotals() {
      byMethod = new Map();
      byUid = new Map();
    },
    families() {
      const requests: Sample[] = [...counts.entries()].sort(([a], [b]) => byText(a, b)).map(([key, value]) => {
        const [method = "", code = ""] = key.split(" ");
        return { suffix: "", labels: { method, code }, value };
      });
      const durations = [...latency.entries()].sort(([a], [b]) => byText(a, b)).flatMap(([method, h]) => h.samples({ method }));
      return [
        { name: "spur_rpc_requests_total", help: "RPC requests served, by method and HTTP status", type: "counter", samples: requests },
        { name: "spur_rpc_duration_seconds", help: "Time to serve an RPC, by method", type: "histogram", samples: durations },
      ];
    },
  };
}
