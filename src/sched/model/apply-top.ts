/**
 * @module sched/model/apply-top
 * `scontrol top JOB_LIST`: the listed jobs move to the head of their user's queue by taking
 * priority from the user's other pending jobs, the sum of priorities unchanged. Observed on
 * the 22.05 oracle (tests/unit/sched/apply-top.test.ts):
 * - the group is the other pending, not held jobs of the first listed job's user, partition,
 *   account and QOS (a job listing several partitions is none of them); with no such job nothing changes;
 * - the listed jobs take, in list order, the highest priorities among the listed and the group,
 *   each one below the one before it (two at 11156: the second gets 11155), even when that lowers it;
 * - what they gained in total is taken from the group by raising its nice: the same to each
 *   (C's integer division), the remainder one each to the last in job id order;
 * - only `nice` moves (and the priority shown with it), so the next pass computes the same values.
 * The priorities are computed here from the state at the command's time, so every replica agrees.
 * Errors: an unknown id fails the whole list; a job not pending, or held, fails a list of one
 * and is passed over in a longer list; a caller who is not an administrator is refused.
 */
import type { Command } from "./commands.ts";
import type { ClusterState, JobRecord } from "./types.ts";
import { emptyResult, type ApplyResult } from "./apply-result.ts";
import { JOB_ERRORS } from "./job-access.ts";
import { selectTargets } from "./select-jobs.ts";
import { explainPriority, PRIORITY_MAX, PRIORITY_MIN, priorityContext, priorityValues, type PriorityContext } from "../plan/priority.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

/** ESLURM_JOB_HELD. */
export const JOB_HELD = { code: 2042, text: "Job is in held state, pending scheduler release" } as const;

const NO_FILTER = { user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };

export function applyTop(state: ClusterState, c: Of<"updateJob">): ApplyResult {
  const result = emptyResult();
  const id = c.jobIds.join(",");
  const fail = (e: { code: number; text: string }): ApplyResult => {
    result.items.push({ id, error: e.text, errorCode: e.code });
    return result;
  };
  // 22.05 without SchedulerParameters=enable_user_top: operators only (oracle, even for an unknown id)
  if (!(c.by.uid === 0 || state.config.operators.includes(c.by.user))) return fail(JOB_ERRORS.accessDenied);
  const named: JobRecord[] = [];
  for (const text of c.jobIds) {
    const targets = selectTargets(state, { ...NO_FILTER, jobIds: [text] });
    if (targets.length === 0 || targets.some((t) => t.job === undefined)) return fail(JOB_ERRORS.invalidJobId);
    for (const t of targets) if (!named.includes(t.job as JobRecord)) named.push(t.job as JobRecord);
  }
  const listed = named.filter((j) => j.info.state === "PENDING" && j.info.priority > 0);
  if (named.length === 1 && listed.length === 0) {
    const only = named[0] as JobRecord;
    return fail(only.info.state === "PENDING" ? JOB_HELD : JOB_ERRORS.notPending);
  }
  result.items.push({ id, error: "", errorCode: 0 });
  const first = listed[0];
  if (first === undefined) return result;
  const group: JobRecord[] = [];
  for (const job of state.jobs.values()) {
    const i = job.info;
    if (i.state !== "PENDING" || i.priority <= 1 || listed.includes(job) || i.partition.includes(",")) continue;
    if (i.uid !== first.info.uid || i.partition !== first.info.partition || i.account !== first.info.account || i.qos !== first.info.qos) continue;
    group.push(job);
  }
  if (group.length === 0) return result;
  const ctx = priorityContext(state, c.at, state.config.sched);
  // each job's priority computed once (the factors of 100k jobs are the cost); a new nice moves it by the difference
  const values = priorityValues([...listed, ...group], ctx, new Map());
  const prio = new Map<JobRecord, number>([...listed, ...group].map((job, i) => [job, values[i] as number]));
  const ranked = [...values].sort((a, b) => b - a);
  let gained = 0;
  let slot = Number.POSITIVE_INFINITY;
  listed.forEach((job, i) => {
    slot = Math.min(ranked[i] as number, slot - 1);
    const delta = slot - (prio.get(job) as number);
    gained += delta;
    renice(job, job.info.nice - delta, prio.get(job) as number, ctx);
  });
  group.sort((a, b) => a.info.jobId - b.info.jobId);
  const each = Math.trunc(gained / group.length);
  const rest = gained % group.length; // C's remainder: the sign of `gained`
  group.forEach((job, i) => {
    const extra = i >= group.length - Math.abs(rest) ? Math.sign(rest) : 0;
    renice(job, job.info.nice + each + extra, prio.get(job) as number, ctx);
  });
  return result;
}

/**
 * A new nice, and the priority a pass would now compute: `was` moved by the nice's change (the
 * factors do not move), computed again where a bound of the priority's range may cut it.
 */
function renice(job: JobRecord, nice: number, was: number, ctx: PriorityContext | undefined): void {
  const info = job.info;
  const moved = was + info.nice - nice;
  info.nice = nice;
  if (job.priorityFixed === true) return; // an administrator's value does not follow the nice
  const bounded = was <= PRIORITY_MIN || was >= PRIORITY_MAX || moved <= PRIORITY_MIN || moved >= PRIORITY_MAX;
  info.priority = ctx !== undefined && bounded ? explainPriority(job, ctx).priority : Math.max(PRIORITY_MIN, moved);
}
