/**
 * @module ctld/job-phases
 * The jobs the controller's timers look at, listed once per change of the state instead of on
 * every tick. The due loop (time limits and --signal warnings: running jobs; the purge after
 * MinJobAge: finished jobs) and each agent's heartbeat (batch jobs running on its node) walked
 * every job each second: with 100k held jobs an idle controller spent ~70 ms of CPU a second on
 * it and on the garbage it left (issue 16). Which jobs are running or finished changes only when
 * a command is applied, and every applied command, and a snapshot restore, moves
 * `state.appliedIndex` (the listing cache, ctld/list-cache.ts, relies on the same); so a list
 * made at one applied index holds at that index. The records listed are the live ones: a caller
 * reads their fields now (a limit raised since is seen), only membership is from the walk.
 * Shell-side memoization only: the pure functions it feeds take the lists as an argument and
 * default to every job.
 */
import { isJobFinished, type ClusterState, type JobRecord } from "../sched/model/types.ts";

export interface JobPhases {
  /** Jobs RUNNING or SUSPENDED, in table order. */
  active: readonly JobRecord[];
  /** Jobs in a finished state, in table order (MinJobAge's candidates). */
  finished: readonly JobRecord[];
}

const made = new WeakMap<ClusterState, { appliedIndex: number; phases: JobPhases }>();

/** `state`'s running and finished jobs at its applied index: one walk per index, shared by every caller. */
export function jobPhases(state: ClusterState): JobPhases {
  const known = made.get(state);
  if (known !== undefined && known.appliedIndex === state.appliedIndex) return known.phases;
  const active: JobRecord[] = [];
  const finished: JobRecord[] = [];
  state.jobs.forEach((job) => {
    const s = job.info.state;
    if (s === "RUNNING" || s === "SUSPENDED") active.push(job);
    else if (isJobFinished(job.info)) finished.push(job);
  });
  const phases = { active, finished };
  made.set(state, { appliedIndex: state.appliedIndex, phases });
  return phases;
}
