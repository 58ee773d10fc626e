/**
 * @module tests/conformance/side
 * One target of the comparison ("slurm": the real 22.05 oracle, "spur": a Spur
 * cluster of the same shape): how to run a bash command on it, with the same
 * clean environment on both sides, in its job directory, with a time limit.
 * A command that outlives its limit is killed (its own process group only).
 */
import { spawn } from "node:child_process";
import type { SideContext } from "./mask-engine.ts";
import type { Capture } from "./normalise.ts";

export type SideName = "slurm" | "spur";

export interface Side {
  name: SideName;
  ctx: SideContext;
  /** Environment every command starts from (PATH decides whose sbatch runs). */
  env: Record<string, string>;
  /** Values saved by scenario steps (`as: "ARR"`), set as shell variables for later commands. */
  vars: Record<string, string>;
}

/** Shell helpers every command can call: wait for job states, accounting records, an idle cluster. */
export const PRELUDE = String.raw`
job_state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | head -1 | cut -d= -f2; }
wait_state() {
  local end=$((SECONDS + ${"${3:-30}"}))
  until [[ "$(job_state "$1")" =~ ^($2)$ ]]; do
    ((SECONDS < end)) || { echo "timeout waiting for job $1 state $2 (is $(job_state "$1"))" >&2; return 1; }
    sleep 0.2
  done
}
wait_sacct() {
  local id end=$((SECONDS + 30))
  for id in "$@"; do
    until sacct -n -X -P -j "$id" -o State 2>/dev/null | grep -qvE '^$|PENDING|RUNNING|REQUEUED|SUSPENDED'; do
      ((SECONDS < end)) || { echo "timeout waiting for sacct of $id" >&2; return 1; }
      sleep 0.3
    done
  done
}
wait_idle() {
  local end=$((SECONDS + 60))
  until [[ -z "$(squeue -h -o %i 2>/dev/null)" && "$(sinfo -h -o %t 2>/dev/null | sort -u)" == idle ]]; do
    ((SECONDS < end)) || { echo "timeout waiting for an idle cluster" >&2; return 1; }
    sleep 0.3
  done
}
wait_node_idle() {  # one node idle: nothing running or completing there (the rest of the cluster may be busy)
  local end=$((SECONDS + 60))
  until [[ "$(sinfo -h -n "$1" -o %t 2>/dev/null)" == idle ]]; do
    ((SECONDS < end)) || { echo "timeout waiting for $1 to be idle" >&2; return 1; }
    sleep 0.3
  done
}
wait_sacct_running() {
  local id end=$((SECONDS + 30))
  for id in "$@"; do
    until sacct -n -X -P -j "$id" -o State 2>/dev/null | grep -q RUNNING; do
      ((SECONDS < end)) || { echo "timeout waiting for sacct to show $id running" >&2; return 1; }
      sleep 0.3
    done
  done
}
wait_sacct_quiet() {
  local end=$((SECONDS + 30))
  while sacct -a -n -X -P -S "$T0" -o State 2>/dev/null | grep -qE 'PENDING|RUNNING|REQUEUED'; do
    ((SECONDS < end)) || return 0
    sleep 0.3
  done
}
`;

/** Variables a clean command environment must not inherit (they change what Slurm commands do). */
const INHERITED = /^(SLURM|SBATCH|SALLOC|SRUN|SQUEUE|SINFO|SACCT|SCONTROL|SCANCEL|SPUR)_|^(SLURM_CONF|SPUR_CONF)$/;

/** The process environment without Slurm/Spur variables, with the C locale. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !INHERITED.test(k) && !k.startsWith("VITEST")) out[k] = v;
  return { ...out, LC_ALL: "C", ...extra };
}

export interface RunOptions {
  timeoutMs?: number;
  stdin?: string;
}

/** Run `cmd` with bash -c in the side's work dir; stdin is /dev/null unless given. */
export function runOn(side: Side, cmd: string, opts: RunOptions = {}): Promise<Capture> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  return new Promise((resolve) => {
    // saved values become shell variables, not environment: jobs must not inherit them
    const assigns = Object.entries(side.vars).map(([k, v]) => `${k}='${v.replace(/'/g, "'\\''")}'`).join("\n");
    const child = spawn("bash", ["-c", `${PRELUDE}\n${assigns}\n${cmd}`], {
      cwd: side.ctx.workDir,
      env: side.env,
      detached: true,
      stdio: [opts.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on("data", (b: Buffer) => out.push(b));
    child.stderr?.on("data", (b: Buffer) => err.push(b));
    if (opts.stdin !== undefined) child.stdin?.end(opts.stdin);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, "SIGKILL");
        } catch {
          /* already gone */
        }
      }
    }, timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString("utf8") + (timedOut ? `[conformance: killed after ${timeoutMs} ms]\n` : "");
      resolve({ code: code ?? (signal ? 128 + 9 : -1), stdout: Buffer.concat(out).toString("utf8"), stderr });
    });
  });
}
