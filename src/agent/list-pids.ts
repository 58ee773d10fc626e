/**
 * @module agent/list-pids
 * `scontrol listpids` on this node: the processes of each job step here. A step's tasks
 * come first with their local and global task ids (the batch script is task 0 of the batch
 * step), then every other live process of the task's process group (what the task started),
 * with "-" ids, as Slurm's stepd lists its container's pids. Tasks run in their own process
 * groups (agent/tasks.ts, agent/stepd.ts), so the group is the step's on every cgroup setup.
 * A caller who is not root or the agent's user sees the steps of their own jobs only.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isAlive, jobDir, listJobIds, readJson, readPid, type LaunchFile } from "./spool.ts";
import { taskPids } from "./tasks.ts";
import { listPids as cgroupPids } from "./cgroup/fs.ts";

export const BATCH_STEP = -5;

export interface PidRowOut {
  pid: number;
  jobId: number;
  stepId: number;
  /** -1: not a task. */
  localId: number;
  globalId: number;
}

/** The process group (5th field) of /proc/<pid>/stat; the command name may hold spaces and parentheses. */
export function statProcessGroup(stat: string): number | undefined {
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const pgid = Number(rest[2]);
  return Number.isInteger(pgid) && pgid > 0 ? pgid : undefined;
}

/** Live pids by process group, read from /proc. */
function processGroups(): Map<number, number[]> {
  const groups = new Map<number, number[]>();
  let names: string[] = [];
  try {
    names = readdirSync("/proc");
  } catch {
    return groups;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let pgid: number | undefined;
    try {
      pgid = statProcessGroup(readFileSync(`/proc/${name}/stat`, "utf8"));
    } catch {
      continue; // ended meanwhile
    }
    if (pgid === undefined) continue;
    const list = groups.get(pgid) ?? [];
    list.push(Number(name));
    groups.set(pgid, list);
  }
  return groups;
}

interface Task {
  /** A contained batch step: its cgroup's processes (double-forked ones too) instead of the task's group. */
  trackDir?: string;
  pid: number;
  jobId: number;
  stepId: number;
  localId: number;
  globalId: number;
  uid: number;
}

/** The tasks of the batch steps (their scripts) and of the srun steps running here. */
function tasksHere(spool: string): Task[] {
  const tasks: Task[] = [];
  for (const jobId of listJobIds(spool)) {
    const dir = jobDir(spool, jobId);
    const child = readPid(dir, "child.pid");
    const launch = readJson<LaunchFile>(join(dir, "launch.json"));
    if (child === undefined || launch === undefined || !isAlive(child)) continue;
    const trackDir = launch.cgroup?.trackDir ?? "";
    tasks.push({ pid: child, jobId, stepId: BATCH_STEP, localId: 0, globalId: 0, uid: launch.uid, ...(trackDir === "" ? {} : { trackDir }) });
  }
  for (const [pid, t] of taskPids) tasks.push({ pid, ...t });
  return tasks.sort((a, b) => a.jobId - b.jobId || stepOrder(a.stepId) - stepOrder(b.stepId) || a.localId - b.localId);
}

const stepOrder = (stepId: number): number => (stepId === BATCH_STEP ? -1 : stepId);
const stepName = (stepId: number): string => (stepId === BATCH_STEP ? "batch" : String(stepId));

/** Rows for `jobId` (0 = all) and `stepId` (undefined = all); `steps`: "job.step" of every step here the caller may see. */
export function listPids(spool: string, req: { jobId: number; stepId?: number }, caller: { uid: number; privileged: boolean }): { rows: PidRowOut[]; steps: string[] } {
  const all = tasksHere(spool);
  const visible = all.filter((t) => caller.privileged || t.uid === caller.uid);
  const groups = processGroups();
  const rows: PidRowOut[] = [];
  const steps: string[] = [];
  const wanted = visible.filter((t) => (req.jobId === 0 || t.jobId === req.jobId) && (req.stepId === undefined || t.stepId === req.stepId));
  for (const t of visible) {
    const key = `${t.jobId}.${stepName(t.stepId)}`;
    if (!steps.includes(key)) steps.push(key);
  }
  // the processes of srun steps' groups: a batch step's cgroup (the job's) holds them too, but they are theirs
  const srunPids = new Set(all.filter((t) => t.stepId !== BATCH_STEP).flatMap((t) => [t.pid, ...(groups.get(t.pid) ?? [])]));
  // per step: its tasks, then the other processes of the tasks' groups
  const byStep = new Map<string, Task[]>();
  for (const t of wanted) byStep.set(`${t.jobId}.${t.stepId}`, [...(byStep.get(`${t.jobId}.${t.stepId}`) ?? []), t]);
  for (const tasks of byStep.values()) {
    const first = tasks[0] as Task;
    for (const t of tasks) rows.push({ pid: t.pid, jobId: t.jobId, stepId: t.stepId, localId: t.localId, globalId: t.globalId });
    const taskSet = new Set(tasks.map((t) => t.pid));
    const members = (t: Task): number[] => (t.trackDir !== undefined ? cgroupPids(t.trackDir) : (groups.get(t.pid) ?? []));
    const others = [...new Set(tasks.flatMap(members))].filter((pid) => !taskSet.has(pid) && (first.stepId !== BATCH_STEP || !srunPids.has(pid))).sort((a, b) => a - b);
    for (const pid of others) rows.push({ pid, jobId: first.jobId, stepId: first.stepId, localId: -1, globalId: -1 });
  }
  return { rows, steps };
}
