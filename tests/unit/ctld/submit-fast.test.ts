/**
 * Submit past the Connect adapter (net/rpc-unary-fast, ctld/service.ts controllerFastUnary):
 * two controllers built alike, one serving Submit on the fast path and one through the
 * adapter only, answer the same requests with the same status, body bytes and headers
 * (success, --test-only, and refusals from decoding, the handler and apply, with Slurm's
 * number in x-slurm-errno), and the fast path is the one that answered.
 */
import { createConsola } from "consola";
import { afterAll, describe, expect, it } from "vitest";
import { createController } from "../../../src/ctld/controller.ts";
import type { AgentLink } from "../../../src/ctld/agent-link.ts";
import { controllerFastUnary, controllerRoutes, type ServiceContext } from "../../../src/ctld/service.ts";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";
import type { FastUnary, FastUnaryOptions } from "../../../src/net/rpc-unary-fast.ts";
import { cluster, spec } from "../sched/builders.ts";
import { StoreFullError } from "../../../src/lib/store-full.ts";
import { rejectionError } from "../../../src/ctld/service-context.ts";
import { Controller, SubmitRequestSchema } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { fastUnary } from "../../../src/net/rpc-unary-fast.ts";
import { RPC_UNARY_OPTIONS } from "../../../src/net/rpc-server.ts";

const servers: RpcServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A single controller over an in-memory log; `fast`: Submit on the fast path (calls counted). */
async function serve(fast: boolean, disk: () => "ok" | "full" | "broken" = () => "ok"): Promise<{ url: string; fastCalls: () => number }> {
  const { state } = cluster();
  const rows: unknown[] = Array.from({ length: state.appliedIndex }, () => ({}));
  const log = {
    append(command: unknown) {
      return this.appendMany([command]);
    },
    appendMany(commands: unknown[]) {
      if (disk() === "full") throw new StoreFullError(new Error("database or disk is full"));
      if (disk() === "broken") throw new Error("disk I/O error");
      rows.push(...commands);
      return rows.length - commands.length + 1;
    },
    *entries() {},
    lastIndex: () => rows.length,
    close: () => undefined,
  };
  const controller = createController({ state, log: log as never, logger: createConsola({ level: -999 }), now: () => 100, agents: {} as AgentLink });
  const sc = { controller, now: () => 100, controllerName: "c1", startedAt: 1, selfUid: 0, confPath: "" } as ServiceContext;
  let calls = 0;
  const fastUnary = (opt: FastUnaryOptions): Record<string, FastUnary> =>
    Object.fromEntries(Object.entries(controllerFastUnary(sc)(opt)).map(([path, h]) => [path, (req) => (calls++, h(req))]));
  const server = await startRpcServer(controllerRoutes(sc), { host: "127.0.0.1", port: 0 }, {}, fast ? { fastUnary } : {});
  servers.push(server);
  return { url: `http://127.0.0.1:${server.port}/spur.v1.Controller/Submit`, fastCalls: () => calls };
}

const HEADERS = ["content-type", "content-length", "content-encoding", "x-slurm-errno"];

/** `body` as one string (content-length), or as a stream of pieces (chunked: no length known). */
async function answer(url: string, body: string | string[], headers: Record<string, string> = {}) {
  const sent = typeof body === "string" ? body : new ReadableStream({
    start(c) {
      for (const piece of body) c.enqueue(new TextEncoder().encode(piece));
      c.close();
    },
  });
  const res = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: sent });
  return { status: res.status, headers: HEADERS.map((h) => [h, res.headers.get(h)]), body: new TextDecoder().decode(await res.arrayBuffer()) };
}

const held = { spec: { ...spec({ hold: true }) } };

describe("Submit on the fast path", () => {
  it("answers every request as the Connect adapter does, byte for byte", async () => {
    const fast = await serve(true);
    const slow = await serve(false);
    const text = JSON.stringify({ spec: spec({ hold: true, name: "chunked" }) });
    const cases: [string, string | string[], Record<string, string>?][] = [
      ["chunked, no content-length", [text.slice(0, 10), text.slice(10, 200), text.slice(200)]],
      ["chunked, not JSON", ["{", "nope"]],
      ["held job", JSON.stringify(held)],
      ["second job, charset", JSON.stringify({ spec: spec({ hold: true, name: "two" }) }), { "content-type": "application/json; charset=utf-8" }],
      ["unknown fields ignored", JSON.stringify({ ...held, nosuch: 1 })],
      ["test-only", JSON.stringify({ ...held, testOnly: true })],
      ["missing spec", "{}"],
      ["empty body", ""],
      ["not JSON", "{nope"],
      ["wrong type", JSON.stringify({ spec: 5 })],
      ["a number field given a word", JSON.stringify({ spec: { ...held.spec, nodesMin: "many" } })],
      ["no such partition (apply's rejection)", JSON.stringify({ spec: spec({ hold: true, partition: "nosuch" }) })],
      ["more nodes than the partition has (queued)", JSON.stringify({ spec: spec({ hold: true, nodesMin: 99 }) })],
      ["name over Slurm's length", JSON.stringify({ spec: spec({ hold: true, name: "x".repeat(5000) }) })],
    ];
    const seen = new Set<number>();
    for (const [name, body, headers] of cases) {
      const a = await answer(fast.url, body, headers);
      const b = await answer(slow.url, body, headers);
      expect(a, name).toEqual(b);
      seen.add(a.status);
    }
    expect(fast.fastCalls()).toBe(cases.length);
    expect(seen.size).toBeGreaterThan(1);
    // one success and refusals with Slurm's number among them
    const ok = await answer(fast.url, JSON.stringify(held));
    expect(JSON.parse(ok.body)).toMatchObject({ cluster: "test" });
    const refused = await answer(fast.url, JSON.stringify({ spec: spec({ hold: true, partition: "nosuch" }) }));
    expect(refused.status).toBe(400);
  });

  it("answers the log's refusals alike: disk full (resource_exhausted) and a failed write (internal error)", async () => {
    let disk: "ok" | "full" | "broken" = "full";
    const fast = await serve(true, () => disk);
    const slow = await serve(false, () => disk);
    const body = JSON.stringify(held);
    const full = await answer(fast.url, body);
    expect(full).toEqual(await answer(slow.url, body));
    expect(full.status).toBe(429);
    disk = "broken";
    const broken = await answer(fast.url, body);
    expect(broken).toEqual(await answer(slow.url, body));
    expect(broken.body).toBe('{"code":"internal","message":"internal error"}');
    disk = "ok";
    expect(await answer(fast.url, body)).toEqual(await answer(slow.url, body));
    expect(fast.fastCalls()).toBe(3);
  });

  it("carries a rejection's Slurm number and compresses a large answer as the adapter does", async () => {
    // an implementation (one per server) that refuses with a typed rejection, then answers with a long warning
    const implOf = () => {
      let n = 0;
      return () => {
        if (n++ % 2 === 0) throw rejectionError("", "InvalidJobId");
        return { jobId: 7, warnings: ["w".repeat(4000)], cluster: "c" };
      };
    };
    const routes = (impl: () => unknown) => (router: Parameters<Parameters<typeof startRpcServer>[0]>[0]) => router.service(Controller, { submit: impl } as never);
    const fastImpl = implOf();
    const fast = await startRpcServer(routes(fastImpl), { host: "127.0.0.1", port: 0 }, {}, { fastUnary: (opt) => ({ "/spur.v1.Controller/Submit": fastUnary(Controller.method.submit, fastImpl as never, opt) }) });
    const slow = await startRpcServer(routes(implOf()), { host: "127.0.0.1", port: 0 });
    servers.push(fast, slow);
    const url = (s: RpcServer) => `http://127.0.0.1:${s.port}/spur.v1.Controller/Submit`;
    for (const encoding of ["gzip", "br", "identity", ""]) {
      const headers: Record<string, string> = encoding === "" ? {} : { "accept-encoding": encoding };
      const refusedFast = await answer(url(fast), "{}", headers);
      const refusedSlow = await answer(url(slow), "{}", headers);
      expect(refusedFast).toEqual(refusedSlow);
      expect(refusedFast.headers).toContainEqual(["x-slurm-errno", "2017"]);
      const bigFast = await answer(url(fast), "{}", headers);
      const bigSlow = await answer(url(slow), "{}", headers);
      expect(bigFast, encoding).toEqual(bigSlow);
      if (encoding === "gzip" || encoding === "br") expect(bigFast.headers).toContainEqual(["content-encoding", encoding]);
    }
    expect(RPC_UNARY_OPTIONS.readMaxBytes).toBeGreaterThan(0);
    expect(SubmitRequestSchema.typeName).toBe("spur.v1.SubmitRequest");
  });

  it("leaves compressed or timed requests to the adapter", async () => {
    const fast = await serve(true);
    const slow = await serve(false);
    const body = JSON.stringify(held);
    expect(await answer(fast.url, body, { "connect-timeout-ms": "5000" })).toEqual(await answer(slow.url, body, { "connect-timeout-ms": "5000" }));
    expect(fast.fastCalls()).toBe(0);
  });
});
