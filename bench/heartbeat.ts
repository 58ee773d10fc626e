/**
 * What one node heartbeat costs the controller (issue 16): the agent handler reconciling the
 * jobs a node reports with the controller's, in the big state bench/sched.ts schedules (NODES
 * nodes, most busy, PENDING queued jobs). Every node sends one every few seconds, so at 10k
 * nodes this runs thousands of times a second. Prints heartbeat_ms (median and p99 of BEATS
 * calls, each from a random busy node reporting what it runs) as JSON lines.
 * Run: bun bench/heartbeat.ts   (NODES, PENDING, BEATS, SEED override)
 */
import { loadavg } from "node:os";
import type { HandlerContext } from "@connectrpc/connect";
import { buildBigState } from "./sched-state.ts";
import { agentHandlers } from "../src/ctld/service-agent.ts";
import type { ServiceContext } from "../src/ctld/service-context.ts";
import { PEER_UID_HEADER } from "../src/net/rpc-server.ts";

const env = (name: string, dflt: number): number => Number(process.env[name] ?? dflt);
const NODES = env("NODES", 10_000);
const PENDING = env("PENDING", 100_000);
const BEATS = env("BEATS", 2000);
const SEED = env("SEED", 1);
const now = 1_800_000_000;
const state = buildBigState({ nodes: NODES, pending: PENDING, busyFraction: 0.95, seed: SEED }, now);
// what the handler reads of the controller; nothing in this state is lost, so nothing is executed
const controller = { state, heartbeat: () => undefined, execute: () => Promise.reject(new Error("not expected")) };
const sc = { controller, now: () => now + 60, selfUid: 0 } as unknown as ServiceContext;
const agent = agentHandlers(sc);
const ctx = { requestHeader: new Headers({ [PEER_UID_HEADER]: "0" }), method: { name: "Heartbeat" } } as unknown as HandlerContext;
const running = new Map<string, number[]>();
for (const job of state.jobs.values()) {
  if (job.info.state !== "RUNNING") continue;
  running.set(job.info.batchHost, [...(running.get(job.info.batchHost) ?? []), job.info.jobId]);
}
const hosts = [...running.keys()];
const each: number[] = [];
for (let i = 0; i < BEATS; i++) {
  const node = hosts[(i * 7919) % hosts.length] as string;
  const t0 = performance.now();
  const r = agent.heartbeat({ node, runningJobIds: running.get(node) ?? [], cpuLoad: 0.5, freeMemoryMib: 1000 }, ctx);
  each.push(performance.now() - t0);
  if (r.killJobIds.length > 0) throw new Error(`unexpected kills on ${node}: ${r.killJobIds.join(",")}`);
}
each.sort((a, b) => a - b);
const pct = (p: number) => Math.round((each[Math.min(each.length - 1, Math.ceil((p / 100) * each.length) - 1)] ?? 0) * 1000) / 1000;
const cond = { nodes: NODES, jobs: state.jobs.size, running_hosts: hosts.length, beats: BEATS, seed: SEED, load1: loadavg()[0] };
console.log(JSON.stringify({ metric: "heartbeat_ms", value: pct(50), unit: "ms", p99_ms: pct(99), ...cond }));
console.log(JSON.stringify({ metric: "heartbeats_per_core_s", value: Math.round(1000 / Math.max(0.001, each.reduce((a, b) => a + b, 0) / each.length)), unit: "1/s", ...cond }));
