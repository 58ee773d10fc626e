/**
 * End-to-end: jobs contained in cgroups on this host (v1 here, v2 where the
 * host offers it): memory limit → OUT_OF_MEMORY 0:125, a job sees only its
 * cores and only its (fake) GPUs' device files, double-forked daemons die with
 * the job or step, usage in sacct matches what the job measured itself, sstat
 * shows running steps, and the cgroups are gone after the cluster stops.
 * Skips (saying why) only where spurd reports it cannot write cgroups.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { startCluster, eventually, jobState, jobEnded, type Cluster } from "./cluster.ts";
import { spoolTag } from "../../src/agent/containment.ts";

let c: Cluster;
let containment = "";
let gpuDir = "";
const GPUS = 4;
/** Char major 242 is in Linux's "local/experimental" range: no driver, so an allowed open fails with ENXIO, a denied one with EPERM. */
const FAKE_MAJOR = 242;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000", "--gpus-per-node", String(GPUS), "--gpu-model", "fake"], {
    beforeUp(state, dir) {
      gpuDir = join(dir, "dev");
      spawnSync("mkdir", ["-p", gpuDir]);
      for (let i = 0; i < GPUS; i++) spawnSync("mknod", ["-m", "666", join(gpuDir, `fakegpu${i}`), "c", String(FAKE_MAJOR), String(i)]);
      const gres = `Name=gpu Type=fake File=${gpuDir}/fakegpu[0-${GPUS - 1}]\n`;
      spawnSync("sh", ["-c", `cat > ${state}/gres.conf`], { input: gres });
    },
  });
  const show = c.run(["scontrol", "-d", "show", "node", "n1"]);
  containment = /Containment=(\S+)/.exec(show.stdout)?.[1] ?? "none";
  if (!containment.startsWith("cgroup/")) {
    const log = readFileSync(join(c.dir, "cluster", "log", "n1.log"), "utf8");
    console.warn(`containment tests skipped: spurd reports ${/job containment: ([^"]*)/.exec(log)?.[1] ?? containment}`);
  }
}, 120_000);

afterAll(() => c?.down());

const contained = () => containment.startsWith("cgroup/");

function submit(args: string[]): string {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

const ended = (id: string) => jobEnded(c, id, 60_000);

const output = (id: string) => readFileSync(join(c.work, `slurm-${id}.out`), "utf8");

/** Alive and not a zombie (an orphan's zombie is reaped by init, maybe not at once). */
function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

const gone = (pids: number[], what: string) => eventually(what, () => (pids.every((p) => !running(p)) ? true : undefined), 30_000);

describe("job containment", () => {
  it("says how it contains jobs in scontrol -d show node and spurd --discover", () => {
    expect(containment).toMatch(/^(cgroup\/v1|cgroup\/v2|none)/);
    // spur up wrote a cgroup.conf that switches every constraint on.
    if (contained()) expect(c.run(["scontrol", "-d", "show", "node", "n1"]).stdout).toContain(" Constrained=ConstrainCores,ConstrainRAMSpace(100%),ConstrainSwapSpace(+0%),ConstrainDevices\n");
    const discover = c.run(["spurd", "--discover"]);
    expect(discover.stdout).toMatch(/^Job containment: (cgroup\/v1|cgroup\/v2|none)/m);
  });

  it("ends a job over its --mem as OUT_OF_MEMORY with 0:125 and says so in its stderr", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("oom.sh", "#!/bin/bash\nperl -e '$x = \"a\" x (300*1024*1024); sleep 1;'\necho after\n");
    const id = submit(["--mem=100M", "oom.sh"]);
    expect(await ended(id)).toBe("OUT_OF_MEMORY");
    const acct = c.run(["sacct", "-j", id, "-P", "-n", "-o", "JobID,State,ExitCode"]).stdout;
    expect(acct).toContain(`${id}|OUT_OF_MEMORY|0:125`);
    expect(acct).toContain(`${id}.batch|OUT_OF_MEMORY|0:125`);
    expect(output(id)).toContain(`error: Detected 1 oom_kill event in StepId=${id}.batch. Some of the step tasks have been OOM Killed.`);
    expect(c.run(["squeue", "-h", "-t", "all", "-j", id, "-o", "%t %r"]).stdout.trim()).toBe("OOM OutOfMemory");
  });

  it("turns --mem, --mem-per-cpu and --mem-per-gpu into the job's hard limit", async (ctx) => {
    if (!containment.startsWith("cgroup/v1")) ctx.skip(); // reads v1 file names
    c.write("limit.sh", "#!/bin/bash\np=$(grep ':memory:' /proc/self/cgroup | cut -d: -f3)\ncat /sys/fs/cgroup/memory$p/../memory.limit_in_bytes\n");
    const cases: [string[], number][] = [[["--mem=300M"], 300], [["-c", "2", "--mem-per-cpu=100M"], 200], [["--gres=gpu:2", "--mem-per-gpu=150M"], 300]];
    for (const [args, mib] of cases) {
      const id = submit([...args, "limit.sh"]);
      await ended(id);
      expect(output(id).trim(), args.join(" ")).toBe(String(mib * 1024 * 1024));
    }
  });

  it("gives a job exactly its cores", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("cores.sh", "#!/bin/bash\necho nproc=$(nproc)\ngrep Cpus_allowed_list /proc/self/status\n");
    const one = submit(["-c", "1", "cores.sh"]);
    const two = submit(["-c", "2", "cores.sh"]);
    await ended(one);
    await ended(two);
    expect(output(one)).toMatch(/^nproc=1\nCpus_allowed_list:\s+\d+\n$/);
    const want = Math.min(2, availableParallelism());
    expect(output(two)).toContain(`nproc=${want}\n`);
  });

  it("contains a job to the CPU ids the controller chose (scontrol -d show job CPU_IDs); two jobs on one node get disjoint ones", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("ids.sh", "#!/bin/bash\necho nproc=$(nproc)\ngrep Cpus_allowed_list /proc/self/status\nsleep 4\n");
    const a = submit(["-w", "n2", "-c", "1", "ids.sh"]);
    const b = submit(["-w", "n2", "-c", "1", "ids.sh"]);
    const cpuIds = (id: string) =>
      eventually(`job ${id} CPU_IDs`, () => /Nodes=n2 CPU_IDs=(\S+) Mem=\d+ GRES=/.exec(c.run(["scontrol", "-d", "show", "job", id]).stdout)?.[1], 60_000);
    const [idsA, idsB] = [await cpuIds(a), await cpuIds(b)];
    expect([idsA, idsB].sort()).toEqual(["0", "1"]); // both running at once on n2's two CPUs: disjoint
    await ended(a);
    await ended(b);
    // Configured CPU i runs on host CPU i mod (host CPUs): with two host CPUs, the ids themselves.
    const host = (id: string) => (availableParallelism() >= 2 ? id : "0");
    expect(output(a)).toBe(`nproc=1\nCpus_allowed_list:\t${host(idsA)}\n`);
    expect(output(b)).toBe(`nproc=1\nCpus_allowed_list:\t${host(idsB)}\n`);
  });

  it("lets a job open only its own GPUs' device files, numbered from 0", async (ctx) => {
    if (!contained() || containment.startsWith("cgroup/v2")) ctx.skip(); // v2 device programs are not loaded yet
    const probe = Array.from({ length: GPUS }, (_, i) => `echo "gpu${i}: $(head -c1 ${gpuDir}/fakegpu${i} 2>&1 | sed 's/.*: //')"`).join("\n");
    c.write("gpus.sh", `#!/bin/bash\necho "job=$SLURM_JOB_GPUS visible=$CUDA_VISIBLE_DEVICES"\n${probe}\n`);
    const id = submit(["--gres=gpu:2", "gpus.sh"]);
    await ended(id);
    const out = output(id);
    const given = /job=([\d,]+) visible=([\d,]+)/.exec(out);
    expect(given?.[2]).toBe("0,1");
    const mine = (given?.[1] ?? "").split(",").map(Number);
    expect(mine).toHaveLength(2);
    for (let i = 0; i < GPUS; i++) {
      const line = new RegExp(`^gpu${i}: (.*)$`, "m").exec(out)?.[1];
      expect(line, `gpu${i}`).toBe(mine.includes(i) ? "No such device or address" : "Operation not permitted");
    }
  });

  it("kills double-forked daemons when the job is cancelled, and when the script ends", async (ctx) => {
    if (!contained()) ctx.skip();
    const daemons = "setsid sleep 1000 & echo $! > pids.$SLURM_JOB_ID\n(sleep 1000 & echo $! >> pids.$SLURM_JOB_ID) &\nnohup sleep 1000 >/dev/null 2>&1 & echo $! >> pids.$SLURM_JOB_ID\n";
    c.write("escape.sh", `#!/bin/bash\n${daemons}sleep 1000\n`);
    const cancelled = submit(["escape.sh"]);
    const pidsOf = (id: string) =>
      eventually(`pids of ${id}`, () => {
        const f = join(c.work, `pids.${id}`);
        const pids = existsSync(f) ? readFileSync(f, "utf8").trim().split("\n").filter(Boolean).map(Number) : [];
        return pids.length === 3 ? pids : undefined;
      });
    const p1 = await pidsOf(cancelled);
    expect(p1.every(running)).toBe(true);
    expect(c.run(["scancel", cancelled]).code).toBe(0);
    await gone(p1, "cancelled job's daemons gone");
    expect(await ended(cancelled)).toBe("CANCELLED");

    c.write("leave.sh", `#!/bin/bash\n${daemons}sleep 1\n`);
    const left = submit(["leave.sh"]);
    const p2 = await pidsOf(left);
    expect(await ended(left)).toBe("COMPLETED");
    await gone(p2, "ended job's daemons gone");
  });

  it("delivers scancel --signal to every process of the job, double-forked ones too", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("usr1.sh", "#!/bin/bash\nsetsid bash -c 'trap \"echo got > usr1.$SLURM_JOB_ID; exit\" USR1; touch ready.$SLURM_JOB_ID; while :; do sleep 0.2; done' &\ntrap '' USR1\nsleep 30\n");
    const id = submit(["usr1.sh"]);
    await eventually("daemon ready", () => (existsSync(join(c.work, `ready.${id}`)) ? true : undefined));
    expect(c.run(["scancel", "--signal=USR1", id]).code).toBe(0);
    await eventually("daemon got USR1", () => (existsSync(join(c.work, `usr1.${id}`)) ? true : undefined));
    c.run(["scancel", id]);
    await ended(id);
  });

  it("kills what an srun step leaves behind when the step ends, while the job goes on", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("step.sh", "#!/bin/bash\nsrun bash -c 'setsid sleep 1000 & echo $! > steppid.$SLURM_JOB_ID'\necho step-done\nsleep 2\n");
    const id = submit(["step.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const pid = Number(readFileSync(join(c.work, `steppid.${id}`), "utf8"));
    expect(output(id)).toContain("step-done");
    await gone([pid], "the step's daemon gone");
  });

  it("records MaxRSS and TotalCPU in sacct within 10% of what the job measured itself", async (ctx) => {
    if (!contained()) ctx.skip();
    // A fixed amount of work (about 2 s of CPU here), so that process start-up is small beside it.
    const perl = "perl -e '$x = \"a\" x (150*1024*1024); open(F, \"/proc/self/status\"); while (<F>) { print if /VmHWM/ } $i = 0; $i++ while $i < 8e7;'";
    c.write("usage.sh", `#!/bin/bash\n${perl}\ntimes\n`);
    const id = submit(["--mem=1000M", "usage.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const out = output(id);
    const hwmKib = Number(/VmHWM:\s+(\d+) kB/.exec(out)?.[1]);
    const secs = [...out.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0);
    const row = c.run(["sacct", "-j", `${id}.batch`, "-P", "-n", "-o", "MaxRSS,TotalCPU,UserCPU,SystemCPU"]).stdout.trim().split("|");
    const maxRssKib = kib(row[0] ?? "");
    const totalSec = cpuSec(row[1] ?? "");
    expect(hwmKib).toBeGreaterThan(150 * 1024);
    expect(Math.abs(maxRssKib - hwmKib) / hwmKib, `MaxRSS ${row[0]} vs VmHWM ${hwmKib}K`).toBeLessThan(0.1);
    expect(Math.abs(totalSec - secs) / secs, `TotalCPU ${row[1]} vs times ${secs}s`).toBeLessThan(0.1);
    expect(cpuSec(row[2] ?? "") + cpuSec(row[3] ?? "")).toBeCloseTo(totalSec, 1);
  });

  it("records per-task usage of an srun step in sacct: MaxRSSTask, MaxVMSizeTask, MinCPU and MinCPUTask name the task", async (ctx) => {
    if (!contained()) ctx.skip();
    // Task 1 holds 60 MiB and sleeps; task 0 spins for its CPU: task 1 has the most memory and the least CPU.
    c.write("tasks.sh", [
      "#!/bin/bash",
      `srun -n2 bash -c 'if [ "$SLURM_PROCID" = 1 ]; then perl -e "\\$x = \\"a\\" x (60*1024*1024); sleep 5"; else timeout 5 sh -c "while :; do :; done"; fi; true'`,
      "",
    ].join("\n"));
    const id = submit(["-w", "n1", "-n2", "tasks.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const row = await eventually("step usage recorded", () => {
      const r = c.run(["sacct", "-j", `${id}.0`, "-P", "-n", "-o", "MaxRSS,MaxRSSNode,MaxRSSTask,MaxVMSizeTask,MinCPU,MinCPUNode,MinCPUTask,AveCPU"]).stdout.trim();
      return r !== "" && !r.startsWith("|") ? r.split("|") : undefined;
    });
    const [maxRss, rssNode, rssTask, vmTask, minCpu, cpuNode, cpuTask, aveCpu] = row;
    expect(kib(maxRss ?? "")).toBeGreaterThan(60 * 1024);
    expect([rssNode, rssTask, vmTask, cpuNode, cpuTask]).toEqual(["n1", "1", "1", "n1", "1"]);
    expect(cpuSec(minCpu ?? "")).toBeLessThan(2); // the sleeping task's, not the node's
    expect(cpuSec(aveCpu ?? "")).toBeGreaterThan(cpuSec(minCpu ?? ""));
  });

  it("shows running steps in sstat: the batch step and an srun step", async (ctx) => {
    if (!contained()) ctx.skip();
    c.write("long.sh", "#!/bin/bash\nsrun sleep 30\n");
    const id = submit(["long.sh"]);
    const line = await eventually("sstat shows step 0", () => {
      const r = c.run(["sstat", "-j", id, "-P", "-n", "-o", "JobID,NTasks,MaxRSS"]);
      return r.stdout.startsWith(`${id}.0|`) ? r.stdout.trim() : undefined;
    });
    expect(line).toMatch(new RegExp(`^${id}\\.0\\|1\\|\\d+K$`));
    const all = c.run(["sstat", "-a", "-j", id, "-P", "-n", "-o", "JobID"]).stdout.trim().split("\n");
    expect(all).toEqual([`${id}.batch`, `${id}.0`]);
    const head = c.run(["sstat", "-j", `${id}.batch`, "-o", "JobID,MaxRSS"]).stdout.split("\n");
    expect(head[0]).toMatch(/^JobID\s+MaxRSS $/);
    c.run(["scancel", id]);
    await ended(id);
    const after = c.run(["sstat", "-j", id]);
    expect(after.stderr).toBe(`sstat: error: No steps running for job ${id}\n`);
  });

  it("binds srun tasks to their own CPUs and says so in SLURM_CPU_BIND*", async (ctx) => {
    if (!contained() || availableParallelism() < 2) ctx.skip();
    c.write("bind.sh", "#!/bin/bash\n#SBATCH -n2\nsrun --cpu-bind=verbose,cores bash -c 'echo \"$SLURM_LOCALID $(grep Cpus_allowed_list /proc/self/status | cut -f2) $SLURM_CPU_BIND\"' | sort\nsrun --cpu-bind=none bash -c 'nproc' | sort\n");
    const id = submit(["bind.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const all = output(id).trim().split("\n");
    expect(all.filter((l) => l.startsWith("cpu-bind=MASK - "))).toHaveLength(2); // verbose, on the tasks' stderr
    const lines = all.filter((l) => !l.startsWith("cpu-bind="));
    const [a, b] = [lines[0] ?? "", lines[1] ?? ""].map((l) => l.split(" "));
    expect(new Set([a?.[1], b?.[1]]).size).toBe(2); // each task on its own CPU
    expect(a?.[2]).toMatch(/^verbose,mask_cpu:0x[0-9A-F]+,0x[0-9A-F]+$/);
    expect(lines.slice(2)).toEqual(["2", "2"]);
    expect(all.join("\n")).not.toContain("error");
  });

  it("kills and removes orphaned step cgroups when spurd restarts", async (ctx) => {
    if (!containment.startsWith("cgroup/v1")) ctx.skip();
    const spoolRoot = /^SlurmdSpoolDir=(.*)$/m.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
    const tag = spoolTag(join(spoolRoot.replace("%n", "n1"), "n1"));
    const own = /^\d+:freezer:(.*)$/m.exec(readFileSync(`/proc/${c.pid("spurd-n1")}/cgroup`, "utf8"))?.[1] ?? "/";
    const orphan = join("/sys/fs/cgroup/freezer", own, `spur_${tag}`, "job_999999", "step_0");
    mkdirSync(orphan, { recursive: true });
    const sleeper = spawn("sleep", ["1000"], { detached: true, stdio: "ignore" });
    sleeper.unref();
    writeFileSync(join(orphan, "cgroup.procs"), String(sleeper.pid));
    process.kill(c.pid("spurd-n1"), "SIGKILL");
    c.startDaemon("spurd-n1", ["spurd", "-N", "n1", "--conf", c.conf]);
    await gone([sleeper.pid ?? 0], "the orphan's process gone");
    await eventually("orphan cgroup removed", () => (existsSync(dirname(orphan)) ? undefined : true));
  });

  it("enforces only what cgroup.conf switches on (spur.conf keys win): no memory limit, no cpuset without them", async (ctx) => {
    if (!containment.startsWith("cgroup/v1")) ctx.skip(); // reads v1 file names
    c.reconfigure("ConstrainCores=no\nConstrainRAMSpace=no\n");
    await eventually("n1 back", () => (c.run(["sinfo", "-h", "-n", "n1", "-o", "%t"]).stdout.trim() === "idle" ? true : undefined), 60_000);
    // The restarted spurd re-registers with its new switches a moment after the node shows idle.
    await eventually("n1 re-registered with the switches off", () =>
      c.run(["scontrol", "-d", "show", "node", "n1"]).stdout.includes(" Constrained=ConstrainSwapSpace(+0%),ConstrainDevices\n") ? true : undefined, 60_000);
    c.write("free.sh", "#!/bin/bash\np=$(grep ':memory:' /proc/self/cgroup | cut -d: -f3)\ncat /sys/fs/cgroup/memory$p/../memory.limit_in_bytes\nnproc\n");
    const id = submit(["-w", "n1", "-c", "1", "--mem=100M", "free.sh"]);
    expect(await ended(id)).toBe("COMPLETED");
    const [limit, nproc] = output(id).trim().split("\n");
    expect(Number(limit)).toBeGreaterThan(100 * 1024 * 1024);
    expect(nproc).toBe(String(availableParallelism()));
  });

  it("rejects sstat without a job", () => {
    const r = c.run(["sstat"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^sstat: error: /);
  });
});

describe("after the cluster stops", () => {
  it("leaves no cgroup of its spurds behind", (ctx) => {
    if (!contained()) ctx.skip();
    const conf = readFileSync(c.conf, "utf8");
    const spoolRoot = /^SlurmdSpoolDir=(.*)$/m.exec(conf)?.[1] ?? "";
    c.down();
    const tags = ["n1", "n2"].map((n) => `spur_${spoolTag(join(spoolRoot.replace("%n", n), n))}`);
    const roots = ["/sys/fs/cgroup"];
    const found: string[] = [];
    const walk = (d: string, depth: number) => {
      if (depth > 5 || !existsSync(d)) return;
      for (const e of readdirSync(d, { withFileTypes: true })) {
        if (!e.isDirectory()) continue;
        if (tags.includes(e.name)) found.push(join(d, e.name));
        else if (!e.name.startsWith("spur_")) walk(join(d, e.name), depth + 1);
      }
    };
    for (const r of roots) walk(r, 0);
    expect(found).toEqual([]);
  });
});

function kib(text: string): number {
  const m = /^([\d.]+)([KMGT]?)$/.exec(text);
  if (m === null) return Number.NaN;
  const scale = { "": 1 / 1024, K: 1, M: 1024, G: 1024 ** 2, T: 1024 ** 3 }[m[2] as "" | "K"];
  return Number(m[1]) * scale;
}

/** sacct CPU time: [DD-][HH:]MM:SS[.mmm]. */
function cpuSec(text: string): number {
  const [days, rest] = text.includes("-") ? text.split("-") : ["0", text];
  const parts = (rest ?? "").split(":").map(Number);
  while (parts.length < 3) parts.unshift(0);
  return Number(days) * 86400 + (parts[0] ?? 0) * 3600 + (parts[1] ?? 0) * 60 + (parts[2] ?? 0);
}
