/**
 * @module bench/launch
 * What job containment adds to a job's launch and end, one JSON object per
 * line: creating a job's cgroups and writing its limits (the plan applied),
 * starting its first process through the join wrapper compared with a plain
 * start, and tearing down (freezer kill of whatever is left, counters read,
 * directories removed). Uses the real planner and applier on this host's
 * layout under a throwaway spur_<tag> root, removed at the end.
 * Usage: bun bench/launch.ts [--jobs 200]   (root, writable cgroups)
 */
import { spawn } from "node:child_process";
import { loadavg } from "node:os";
import { detectCgroups, removeSpurRoots } from "../src/agent/cgroup/detect.ts";
import { planStep } from "../src/agent/cgroup/plan.ts";
import { applyPlan, joinCommand, killTree, removeTrees } from "../src/agent/cgroup/fs.ts";
import { readCounters } from "../src/agent/cgroup/usage.ts";
import { formatCpuList } from "../src/lib/cpu-list.ts";

const args = process.argv.slice(2);
const JOBS = Number(args[args.indexOf("--jobs") + 1] ?? 0) || 200;

function emit(metric: string, value: number, unit: string, extra: Record<string, unknown> = {}): void {
  console.log(JSON.stringify({ metric, value: Number(value.toFixed(3)), unit, ...extra }));
}

const percentile = (xs: number[], p: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

function run(argv: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const [cmd, ...rest] = argv;
    const child = spawn(cmd ?? "true", rest, { stdio: "ignore" });
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve() : reject(new Error(`${argv.join(" ")} exited ${code}`))));
  });
}

async function main(): Promise<number> {
  const support = detectCgroups(`bench${process.pid}`);
  if (support.layout === undefined) {
    emit("cgroup_available", 0, "bool", { why: support.summary });
    return 0;
  }
  const layout = support.layout;
  const conditions = { layout: support.summary, jobs: JOBS, hostCpus: support.hostCpus.length, loadAvg1m: Number(loadavg()[0]?.toFixed(2)) };
  const setup: number[] = [];
  const teardown: number[] = [];
  const joined: number[] = [];
  const plain: number[] = [];
  for (let i = 1; i <= JOBS; i++) {
    const plan = planStep(layout, {
      tag: support.tag, jobId: i, step: "batch", memBytes: 256 << 20, cpus: formatCpuList(support.hostCpus.slice(0, 1)),
      hostCpus: formatCpuList(support.hostCpus), hostMems: support.hostMems, denyDevices: [{ kind: "c", major: 242, minor: 0 }],
      memsw: support.memsw,
    });
    let t0 = performance.now();
    const problem = applyPlan(plan);
    setup.push(performance.now() - t0);
    if (problem !== "") throw new Error(problem);
    t0 = performance.now();
    await run(joinCommand(plan.procs, ["/bin/true"]));
    joined.push(performance.now() - t0);
    t0 = performance.now();
    await run(["/bin/true"]);
    plain.push(performance.now() - t0);
    t0 = performance.now();
    await killTree(plan.kill, plan.trackDir);
    readCounters(plan.stats);
    const left = removeTrees(plan.jobDirs);
    teardown.push(performance.now() - t0);
    if (left.length > 0) throw new Error(`left ${left.join(" ")}`);
  }
  removeSpurRoots(support);
  const total = setup.map((s, i) => s + (teardown[i] ?? 0) + (joined[i] ?? 0) - (plain[i] ?? 0));
  emit("cgroup_setup_ms_p50", percentile(setup, 50), "ms", conditions);
  emit("cgroup_setup_ms_p99", percentile(setup, 99), "ms", conditions);
  emit("cgroup_teardown_ms_p50", percentile(teardown, 50), "ms", conditions);
  emit("cgroup_teardown_ms_p99", percentile(teardown, 99), "ms", conditions);
  emit("join_wrapper_extra_ms_p50", percentile(joined, 50) - percentile(plain, 50), "ms", conditions);
  emit("containment_overhead_per_job_ms_p50", percentile(total, 50), "ms", { ...conditions, target: "< 20" });
  emit("containment_overhead_per_job_ms_p99", percentile(total, 99), "ms", { ...conditions, target: "< 20" });
  return 0;
}

process.exit(await main());
