/**
 * @module agent/prolog
 * Site scripts around a job on its node, as Slurm runs them: Prolog before the
 * batch script and Epilog after the job's processes are gone (as root, with
 * the job's SLURM_* variables, SLURM_SCRIPT_CONTEXT=prolog_slurmd/epilog_slurmd,
 * no search path, a time limit), and TaskProlog/TaskEpilog around each task as
 * the job's user: TaskProlog's standard output lines `export NAME=value`,
 * `unset NAME` and `print TEXT` change the task's environment or print to its
 * output. Failure policy: a failing Prolog drains the node and requeues the job
 * held (the controller applies it); a failing Epilog drains the node; a failing
 * TaskProlog fails the task without running it.
 */
import { spawn } from "node:child_process";
import { shellQuote as quote } from "../lib/shell-quote.ts";

export interface SiteScripts {
  prolog: string;
  epilog: string;
  taskProlog: string;
  taskEpilog: string;
  /** PrologEpilogTimeout; 0 = none. */
  timeoutSec: number;
}

export const NO_SCRIPTS: SiteScripts = { prolog: "", epilog: "", taskProlog: "", taskEpilog: "", timeoutSec: 0 };

export interface ScriptResult {
  ok: boolean;
  /** "exit code 3", "signal SIGKILL", "timed out after 10 s", "cannot run: ENOENT". */
  why: string;
}

/** Run an admin script (Prolog/Epilog) with exactly `env` (no inherited PATH, as Slurm). */
export function runAdminScript(path: string, env: Record<string, string>, timeoutSec: number): Promise<ScriptResult> {
  return new Promise((resolve) => {
    const child = spawn(path, [], { env, stdio: "ignore", detached: true });
    let timedOut = false;
    const timer =
      timeoutSec > 0
        ? setTimeout(() => {
            timedOut = true;
            try {
              process.kill(-(child.pid ?? 0), "SIGKILL");
            } catch {
              /* gone */
            }
          }, timeoutSec * 1000)
        : undefined;
    child.once("error", (e) => {
      if (timer) clearTimeout(timer);
      resolve({ ok: false, why: `cannot run: ${(e as NodeJS.ErrnoException).code ?? e.message}` });
    });
    child.once("exit", (code, signal) => {
      if (timer) clearTimeout(timer);
      if (timedOut) resolve({ ok: false, why: `timed out after ${timeoutSec} s` });
      else if (signal) resolve({ ok: false, why: `signal ${signal}` });
      else resolve({ ok: code === 0, why: `exit code ${code ?? 0}` });
    });
  });
}

export interface JobFacts {
  jobId: number;
  user: string;
  uid: number;
  gid: number;
  partition: string;
  nodelist: string;
  account: string;
  name: string;
  clusterName: string;
  node: string;
  gpuIndices: readonly number[];
  workDir: string;
}

/** The environment of Prolog/Epilog (Slurm's prolog/epilog variables that Spur knows). */
export function adminScriptEnv(j: JobFacts, context: "prolog_slurmd" | "epilog_slurmd"): Record<string, string> {
  const env: Record<string, string> = {
    SLURM_SCRIPT_CONTEXT: context, SLURM_JOB_ID: String(j.jobId), SLURM_JOBID: String(j.jobId), SLURM_JOB_USER: j.user,
    SLURM_JOB_UID: String(j.uid), SLURM_JOB_GID: String(j.gid), SLURM_JOB_PARTITION: j.partition, SLURM_JOB_NODELIST: j.nodelist,
    SLURM_JOB_ACCOUNT: j.account, SLURM_JOB_NAME: j.name, SLURM_CLUSTER_NAME: j.clusterName, SLURMD_NODENAME: j.node,
    SLURM_JOB_WORK_DIR: j.workDir,
  };
  if (j.gpuIndices.length > 0) {
    const list = [...j.gpuIndices].sort((a, b) => a - b).join(",");
    Object.assign(env, { SLURM_JOB_GPUS: list, CUDA_VISIBLE_DEVICES: list, ROCR_VISIBLE_DEVICES: list, GPU_DEVICE_ORDINAL: list });
  }
  return env;
}


/**
 * argv → argv run through a /bin/sh that first runs TaskProlog (applying its export/unset/print
 * lines) and, when a TaskEpilog is set, runs it after the task and keeps the task's exit status.
 * Runs as the job's user (the caller puts it after setpriv). Without scripts, argv unchanged.
 */
export function taskWrapCommand(taskProlog: string, taskEpilog: string, argv: readonly string[]): string[] {
  if (taskProlog === "" && taskEpilog === "") return [...argv];
  const lines: string[] = [];
  if (taskProlog !== "") {
    lines.push(
      `out=$(SLURM_SCRIPT_CONTEXT=prolog_task ${quote(taskProlog)}) || { echo "spurd: error: TaskProlog failed" >&2; exit 1; }`,
      'while IFS= read -r line; do case "$line" in',
      '  "export "*) kv=${line#export }; export "$kv";;',
      '  "unset "*) unset "${line#unset }";;',
      "  \"print \"*) printf '%s\\n' \"${line#print }\";;",
      "esac; done <<SPUR_TASK_PROLOG_END",
      "$out",
      "SPUR_TASK_PROLOG_END",
    );
  }
  if (taskEpilog === "") lines.push('exec "$@"');
  else lines.push('"$@"', "rc=$?", `SLURM_SCRIPT_CONTEXT=epilog_task ${quote(taskEpilog)} >/dev/null 2>&1`, "exit $rc");
  return ["/bin/sh", "-c", lines.join("\n"), "spur-task", ...argv];
}
