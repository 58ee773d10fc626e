/**
 * The controller's per-user RPC rate limit (net/rpc-rate-limit): slurmctld's settings and
 * defaults, the token bucket on a fake clock, who is exempt, and the answer on the wire
 * (429, Slurm's SLURMCTLD_COMMUNICATIONS_BACKOFF text) before any handler runs.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createRpcRateLimiter, RATE_LIMITED_MESSAGE, RPC_RATE_LIMIT_DEFAULT, rpcRateLimitFrom } from "../../../src/net/rpc-rate-limit.ts";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";

const servers: RpcServer[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

describe("RPC rate limit", () => {
  it("is off unless SlurmctldParameters has rl_enable; Slurm's defaults otherwise", () => {
    expect(rpcRateLimitFrom("")).toBeUndefined();
    expect(rpcRateLimitFrom("enable_configless")).toBeUndefined();
    expect(rpcRateLimitFrom("rl_enable")).toEqual(RPC_RATE_LIMIT_DEFAULT);
    expect(RPC_RATE_LIMIT_DEFAULT).toEqual({ bucketSize: 30, refillRate: 2, refillPeriodSec: 1, tableSize: 8192 });
    expect(rpcRateLimitFrom("rl_enable,rl_bucket_size=5,rl_refill_rate=1,rl_refill_period=10,rl_table_size=7")).toEqual({
      bucketSize: 5, refillRate: 1, refillPeriodSec: 10, tableSize: 7,
    });
  });

  it("lets a user burst to the bucket size, then refills at the rate; root and exempt uids pass", () => {
    const admit = createRpcRateLimiter({ bucketSize: 3, refillRate: 2, refillPeriodSec: 1, tableSize: 100 }, [500]);
    expect([1, 2, 3, 4].map(() => admit(1000, 0))).toEqual([true, true, true, false]);
    expect(admit(1001, 0)).toBe(true); // another user has a bucket of their own
    expect(admit(1000, 0.5)).toBe(true); // one token back after half a second
    expect(admit(1000, 0.5)).toBe(false);
    for (let i = 0; i < 100; i++) {
      expect(admit(0, 0)).toBe(true);
      expect(admit(500, 0)).toBe(true);
    }
  });

  it("answers a refused call 429 with Slurm's words before any handler runs", async () => {
    let handled = 0;
    const s = await startRpcServer(() => undefined, { host: "127.0.0.1", port: 0 }, { "/x/Y": () => ({ n: ++handled }) }, { rateLimit: () => false });
    servers.push(s);
    const res = await fetch(`http://127.0.0.1:${s.port}/x/Y`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(res.status).toBe(429);
    expect(res.headers.get("retry-after")).toBe("1");
    expect(await res.json()).toEqual({ code: "resource_exhausted", message: RATE_LIMITED_MESSAGE });
    expect(handled).toBe(0);
  });
});
