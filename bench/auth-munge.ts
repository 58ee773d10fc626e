/**
 * @module bench/auth-munge
 * What AuthType=auth/munge costs a user command, as JSON lines {metric, value, unit, anchor}:
 * - `munge_encode_us` / `munge_decode_us`: one credential from munged and one decode through it,
 *   in process over the Unix socket (net/munge/client.ts), medians;
 * - `squeue_loopback_ms` (the anchor) and `squeue_munge_ms`: a whole `squeue` on an empty queue
 *   against two local clusters started here, one per AuthType, runs interleaved so that both see
 *   the same load; `munge_over_loopback_ms` is the difference of the medians.
 * A private munged (own socket, key, pid, log, seed) is started and stopped here; the system's
 * munged is never touched. Usage: bun bench/auth-munge.ts [--runs 31] [--bin dist/spur]
 */
import { spawnSync } from "node:child_process";
import { appendFileSync, chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { mungeDecode, mungeEncode } from "../src/net/munge/client.ts";

const args = process.argv.slice(2);
const at = (name: string): string | undefined => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const RUNS = Number(at("--runs") ?? "31");
const BIN = resolve(at("--bin") ?? join(import.meta.dir, "../dist/spur"));
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const emit = (metric: string, value: number, unit: string, extra: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(3)), unit, ...extra }));

const dir = mkdtempSync(join(tmpdir(), "spur-bench-munge-"));
const sock = join(dir, "munge.sock");
chmodSync(dir, 0o755); // munged wants its socket directory reachable by all
writeFileSync(join(dir, "key"), randomBytes(1024), { mode: 0o600 });
const started = spawnSync("munged", [`--socket=${sock}`, `--key-file=${join(dir, "key")}`, `--pid-file=${join(dir, "pid")}`,
  `--log-file=${join(dir, "log")}`, `--seed-file=${join(dir, "seed")}`], { encoding: "utf8" });
if (started.status !== 0) throw new Error(`munged: ${started.stderr}`);

function up(name: string, confExtra: string): string {
  const state = join(dir, name);
  const r = spawnSync(BIN, ["up", "--detach", "--state-dir", state, "--nodes", "1"], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`spur up: ${r.stderr}`);
  if (confExtra !== "") {
    spawnSync(BIN, ["down", "--state-dir", state]);
    appendFileSync(join(state, "spur.conf"), confExtra);
    const again = spawnSync(BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8" });
    if (again.status !== 0) throw new Error(`spur up: ${again.stderr}`);
  }
  return join(state, "spur.conf");
}

function timeSqueue(conf: string): number {
  const t0 = performance.now();
  const r = spawnSync(BIN, [], { argv0: "squeue", env: { ...process.env, SPUR_CONF: conf }, encoding: "utf8" });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`squeue: ${r.stderr}`);
  return ms;
}

try {
  const enc: number[] = [];
  const decMs: number[] = [];
  for (let i = 0; i < RUNS * 10; i++) {
    const t0 = performance.now();
    const e = await mungeEncode({ socketPath: sock });
    const t1 = performance.now();
    if (!e.ok) throw new Error(e.error.message);
    const d = await mungeDecode(e.value.credential, sock);
    const t2 = performance.now();
    if (!d.ok || d.value.errorNum !== 0) throw new Error("decode failed");
    enc.push((t1 - t0) * 1000);
    decMs.push((t2 - t1) * 1000);
  }
  emit("munge_encode_us", median(enc), "us", { runs: enc.length });
  emit("munge_decode_us", median(decMs), "us", { runs: decMs.length });
  const loop = up("loopback", "");
  const munge = up("munge", `AuthType=auth/munge\nAuthInfo=socket=${sock}\n`);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    a.push(timeSqueue(loop));
    b.push(timeSqueue(munge));
  }
  emit("squeue_loopback_ms", median(a), "ms", { anchor: true, runs: RUNS });
  emit("squeue_munge_ms", median(b), "ms", { runs: RUNS });
  emit("munge_over_loopback_ms", median(b) - median(a), "ms", { runs: RUNS, note: "2 shared cores, other sessions running" });
} finally {
  for (const name of ["loopback", "munge"]) spawnSync(BIN, ["down", "--state-dir", join(dir, name)]);
  try {
    process.kill(Number(readFileSync(join(dir, "pid"), "utf8")), "SIGTERM");
  } catch {
    /* not started */
  }
  rmSync(dir, { recursive: true, force: true });
}
