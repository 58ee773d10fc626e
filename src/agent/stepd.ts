/**
 * @module agent/stepd
 * Supervises one batch script (`spur stepd JOBDIR`, started detached by spurd so
 * it outlives spurd restarts): opens the output files as the user, starts the
 * script in its own session as the submitting user (setpriv when running as
 * root), forwards termination as Slurm does (SIGCONT + SIGTERM to the whole
 * process group, SIGKILL after KillWait), and records the exit in status.json.
 * With a cgroup plan in launch.json the script joins the job's cgroup before it
 * execs; termination then reaches every process in the cgroup (double-forked
 * daemons too), the script's end kills whatever is left, and the batch step's
 * usage and OOM kills are read from the cgroup before it is removed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";
import { constants } from "node:os";
import { join } from "node:path";
import { readJson, writeJson, type LaunchFile, type StatusFile } from "./spool.ts";
import { spawnAsUser, type UserProcess } from "./run-as.ts";
import { openFailureLine, umaskOf, type OpenFailure, type UserLaunch } from "./user-launch.ts";
import { setUpCgroup, joinCommand, killTree, listPids, removeTrees, signalPids } from "./cgroup/fs.ts";
import { emptySampler, nodeUsage, readCounters, sample } from "./cgroup/usage.ts";
import { adminScriptEnv, runAdminScript, taskWrapCommand } from "./prolog.ts";
import { batchContainer, type BatchContainer } from "./container/batch.ts";
import { spawnRelayed } from "./container/batch-io.ts";
import { runtimeExit } from "./container/launch.ts";
import { wantsLoginEnv, withLoginEnv } from "./login-env.ts";
import { captureLoginEnv } from "./login-env-run.ts";

/** The script's launch as its user: its files, work directory, umask and environment (user-launch.ts). */
function userLaunch(launch: LaunchFile, append: boolean): UserLaunch {
  return {
    uid: launch.uid, gid: launch.gid, workDir: launch.workDir, node: launch.node ?? "", umask: umaskOf(launch.env), env: launch.env,
    stdio: { out: launch.stdOut, err: launch.stdErr || launch.stdOut, in: launch.stdIn, append },
  };
}

/** Exit status as Slurm records a batch step whose files could not be opened (the oracle: FAILED, 0:53). */
const IO_SETUP_FAILED = { exitCode: 0, exitSignal: 53 } as const;

/**
 * A line of spurd's for the job's stderr (cgroup or container problems, OOM kills), written by the
 * user's shell into the job's own error file (never opened by root); always appended.
 */
async function noteAsUser(l: UserLaunch, text: string, append: boolean): Promise<void> {
  const note: UserLaunch = { ...l, workDir: "/", env: {}, stdio: { ...(l.stdio as NonNullable<UserLaunch["stdio"]>), append, in: "" } };
  const p = spawnAsUser(note, ["/bin/sh", "-c", 'printf "%s" "$1" >&2', "spur-note", text], ["ignore", "ignore", "ignore"]);
  await new Promise<void>((resolve) => {
    p.child.once("error", () => resolve());
    p.child.once("exit", () => resolve());
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    /* the group is already gone */
  }
}

export async function runStepd(dir: string): Promise<number> {
  const launch = readJson<LaunchFile>(join(dir, "launch.json"));
  if (launch === undefined) return 1;
  const scripts = launch.scripts;
  if (scripts?.prolog && launch.facts) {
    const r = await runAdminScript(scripts.prolog, adminScriptEnv(launch.facts, "prolog_slurmd"), scripts.timeoutSec);
    if (!r.ok) {
      const message = `Prolog ${scripts.prolog} failed: ${r.why}`;
      writeStatus(dir, { exitCode: 1, exitSignal: 0, outcome: "PROLOG_FAILED", endTime: Date.now() / 1000, message });
      return 1;
    }
  }
  // --get-user-env / --export=NONE: the user's login environment under the job's, read now, on the node
  if (wantsLoginEnv(launch.env)) launch.env = withLoginEnv(launch.env, await captureLoginEnv(launch.user));
  const append = launch.openMode === "append";
  const asUser = userLaunch(launch, append);
  const cg = launch.cgroup;
  if (cg !== undefined) {
    const problem = await setUpCgroup(cg);
    if (problem !== "") {
      await noteAsUser(asUser, `spurd: error: job ${launch.jobId}: ${problem}\n`, append);
      removeTrees(cg.jobDirs);
      writeStatus(dir, { exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", endTime: Date.now() / 1000, message: problem });
      return 1;
    }
  }
  let box: BatchContainer | undefined;
  if (launch.container !== undefined) {
    const r = await batchContainer(launch, dir);
    if (typeof r === "string") {
      // Like a script that could not run: the job FAILED with exit code 1 and the reason in its stderr.
      await noteAsUser(asUser, r, append);
      if (cg !== undefined) removeTrees(cg.jobDirs);
      writeStatus(dir, { exitCode: 1, exitSignal: 0, outcome: "", endTime: Date.now() / 1000, message: r.trim() });
      return 1;
    }
    box = r;
  }
  const prefix = (argv: string[]): string[] => (cg === undefined ? argv : joinCommand(cg.procs, argv));
  let child: ChildProcess;
  let opened: Promise<OpenFailure | undefined>;
  let drained = async (): Promise<void> => undefined;
  if (box === undefined) {
    const scriptArgv = taskWrapCommand(scripts?.taskProlog ?? "", scripts?.taskEpilog ?? "", [join(dir, "script"), ...launch.argv]);
    const p: UserProcess = spawnAsUser(asUser, scriptArgv, ["ignore", "inherit", "inherit"], prefix);
    child = p.child;
    opened = p.opened;
  } else {
    const started = await spawnRelayed(asUser, box.argv, prefix);
    if ("reason" in started) {
      await box.release();
      if (cg !== undefined) removeTrees(cg.jobDirs);
      return ioSetupFailed(dir, started);
    }
    child = started.child;
    drained = started.drained;
    opened = Promise.resolve(undefined);
  }
  const exited = new Promise<StatusFile>((resolve) => {
    child.once("error", (error) =>
      resolve({ exitCode: 1, exitSignal: 0, outcome: "LAUNCH_FAILED", endTime: Date.now() / 1000, message: String(error) }),
    );
    child.once("exit", (code, signal) =>
      resolve({
        exitCode: code ?? 0, exitSignal: signal ? (constants.signals[signal] ?? 0) : 0, outcome: "",
        endTime: Date.now() / 1000, message: "",
      }),
    );
  });
  const pgid = child.pid ?? 0;
  writeFileSync(join(dir, "child.pid"), String(pgid));
  const sampler = emptySampler();
  const sampling =
    cg === undefined
      ? undefined
      : setInterval(() => {
          sample(sampler, cg.stepTrackDir);
          writeJson(join(dir, "samples.json"), sampler);
        }, Math.max(1, launch.sampleSec ?? 2) * 1000);
  let terminating = false;
  process.on("SIGTERM", () => {
    if (terminating || pgid === 0) return;
    terminating = true;
    signalGroup(pgid, "SIGCONT");
    signalGroup(pgid, "SIGTERM");
    if (cg !== undefined) signalPids(listPids(cg.trackDir), "SIGCONT");
    if (cg !== undefined) signalPids(listPids(cg.trackDir), "SIGTERM");
    setTimeout(() => {
      signalGroup(pgid, "SIGKILL");
      if (cg !== undefined) void killTree(cg.kill, cg.trackDir);
    }, Math.max(1, launch.killWaitSec) * 1000).unref();
  });
  const failure = await opened;
  if (failure !== undefined) {
    // The user's shell could not open a file and has exited: Slurm's stepd fails the launch (no script ran).
    await exited;
    if (sampling !== undefined) clearInterval(sampling);
    if (cg !== undefined) {
      await killTree(cg.kill, cg.trackDir);
      removeTrees(cg.jobDirs);
    }
    return ioSetupFailed(dir, failure);
  }
  let status = await exited;
  if (sampling !== undefined) clearInterval(sampling);
  if (box !== undefined) {
    status = { ...status, ...runtimeExit(status.exitCode, status.exitSignal) };
  }
  // The script is done: nothing it started may outlive it (Slurm kills the job's processes).
  if (pgid !== 0) signalGroup(pgid, "SIGKILL");
  await drained();
  if (cg !== undefined) status = await endCgroup(cg, launch, sampler, status, (text) => noteAsUser(asUser, text, true), box?.oomKills() ?? 0);
  if (box !== undefined) await box.release();
  if (scripts?.epilog && launch.facts) {
    // After every process of the job is gone (Slurm's order); a failure drains the node, the job's state stands.
    const r = await runAdminScript(scripts.epilog, adminScriptEnv(launch.facts, "epilog_slurmd"), scripts.timeoutSec);
    if (!r.ok) status = { ...status, drainReason: "Epilog error", message: `${status.message} Epilog ${scripts.epilog} failed: ${r.why}`.trim() };
  }
  writeStatus(dir, status);
  return 0;
}

/** Kill what is left in the job's cgroup, read its usage and OOM kills, remove it. */
async function endCgroup(
  cg: NonNullable<LaunchFile["cgroup"]>, launch: LaunchFile, sampler: ReturnType<typeof emptySampler>, status: StatusFile,
  note: (text: string) => Promise<void>, containerOomKills = 0,
): Promise<StatusFile> {
  const left = await killTree(cg.kill, cg.trackDir);
  const read = readCounters(cg.stats);
  // A container's OOM kills count in its own cgroup below the step (v1): see container/launch.
  const counters = { ...read, oomKills: Math.max(read.oomKills, containerOomKills) };
  const usage = nodeUsage(counters, sampler, launch.node ?? "", 1);
  const leftDirs = removeTrees(cg.jobDirs);
  const out: StatusFile = { ...status, usage };
  if (left > 0 || leftDirs.length > 0) out.message = `${left} processes survived the kill; cgroups left: ${leftDirs.join(" ")}`;
  if (counters.oomKills > 0 && status.outcome === "") {
    const events = counters.oomKills === 1 ? "1 oom_kill event" : `${counters.oomKills} oom_kill events`;
    await note(`spurd: error: Detected ${events} in StepId=${launch.jobId}.batch. Some of the step tasks have been OOM Killed.\n`);
    // Slurm records an OOM-killed step as exit 0, signal 125 (its internal OOM status 253).
    return { ...out, exitCode: 0, exitSignal: 125, outcome: "OUT_OF_MEMORY" };
  }
  return out;
}

/** A file the user may not open: logged as Slurm's stepd does, the job FAILED as the oracle records it. */
function ioSetupFailed(dir: string, failure: OpenFailure): number {
  const line = openFailureLine(failure);
  process.stderr.write(`${line}\n`);
  writeStatus(dir, { ...IO_SETUP_FAILED, outcome: "", endTime: Date.now() / 1000, message: line });
  return 1;
}

function writeStatus(dir: string, status: StatusFile): void {
  const reason = readJson<{ reason: string }>(join(dir, "end-reason.json"));
  writeJson(join(dir, "status.json"), reason?.reason ? { ...status, outcome: reason.reason } : status);
}
