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

export interface RpcMetrics {
  /** One finished request: its URL path, HTTP status and duration. */
  observe(path: string, status: number, seconds: number): void;
  families(): MetricFamily[];
}

export function createRpcMetrics(): RpcMetrics {
  const counts = new Map<string, number>();
  const latency = new Map<string, Histogram>();

  function methodOf(path: string): string {
    const method = METHOD_RE.test(path) ? path.slice(1) : "other";
    if (latency.has(method) || latency.size < MAX_METHODS) return method;
    return "other";
  }

  return {
    observe(path, status, seconds) {
      const method = methodOf(path);
      const key = `${method} ${status}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
      let h = latency.get(method);
      if (h === undefined) {
        h = new Histogram(LATENCY_BUCKETS_SEC);
        latency.set(method, h);
      }
      h.observe(seconds);
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
