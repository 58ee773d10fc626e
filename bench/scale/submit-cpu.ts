/**
 * @module bench/scale/submit-cpu
 * The controller's CPU per acknowledged Submit and the acknowledged rate, at 8 and 64 in
 * flight, for one or more builds side by side (issue 16): each build gets a cluster of its
 * own (single controller, or 3 replicas with SUBMIT_CPU_REPLICAS=3), and the rounds alternate
 * between them so that the shared machine's load falls on all alike. CPU is the serving
 * controller's utime+stime from /proc/PID/stat (the pid Ping names) over the round; `all` adds
 * every controller's and this client's own CPU (what the whole submission costs the machine:
 * on 2 cores, 2000 ms / all-ms-per-submit bounds the rate); `each` splits it by process (the
 * servers in order, then the client).
 * Usage: bun bench/scale/submit-cpu.ts [BIN ...] (a compiled binary or a tree's src/main.ts; default dist/spur)
 * Env: SUBMIT_CPU_SECONDS (3) per point, SUBMIT_CPU_ROUNDS (3), SUBMIT_CPU_REPLICAS (1);
 * SUBMIT_CPU_WARM_S (0): seconds of submissions at 64 in flight to every target before the rounds
 * (a controller's JIT compiles its submission path for about a minute: the rounds of a fresh
 * cluster carry that warm-up, a long-running one does not; etcd is warmed the same way);
 * SUBMIT_CPU_ETCD=1 adds the anchor, a 3-member etcd's 1 KB puts from the same client, in the
 * same rounds (bench/scale/etcd-anchor.ts), with its members' CPU in `all`;
 * SUBMIT_CPU_NODES (0): add a partition of this many configured nodes (never started: what a
 * submission's checks walk at a large site) and submit to it.
 */
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { BIN, drive, leaderOf, post, submitTo, up, type Cluster } from "./replica-cluster.ts";
import { etcdPut, startEtcd, type Etcd } from "./etcd-anchor.ts";
import { cpuMs } from "./lib/spur-cluster.ts";

const SECONDS = Number(process.env.SUBMIT_CPU_SECONDS ?? 3);
const ROUNDS = Number(process.env.SUBMIT_CPU_ROUNDS ?? 3);
const REPLICAS = Number(process.env.SUBMIT_CPU_REPLICAS ?? 1);
const IN_FLIGHT = (process.env.SUBMIT_CPU_IN_FLIGHT ?? "8,64").split(",").map(Number);
const BIG_NODES = Number(process.env.SUBMIT_CPU_NODES ?? 0);
const BIG_CONF = BIG_NODES > 0 ? [`NodeName=big[1-${BIG_NODES}] CPUs=64 RealMemory=256000`, `PartitionName=big Nodes=big[1-${BIG_NODES}] MaxTime=INFINITE`] : [];


const bins = process.argv.slice(2);
const builds = bins.length > 0 ? bins.map((b) => resolve(b)) : [BIN];
/** What a round drives: `pid` the serving process (undefined: not known, as for etcd), `pids` every server process. */
interface Target {
  name: string;
  pid: number | undefined;
  pids: number[];
  call: () => Promise<boolean>;
  down(): Promise<void> | void;
}
const targets: Target[] = [];

/**
 * The big partition: its lines go into spur.conf while the cluster is down, and the controllers
 * alone are started again (`spur up` would start an agent per NodeName line, and a reconfigure
 * refuses a changed node count, as Slurm's does).
 */
function addNodes(c: Cluster, bin: string): Cluster {
  const conf = join(c.dir, "spur.conf");
  const exe = bin.endsWith(".ts") ? [process.execPath, bin] : [bin];
  const down = spawnSync(exe[0] as string, [...exe.slice(1), "down", "--state-dir", c.dir], { encoding: "utf8" });
  if (down.status !== 0) throw new Error(`spur down: ${down.stdout}${down.stderr}`);
  writeFileSync(conf, `${readFileSync(conf, "utf8")}${BIG_CONF.join("\n")}\n`);
  const ids = [...c.urls.keys()];
  const procs = ids.map((id) => Bun.spawn(c.urls.size > 1 ? [...exe, "spurctld", "--id", String(id), "--conf", conf] : [...exe, "spurctld", "--conf", conf], {
    stdout: Bun.file(join(c.dir, `bench-ctld-${id}.log`)), stderr: "inherit",
  }));
  return {
    ...c,
    down() {
      for (const p of procs) p.kill();
      c.down();
    },
  };
}

const clientCpuMs = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const pidOf = async (url: string) => ((await (await post(url, "Ping", {})).json()) as { pid: number }).pid;
try {
  for (const bin of builds) {
    const c: Cluster = BIG_CONF.length > 0 ? addNodes(up(REPLICAS, [], bin), bin) : up(REPLICAS, [], bin);
    targets.push({ name: bin, pid: undefined, pids: [], call: async () => false, down: () => c.down() });
    const url = c.urls.get(await leaderOf(c)) as string;
    const target = targets[targets.length - 1] as Target;
    Object.assign(target, { pid: await pidOf(url), pids: await Promise.all([...c.urls.values()].map(pidOf)), call: () => submitTo(url, 5000, BIG_NODES > 0 ? "big" : "") });
    await drive(8, 1, target.call);
  }
  if (process.env.SUBMIT_CPU_ETCD === "1") {
    const etcd: Etcd | undefined = await startEtcd();
    if (etcd === undefined) console.error("etcd: /usr/bin/etcd missing (apt-get install etcd-server); anchor skipped");
    else {
      targets.push({ name: "etcd (3 members, 1 KB puts)", pid: undefined, pids: etcd.pids, call: () => etcdPut(etcd.leaderUrl), down: () => etcd.stop() });
      await drive(8, 1, () => etcdPut(etcd.leaderUrl));
    }
  }
  const warmS = Number(process.env.SUBMIT_CPU_WARM_S ?? 0);
  if (warmS > 0) for (const k of targets) await drive(64, warmS, k.call);
  const results = new Map<string, { rate: number[]; cpu: number[]; all: number[] }>();
  for (let r = 0; r < ROUNDS; r++) {
    for (const n of IN_FLIGHT) {
      for (const k of targets) {
        const allCpu = () => k.pids.reduce((sum, p) => sum + cpuMs(p), clientCpuMs());
        const before = k.pid === undefined ? 0 : cpuMs(k.pid);
        const allBefore = allCpu();
        const eachBefore = [...k.pids.map(cpuMs), clientCpuMs()];
        const load = await drive(n, SECONDS, k.call);
        const each = [...k.pids.map(cpuMs), clientCpuMs()].map((v, i) => v - (eachBefore[i] ?? 0));
        const cpu = k.pid === undefined ? Number.NaN : cpuMs(k.pid) - before;
        const all = allCpu() - allBefore;
        const key = `${k.name} @${n}`;
        const e = results.get(key) ?? { rate: [], cpu: [], all: [] };
        e.rate.push(load.ok / load.seconds);
        e.cpu.push(load.ok > 0 ? cpu / load.ok : 0);
        e.all.push(load.ok > 0 ? all / load.ok : 0);
        results.set(key, e);
        const ms = (x: number) => (Number.isNaN(x) ? null : Number((x / Math.max(1, load.ok)).toFixed(3)));
        console.log(JSON.stringify({ round: r, target: k.name, pid: k.pid ?? null, in_flight: n, replicas: REPLICAS, nodes: BIG_NODES || 1, warm_s: warmS, ok: load.ok, failed: load.failed, per_s: Math.round(load.ok / load.seconds), cpu_ms_per_submit: ms(cpu), all_cpu_ms_per_submit: ms(all), each_ms_per_submit: each.map(ms) }));
      }
    }
  }
  const med = (xs: number[]) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  for (const [key, e] of results) console.log(`${key}: median ${Math.round(med(e.rate))}/s, ${med(e.cpu).toFixed(3)} ms CPU/call on the serving process, ${med(e.all).toFixed(3)} ms all servers + client (replicas ${REPLICAS})`);
} finally {
  for (const k of targets) await k.down();
}
