/**
 * @module agent/cgroup/fs
 * The thin applier of a cgroup plan: creates the directories, writes the
 * limits, wraps a command so that it joins the step before it execs (no
 * process of a job ever starts outside its cgroup), signals and kills every
 * process of a job or step (freezer on v1 so nothing forks while it is being
 * killed, cgroup.kill on v2) and removes the directories, deepest first.
 * Failure policy: setup errors are returned as text (the caller decides to
 * fail the launch); teardown is best effort and reports what it left.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CgroupPlan } from "./plan.ts";
import { attachDeviceFilter } from "./device-bpf.ts";
import { shellQuote as quote } from "../../lib/shell-quote.ts";

/** Perform the plan's mkdirs and writes. Returns "" or what failed, in Slurm's wording family. */
export function applyPlan(plan: CgroupPlan): string {
  for (const dir of plan.mkdirs) {
    try {
      mkdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") return `cannot create cgroup ${dir}: ${errText(error)}`;
    }
  }
  for (const w of plan.writes) {
    try {
      writeFileSync(w.path, w.value);
    } catch (error) {
      return `cannot write ${w.value} to ${w.path}: ${errText(error)}`;
    }
  }
  return "";
}

/** The plan's directories and limits, and on v2 its device filter. Returns "" or what failed. */
export async function setUpCgroup(plan: CgroupPlan): Promise<string> {
  const problem = applyPlan(plan);
  if (problem !== "" || plan.deviceFilter === undefined) return problem;
  return attachDeviceFilter(plan.deviceFilter.dir, plan.deviceFilter.deny);
}

function errText(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}


/**
 * argv → a /bin/sh command that writes its own pid into every `procs` file and then execs argv,
 * so the job's first process (and all it forks) is inside the cgroup before the user's code runs.
 */
export function joinCommand(procs: readonly string[], argv: readonly string[]): string[] {
  if (procs.length === 0) return [...argv];
  const joins = procs.map((p) => `echo $$ > ${quote(p)}`).join(" && ");
  const script = `${joins} || { echo "spurd: error: cannot join the job's cgroup" >&2; exit 1; }; exec "$@"`;
  return ["/bin/sh", "-c", script, "spur-task", ...argv];
}

/** Every cgroup directory at and below `dir`, deepest first. */
export function subtree(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string, depth: number): void => {
    if (depth > 16) return;
    let entries: string[] = [];
    try {
      entries = readdirSync(d, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      return;
    }
    for (const name of entries) walk(join(d, name), depth + 1);
    out.push(d);
  };
  walk(dir, 0);
  return out;
}

/** Pids in `dir` and every cgroup below it. */
export function listPids(dir: string): number[] {
  const pids: number[] = [];
  for (const d of subtree(dir)) {
    try {
      for (const line of readFileSync(join(d, "cgroup.procs"), "utf8").split("\n")) if (line !== "") pids.push(Number(line));
    } catch {
      /* removed meanwhile */
    }
  }
  return pids;
}

export function signalPids(pids: readonly number[], signal: NodeJS.Signals | number): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      /* already gone */
    }
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Kill every process of the cgroup `plan.kill.dir` (and below) and wait until none is left
 * (at most `waitMs`). Returns the number of processes still there (0 = clean).
 */
export async function killTree(kill: CgroupPlan["kill"], trackDir: string, waitMs = 5000): Promise<number> {
  if (!existsSync(trackDir)) return 0;
  if (kill.kind === "cgroup.kill" && existsSync(join(kill.dir, "cgroup.kill"))) {
    try {
      writeFileSync(join(kill.dir, "cgroup.kill"), "1");
    } catch {
      /* fall back to signals below */
    }
  }
  const freezer = kill.kind === "freezer" ? join(kill.dir, "freezer.state") : "";
  const deadline = Date.now() + waitMs;
  for (let round = 0; ; round++) {
    const pids = listPids(trackDir);
    if (pids.length === 0) return 0;
    if (Date.now() > deadline) return pids.length;
    // Freeze so that nothing forks between listing and killing, kill, thaw so the kills land.
    if (freezer !== "") tryWrite(freezer, "FROZEN");
    signalPids(listPids(trackDir), "SIGKILL");
    if (freezer !== "") tryWrite(freezer, "THAWED");
    await sleep(Math.min(50, 2 + round * 5));
  }
}

function tryWrite(path: string, value: string): void {
  try {
    writeFileSync(path, value);
  } catch {
    /* the cgroup is gone */
  }
}

/**
 * Remove these cgroup directories and everything below them, deepest first. Returns those left.
 * `onlyEmpty`: remove just these directories, and only if nothing is below them (a job's
 * directory after one of its steps: other steps, or the batch script, may still run there).
 */
export function removeTrees(dirs: readonly string[], onlyEmpty = false): string[] {
  const left: string[] = [];
  for (const dir of dirs) {
    for (const d of onlyEmpty ? [dir] : subtree(dir)) {
      try {
        rmdirSync(d);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code !== "ENOENT" && !(onlyEmpty && (code === "EBUSY" || code === "ENOTEMPTY"))) left.push(d);
      }
    }
  }
  return left;
}
