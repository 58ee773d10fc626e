/**
 * @module ctld/trigger-run
 * The shell half of strigger: the view of the state the pure due check reads
 * (sched/model/triggers.ts), and running a fired trigger's program on the
 * controller host as Slurm does: the program's own words, then the event's
 * argument (job id or node hostlist) as the last argument, as the trigger's
 * owner (through setpriv when the controller is root), in its own process
 * group, the controller's environment, killed with its group after 5 minutes.
 * Failure policy: a program that cannot run or fails is logged; it is not retried.
 */
import { spawn } from "node:child_process";
import type { ConsolaInstance } from "consola/core";
import type { ClusterState } from "../sched/model/types.ts";
import type { TriggerRecord } from "../sched/model/trigger-types.ts";
import type { TriggerView } from "../sched/model/triggers.ts";
import { triggerJobFacts } from "../sched/model/apply.ts";
import { compressHostlist, expandHostlist } from "../compat/hostlist.ts";

/** Slurm kills a trigger program still running after 5 minutes. */
export const TRIGGER_PROGRAM_TIMEOUT_MS = 5 * 60 * 1000;

export function triggerView(state: ClusterState): TriggerView {
  return {
    job: (id) => triggerJobFacts(state.jobs.get(id)),
    idleSince: (name) => {
      const n = state.nodes.get(name);
      if (n === undefined || n.down || n.info.state !== "IDLE") return undefined;
      return n.info.lastBusyTime;
    },
    nodeNames: () => [...state.nodes.keys()],
    compress: (names) => compressHostlist([...names]),
    expand: (h) => {
      const r = expandHostlist(h);
      return r.ok ? r.value : [];
    },
  };
}

/** The argv a trigger runs: its program's words (split at spaces, as Slurm) and the event's argument. */
export const triggerArgv = (program: string, arg: string): string[] => [...program.split(" ").filter(Boolean), arg];

/** Run a fired trigger's program (not awaited by the controller). */
export function runTriggerProgram(trigger: TriggerRecord, arg: string, logger: ConsolaInstance): void {
  const argv = triggerArgv(trigger.program, arg);
  const self = process.getuid?.() ?? 0;
  let cmd = argv;
  if (trigger.uid !== self) {
    if (self !== 0) {
      logger.warn({ message: "trigger program not run: it belongs to another user and spurctld is not root", triggerId: trigger.id, uid: trigger.uid });
      return;
    }
    cmd = ["setpriv", `--reuid=${trigger.uid}`, `--regid=${trigger.gid}`, "--init-groups", "--", ...argv];
  }
  const child = spawn(cmd[0] as string, cmd.slice(1), { stdio: "ignore", detached: true });
  const timer = setTimeout(() => {
    try {
      process.kill(-(child.pid ?? 0), "SIGKILL");
    } catch {
      /* already gone */
    }
  }, TRIGGER_PROGRAM_TIMEOUT_MS);
  child.once("error", (e) => {
    clearTimeout(timer);
    logger.warn({ message: `trigger program cannot run: ${e.message}`, triggerId: trigger.id, program: trigger.program });
  });
  child.once("exit", (code, signal) => {
    clearTimeout(timer);
    if (code !== 0) logger.warn({ message: "trigger program failed", triggerId: trigger.id, program: trigger.program, code, signal });
  });
  child.unref();
  logger.info({ message: "trigger fired", triggerId: trigger.id, program: trigger.program, arg });
}
