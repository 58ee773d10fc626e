/**
 * @module bench/multihost
 * Multi-host figures (issue 18), one JSON object per line, each beside its anchor measured
 * in the same run on the same machine:
 *  - cli_squeue_ms / cli_sbatch_ms: per-call latency (p50) of the real CLI on the login host
 *    of `spur up --netns`, per AuthType (auth/spur: one credential from the login host's
 *    `spur authd` per controller call; auth/munge, where munged is installed: one from the
 *    login host's munged), anchor: the same commands on one host under auth/loopback;
 *  - credential_ms: one credential from the local daemon, in process (p50 of 200), per AuthType;
 *  - submits_per_s: `sbatch --hold` processes completed per second from the login host with
 *    --concurrency loops, anchor: the same on one host;
 *  - failover_ms: SIGKILL of every process of the leader controller's host to the first
 *    `sbatch --hold` acknowledged from the login host (a new CLI process per try; CLI
 *    start-up included), anchor: cli_sbatch_ms.
 * Both clusters have 3 controllers and 2 nodes. Usage: bun bench/multihost.ts [--calls 15]
 * [--concurrency 4] [--seconds 3]. Needs root, ip(8), nsenter(1) and dist/spur.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const opt = (name: string, dflt: string): string => (args.includes(name) ? args[args.indexOf(name) + 1] ?? dflt : dflt);
const BIN = resolve(import.meta.dir, "../dist/spur");
const CLIENT = resolve(import.meta.dir, "multihost-client.ts");
const clientArgs = ["--calls", opt("--calls", "15"), "--concurrency", opt("--concurrency", "4"), "--seconds", opt("--seconds", "3")];
const conditions = () => ({ load1: Number((loadavg()[0] ?? 0).toFixed(2)), cpus: navigator.hardwareConcurrency });

const r2 = (x: number): number => Number(x.toFixed(2));

function emit(metric: string, value: number | undefined, unit: string, extra: Record<string, unknown> = {}): void {
  if (value === undefined) return;
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(2)), unit, ...extra, ...conditions() }));
}

function must(r: ReturnType<typeof spawnSync>, what: string): string {
  if (r.status !== 0) throw new Error(`${what}: ${r.stderr?.toString() ?? ""}${r.stdout?.toString() ?? ""}`);
  return r.stdout?.toString() ?? "";
}

interface Host { name: string; netns: string }

function enter(dir: string, h: Host): string[] {
  return ["nsenter", `--net=/run/netns/${h.netns}`, `--uts=${join(dir, "hosts", h.name, "uts")}`, `--mount=${join(dir, "hosts", h.name, "mnt")}`, "--"];
}

const HAVE_MUNGED = spawnSync("sh", ["-c", "command -v munged"]).status === 0;
const netnsDir = mkdtempSync("/tmp/spur-bench-mh-");
const oneDir = mkdtempSync("/tmp/spur-bench-1h-");
chmodSync(netnsDir, 0o755);
const mungeDir = HAVE_MUNGED ? mkdtempSync("/tmp/spur-bench-mm-") : undefined;
if (mungeDir !== undefined) chmodSync(mungeDir, 0o755);
try {
  must(spawnSync(BIN, ["up", "--netns", "--detach", "--state-dir", netnsDir, "--nodes", "2", "--controllers", "3", "--login"]), "spur up --netns");
  must(spawnSync(BIN, ["up", "--detach", "--state-dir", oneDir, "--nodes", "2", "--controllers", "3"]), "spur up");
  if (mungeDir !== undefined) must(spawnSync(BIN, ["up", "--netns", "--detach", "--auth", "munge", "--state-dir", mungeDir, "--nodes", "2", "--controllers", "3", "--login"]), "spur up --netns --auth munge");
  const hostsOf = (dir: string) => (JSON.parse(readFileSync(join(dir, "netns.json"), "utf8")) as { hosts: Host[] }).hosts;
  const hosts = hostsOf(netnsDir);
  const login = hosts.find((h) => h.name === "login") as Host;
  const netnsEnv = { ...process.env, SPUR_CONF: join(netnsDir, "spur.conf") };
  const client = (prefix: string[], env: NodeJS.ProcessEnv, extra: string[]) =>
    JSON.parse(must(spawnSync(prefix[0] ?? process.execPath, [...prefix.slice(1), process.execPath, CLIENT, BIN, ...clientArgs, ...extra], { env, encoding: "utf8" }), "client"));
  const one = client(["env"], { ...process.env, SPUR_CONF: join(oneDir, "spur.conf") }, []);
  const anchor = (value: number) => ({ auth: "auth/loopback", where: "one host", value: r2(value) });
  const report = (auth: string, m: { squeue_ms: number; sbatch_ms: number; credential_ms?: number; submits_per_s: number }) => {
    const where = "login host of spur up --netns";
    emit("cli_squeue_ms", m.squeue_ms, "ms", { auth, where, anchor: anchor(one.squeue_ms) });
    emit("cli_sbatch_ms", m.sbatch_ms, "ms", { auth, where, anchor: anchor(one.sbatch_ms) });
    emit("credential_ms", m.credential_ms, "ms", { auth, what: "one credential from the login host's vouching daemon (spur authd / munged), in process (p50 of 200)" });
    emit("submits_per_s", m.submits_per_s, "1/s", { auth, where, concurrency: Number(opt("--concurrency", "4")), anchor: anchor(one.submits_per_s) });
  };
  const multi = client(enter(netnsDir, login), netnsEnv, ["--socket", join(netnsDir, "hosts", "login", "auth.sock")]);
  report("auth/spur", multi);
  if (mungeDir !== undefined) {
    const mLogin = hostsOf(mungeDir).find((h) => h.name === "login") as Host;
    report("auth/munge", client(enter(mungeDir, mLogin), { ...process.env, SPUR_CONF: join(mungeDir, "spur.conf") }, ["--munge"]));
  }
  // failover: kill every process of the leader's host, then submit from the login host until one is acknowledged
  const ping = must(spawnSync(enter(netnsDir, login)[0] as string, [...enter(netnsDir, login).slice(1), BIN, "scontrol", "ping"], { env: netnsEnv, encoding: "utf8" }), "scontrol ping");
  const leaderId = /Raft id=(\d+) role=leader/.exec(ping)?.[1];
  const leader = hosts.find((h) => h.name === `c${leaderId}`) as Host;
  const pids = spawnSync("ip", ["netns", "pids", leader.netns], { encoding: "utf8" }).stdout.trim().split("\n").filter((p) => p !== "").map(Number);
  const t0 = performance.now();
  for (const pid of pids) process.kill(pid, "SIGKILL");
  let ok = false;
  while (!ok && performance.now() - t0 < 30_000) {
    ok = spawnSync(enter(netnsDir, login)[0] as string, [...enter(netnsDir, login).slice(1), BIN, "sbatch", "--hold", "--wrap", "true"], { env: netnsEnv, stdio: "ignore" }).status === 0;
  }
  emit("failover_ms", ok ? performance.now() - t0 : undefined, "ms", { what: "leader host's processes killed to the first acknowledged sbatch from the login host (CLI start-up included)", anchor: { metric: "cli_sbatch_ms", value: r2(multi.sbatch_ms) } });
} finally {
  spawnSync(BIN, ["down", "--state-dir", netnsDir]);
  spawnSync(BIN, ["down", "--state-dir", oneDir]);
  if (mungeDir !== undefined) {
    spawnSync(BIN, ["down", "--state-dir", mungeDir]);
    rmSync(mungeDir, { recursive: true, force: true });
  }
  rmSync(netnsDir, { recursive: true, force: true });
  rmSync(oneDir, { recursive: true, force: true });
}
