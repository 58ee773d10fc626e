/**
 * @module bench/scale/replica-cluster
 * What the replicated-controller benches share: bring up a local Spur cluster of N
 * controllers (`spur up --detach`, dist/spur), find its leader, and drive it with submissions
 * from in-process clients (fetch of the Connect JSON route, so no CLI start-up is counted):
 * `concurrency` requests always in flight for a fixed time, each latency recorded.
 * Failure policy: a bench that cannot bring its cluster up throws (the orchestrator reports
 * it); a failed or timed-out submission is counted as such, never retried.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { emptyJobSpec } from "../../src/sched/model/records.ts";

/** SCALE_BIN: another build to measure (say, the one before a change). */
export const BIN = process.env.SCALE_BIN ?? resolve(import.meta.dir, "../../dist/spur");
/** SCALE_FROM_SOURCE=1: run bun + src/main.ts instead of dist/spur (readable profiles). */
const FROM_SOURCE = process.env.SCALE_FROM_SOURCE === "1";
/** A build: a compiled binary, or a tree's src/main.ts run by this bun. */
const spurCmd = (args: string[], bin = BIN): [string, string[]] =>
  FROM_SOURCE && bin === BIN ? [process.execPath, [resolve(import.meta.dir, "../../src/main.ts"), ...args]]
  : bin.endsWith(".ts") ? [process.execPath, [bin, ...args]] : [bin, args];

export interface Cluster {
  dir: string;
  /** Controller id -> its Connect base URL. */
  urls: Map<number, string>;
  down(): void;
}

/** `spur up` with `controllers` controllers; `extraConf` lines are appended to spur.conf (then restarted); `bin`: another build. */
export function up(controllers: number, extraConf: string[] = [], bin = BIN): Cluster {
  const spur = (args: string[]) => spawnSync(...spurCmd(args, bin), { encoding: "utf8" });
  if (!FROM_SOURCE && !existsSync(bin)) throw new Error(`${bin} missing: run bun scripts/build-binary.ts first`);
  const dir = mkdtempSync(join(tmpdir(), "spur-bench-scale-"));
  const upArgs = ["up", "--detach", "--state-dir", dir, "--nodes", "1", "--controllers", String(controllers)];
  let r = spur(upArgs);
  if (r.status === 0 && extraConf.length > 0) {
    spur(["down", "--state-dir", dir]);
    writeFileSync(join(dir, "spur.conf"), `${readFileSync(join(dir, "spur.conf"), "utf8")}${extraConf.join("\n")}\n`);
    r = spur(upArgs);
  }
  if (r.status !== 0) throw new Error(`spur up failed: ${r.stdout}${r.stderr}`);
  const conf = readFileSync(join(dir, "spur.conf"), "utf8");
  const line = /^SpurControllers=(\S+)/m.exec(conf)?.[1];
  const urls = new Map<number, string>();
  if (line === undefined) urls.set(1, `http://127.0.0.1:${/^ControlPort=(\d+)/m.exec(conf)?.[1]}`);
  else for (const p of line.split(",")) urls.set(Number(p.split("@")[0]), `http://${(p.split("@")[1] ?? "").split(":").slice(0, 2).join(":")}`);
  return {
    dir,
    urls,
    down() {
      spur(["down", "--state-dir", dir]);
      if (process.env.KEEP) console.error(`kept ${dir}`);
      else rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function post(url: string, method: string, body: unknown, timeoutMs = 5000): Promise<Response> {
  return fetch(`${url}/spur.v1.Controller/${method}`, {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body), signal: AbortSignal.timeout(timeoutMs),
  });
}

export interface RaftView {
  role: string;
  term: number;
  applied: number;
  commit: number;
}

export async function raftOf(url: string): Promise<RaftView> {
  try {
    const r = (await (await post(url, "Ping", {}, 1000)).json()) as { raft?: { role?: string; term?: number; appliedIndex?: number; commitIndex?: number } };
    return { role: r.raft?.role ?? "leader", term: r.raft?.term ?? 0, applied: r.raft?.appliedIndex ?? 0, commit: r.raft?.commitIndex ?? 0 };
  } catch {
    return { role: "down", term: 0, applied: 0, commit: 0 };
  }
}

/** The serving leader's id, waiting up to `waitMs` for one. */
export async function leaderOf(c: Cluster, waitMs = 20_000): Promise<number> {
  const until = performance.now() + waitMs;
  for (;;) {
    const views = await Promise.all([...c.urls].map(async ([id, url]) => [id, await raftOf(url)] as const));
    const lead = views.find(([, v]) => v.role === "leader");
    if (lead !== undefined && views.every(([, v]) => v.role !== "down" && v.applied >= lead[1].commit - 1)) return lead[0];
    if (performance.now() > until) throw new Error("no leader with caught-up followers");
    await Bun.sleep(50);
  }
}

let seq = 0;
/** The submission every bench sends: a held one-line batch job (about 0.3 KB of JSON). */
export const submitBody = (partition = ""): unknown => ({ spec: { ...emptyJobSpec(), name: `bs${seq++}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true, partition } });

export interface Load {
  ok: number;
  failed: number;
  seconds: number;
  /** Latency of every acknowledged call, ms. */
  latencies: number[];
}

/**
 * `concurrency` loops, each issuing `call` back to back until `seconds` passed (or `stop()`
 * says so). A call resolves true when acknowledged.
 */
export async function drive(concurrency: number, seconds: number, call: () => Promise<boolean>, stop: () => boolean = () => false): Promise<Load> {
  const started = performance.now();
  const until = started + seconds * 1000;
  const load: Load = { ok: 0, failed: 0, seconds: 0, latencies: [] };
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until && !stop()) {
        const t = performance.now();
        if (await call()) {
          load.ok++;
          load.latencies.push(performance.now() - t);
        } else {
          load.failed++;
        }
      }
    }),
  );
  load.seconds = (performance.now() - started) / 1000;
  return load;
}

export async function submitTo(url: string, timeoutMs = 5000, partition = ""): Promise<boolean> {
  try {
    const res = await post(url, "Submit", submitBody(partition), timeoutMs);
    if (!res.ok) return false;
    await res.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

export const pct = (xs: number[], p: number): number => {
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] ?? 0;
};

export const round = (v: number, digits = 1): number => Number(v.toFixed(digits));
