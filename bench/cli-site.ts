/**
 * @module bench/cli-site
 * What a big site's files cost each user command (issue 16): many sites keep their users in
 * /etc/passwd and /etc/group (synced from a directory service), tens of thousands of lines, and
 * a spur.conf may list every node on a line of its own. The commands run in a private mount
 * namespace where /etc/passwd and /etc/group hold USERS generated users besides the machine's
 * own (bind mounts: nothing outside changes), with SPUR_CONF naming a copy of the cluster's
 * spur.conf that adds CONF_NODES NodeName= lines (the controller reads its own), against a
 * local cluster of this build and, with --base PATH, the same commands of an older build
 * against a cluster of its own, interleaved run by run. With --slurm, real Slurm's squeue in
 * the same namespace (the shared oracle as it is; its client reads the bigger files too).
 * Prints {metric: "<cmd>_site_ms", value: median wall ms, cpu_ms, users, conf_nodes, system}
 * per command. Needs root (unshare -m, mount --bind).
 * Usage: bun bench/cli-site.ts [--users 50000] [--conf-nodes 10000] [--runs 15] [--base PATH] [--slurm]
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const USERS = Number(opt("--users") ?? 50_000);
const RUNS = Number(opt("--runs") ?? 15);
const CONF_NODES = Number(opt("--conf-nodes") ?? 10_000);
const BIN = resolve(opt("--bin") ?? join(import.meta.dir, "../dist/spur"));
const BASE = opt("--base") === undefined ? undefined : resolve(opt("--base") as string);

/** Inside the namespace: time every command, interleaved, and print the medians. */
function inner(plan: { label: string; system: string; argv: string[]; env: Record<string, string> }[]): void {
  const wall = new Map<string, number[]>();
  const cpu = new Map<string, number[]>();
  for (let i = 0; i < RUNS; i++) {
    for (const p of plan) {
      const t0 = performance.now();
      const r = Bun.spawnSync(p.argv, { env: { ...process.env, ...p.env }, stdout: "ignore", stderr: "pipe" });
      const ms = performance.now() - t0;
      if (r.exitCode !== 0) throw new Error(`${p.argv.join(" ")} failed (${r.exitCode}): ${r.stderr.toString()}`);
      const key = `${p.system}\t${p.label}`;
      wall.set(key, [...(wall.get(key) ?? []), ms]);
      cpu.set(key, [...(cpu.get(key) ?? []), Number(r.resourceUsage?.cpuTime.total ?? NaN) / 1000]);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  for (const [key, xs] of wall) {
    const [system, label] = key.split("\t") as [string, string];
    console.log(JSON.stringify({ metric: `${label}_site_ms`, value: Number(median(xs).toFixed(2)), unit: "ms", system, users: USERS, conf_nodes: CONF_NODES, runs: RUNS, cpu_ms: Number(median(cpu.get(key) ?? []).toFixed(2)) }));
  }
}

if (args[0] === "--inner") {
  inner(JSON.parse(readFileSync(args[1] as string, "utf8")));
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), "spur-bench-site-"));
const lines = (n: number, make: (i: number) => string) => Array.from({ length: n }, (_, i) => make(i + 1)).join("\n");
writeFileSync(join(dir, "passwd"), `${readFileSync("/etc/passwd", "utf8").trimEnd()}\n${lines(USERS, (i) => `user${i}:x:${20000 + i}:${20000 + i}:User ${i},,,:/home/user${i}:/bin/bash`)}\n`);
writeFileSync(join(dir, "group"), `${readFileSync("/etc/group", "utf8").trimEnd()}\n${lines(USERS, (i) => `user${i}:x:${20000 + i}:`)}\n`);

const clusters: { system: string; bin: string; state: string }[] = [{ system: "spur", bin: BIN, state: join(dir, "cluster") }];
if (BASE !== undefined) clusters.push({ system: "spur-base", bin: BASE, state: join(dir, "cluster-base") });
const plan: { label: string; system: string; argv: string[]; env: Record<string, string> }[] = [];
try {
  for (const c of clusters) {
    const up = spawnSync(c.bin, ["up", "--detach", "--state-dir", c.state, "--nodes", "1"], { encoding: "utf8" });
    if (up.status !== 0) throw new Error(up.stderr);
    const conf = join(c.state, "spur-site.conf");
    const nodeLine = (i: number) => `NodeName=site${i} NodeAddr=10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255} CPUs=128 Sockets=2 CoresPerSocket=64 ThreadsPerCore=1 RealMemory=512000 Gres=gpu:8 Feature=a100,ib`;
    writeFileSync(conf, `${readFileSync(join(c.state, "spur.conf"), "utf8").trimEnd()}\n${lines(CONF_NODES, nodeLine)}\n`);
    const env = { SPUR_CONF: conf };
    plan.push(
      { label: "squeue", system: c.system, argv: [c.bin, "squeue"], env },
      { label: "sbatch", system: c.system, argv: [c.bin, "sbatch", "--hold", "--wrap=true"], env },
      { label: "scancel", system: c.system, argv: [c.bin, "scancel", "999999"], env },
      { label: "squeue_me", system: c.system, argv: [c.bin, "squeue", "--me"], env },
    );
  }
  if (args.includes("--slurm") && spawnSync("/usr/bin/sinfo", ["-h"]).status === 0) plan.push({ label: "squeue", system: "slurm", argv: ["/usr/bin/squeue"], env: {} });
  writeFileSync(join(dir, "plan.json"), JSON.stringify(plan));
  const script = `mount --bind ${dir}/passwd /etc/passwd && mount --bind ${dir}/group /etc/group && exec "${process.execPath}" "${import.meta.path}" --inner "${dir}/plan.json" ${args.join(" ")}`;
  const r = spawnSync("unshare", ["-m", "sh", "-c", script], { stdio: "inherit" });
  if (r.status !== 0) process.exitCode = 1;
} finally {
  for (const c of clusters) spawnSync(c.bin, ["down", "--state-dir", c.state]);
}
