/**
 * @module tests/unit/agent/controller-link
 * The agent's periodic loop on simulated time: it registers at once, heartbeats at the
 * interval the controller asked for, re-registers when told, asks a controller that refuses
 * its protocol again only every 5 s (logging the refusal once), fails over to the next replica
 * or to the leader an answer names, and stops calling once stopped.
 */
import { ConnectError, Code } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { type ControllerClient, TURN_MS, createControllerLink } from "../../../src/agent/controller-link.ts";
import { createFakeClock } from "../../../src/lib/fake-clock.ts";
import { runClockFor } from "../ctld/fake-controller.ts";
import type { NodeInfoP } from "../../../src/sched/model/types.ts";


interface Call {
  url: string;
  method: string;
  atMs: number;
}

function setup(opts: { urls?: string[]; heartbeatIntervalMs?: number; register?: (url: string) => Promise<unknown>; heartbeat?: (url: string, n: number) => Promise<unknown> } = {}) {
  const clock = createFakeClock(0);
  const calls: Call[] = [];
  const logged: string[] = [];
  const killed: number[][] = [];
  let beats = 0;
  const clientFor = (url: string): ControllerClient => {
    const call = (method: string) => calls.push({ url, method, atMs: clock.now() });
    return {
      registerNode: async () => {
        call("register");
        if (opts.register) await opts.register(url);
        return { heartbeatIntervalMs: opts.heartbeatIntervalMs ?? 1000, killJobIds: [7] };
      },
      heartbeat: async () => {
        call("heartbeat");
        const answer = opts.heartbeat ? await opts.heartbeat(url, beats++) : undefined;
        return { reregister: false, killJobIds: [], ...(answer as object) };
      },
      batchComplete: async () => ({}),
      listJobs: async () => ({ jobs: [] }),
      recordStepUsage: async () => ({}),
    } as unknown as ControllerClient;
  };
  const link = createControllerLink({
    node: { name: "n1" } as NodeInfoP, urls: opts.urls ?? ["http://a:1"], clientFor, clock,
    logger: { info: () => undefined, warn: (o: object) => logged.push(`warn ${JSON.stringify(o)}`), error: (o: object) => logged.push(`error ${JSON.stringify(o)}`) } as never,
    runningJobIds: () => [1, 2],
    killReported: (ids) => killed.push(ids),
    reportEnded: async () => undefined,
  });
  const runFor = (ms: number) => runClockFor(clock, ms);
  return { clock, calls, logged, killed, link, runFor };
}

describe("agent controller link (simulated time)", () => {
  it("registers at once, then heartbeats every heartbeatIntervalMs the controller asked for", async () => {
    const s = setup({ heartbeatIntervalMs: 1000 });
    const stop = s.link.start();
    await s.runFor(5000);
    stop();
    expect(s.calls[0]).toEqual({ url: "http://a:1", method: "register", atMs: 0 });
    expect(s.killed[0]).toEqual([7]); // what the registration named is killed
    const beats = s.calls.filter((c) => c.method === "heartbeat").map((c) => c.atMs);
    expect(beats).toEqual([TURN_MS, TURN_MS + 1000, TURN_MS + 2000, TURN_MS + 3000, TURN_MS + 4000]);
  });

  it("re-registers when a heartbeat says so", async () => {
    const s = setup({ heartbeat: async (_url, n) => (n === 1 ? { reregister: true } : {}) });
    const stop = s.link.start();
    await s.runFor(3000);
    stop();
    expect(s.calls.map((c) => c.method).slice(0, 4)).toEqual(["register", "heartbeat", "heartbeat", "register"]);
  });

  it("a controller that refuses the protocol is asked again every 5 s, the refusal logged once", async () => {
    const s = setup({ register: async () => Promise.reject(new Error("agent protocol version 1 refused")) });
    const stop = s.link.start();
    await s.runFor(12_000);
    stop();
    expect(s.calls.map((c) => c.atMs)).toEqual([0, 5000, 10_000]); // turns every TURN_MS in between ask nothing
    expect(s.logged.filter((l) => l.startsWith("error"))).toHaveLength(1);
  });

  it("fails over to the next replica, and follows the leader an answer names", async () => {
    const s = setup({
      urls: ["http://a:1", "http://b:1"],
      register: async (url) => {
        if (url === "http://a:1") throw new Error("connect ECONNREFUSED");
        if (url === "http://b:1") throw new ConnectError("not leader", Code.FailedPrecondition, { "x-spur-leader": "http://c:1" });
      },
    });
    const stop = s.link.start();
    await s.runFor(3 * TURN_MS);
    stop();
    expect(s.calls.slice(0, 3).map((c) => c.url)).toEqual(["http://a:1", "http://b:1", "http://c:1"]);
    expect(s.link.replicas()).toBe(3); // the named leader is kept
  });

  it("makes no call after stop", async () => {
    const s = setup();
    const stop = s.link.start();
    await s.runFor(1000);
    stop();
    const made = s.calls.length;
    await s.runFor(10_000);
    expect(s.calls.length).toBe(made);
    expect(s.clock.pending()).toBe(0);
  });
});
