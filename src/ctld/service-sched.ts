/**
 * @module ctld/service-sched
 * Read-only scheduler views for `sprio` (priority factors from the last pass,
 * with the configured weights) and `sdiag` (this controller's cycle counters).
 * `sdiag --reset` clears the counters; like Slurm it is for administrators only.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ServiceContext } from "./service-context.ts";
import { requester } from "./service-context.ts";
import type { Plain } from "../lib/plain.ts";
import type { DiagResponse, JobPriorityFactors, SchedCycleStats } from "../net/gen/spur/v1/controller_pb.ts";
import type { CycleCounters } from "./sched-stats.ts";
import { newSchedCounters } from "./sched-stats.ts";
import { lookupUid } from "../net/users.ts";
import type { Controller } from "./controller.ts";
import { jobPartitions } from "../sched/model/job-partitions.ts";

export function priorityFactorsList(c: Controller, jobIds: readonly number[], users: readonly string[]): Plain<JobPriorityFactors>[] {
  const wantIds = jobIds.length > 0 ? new Set(jobIds) : undefined;
  const wantUsers = users.length > 0 ? new Set(users) : undefined;
  const out: Plain<JobPriorityFactors>[] = [];
  for (const job of c.state.jobs.values()) {
    const info = job.info;
    if (info.state !== "PENDING") continue;
    if (wantIds && !wantIds.has(info.jobId)) continue;
    if (wantUsers && !wantUsers.has(info.user) && !wantUsers.has(String(info.uid))) continue;
    // a job listing several partitions is a row per partition, in the order it listed them
    // (oracle 22.05: `-p gpu,debug` shows rows gpu then debug, though its Partition= reads debug,gpu)
    const listed = info.partition.includes(",") ? jobPartitions(job.spec.partition).filter((n) => jobPartitions(info.partition).includes(n)) : [undefined];
    for (const partition of listed) {
      const p = c.priorityOf(info.jobId, partition);
      if (p === undefined) continue;
      out.push({
        jobId: info.jobId, partition: partition ?? info.partition, user: info.user, account: info.account, qos: info.qos,
        priority: p.priority, age: p.factors.age, assoc: p.factors.assoc, fairshare: p.factors.fairshare,
        jobSize: p.factors.jobSize, partitionFactor: p.factors.partition, qosFactor: p.factors.qos, nice: p.nice,
        admin: p.fixed ? p.priority : 0, tres: { ...p.factors.tres },
      });
    }
  }
  // stable: a job's rows keep their listed order
  return out.sort((a, b) => a.jobId - b.jobId);
}

const cycleOut = (c: CycleCounters): Plain<SchedCycleStats> => ({
  cycles: c.cycles, lastUs: c.lastUs, maxUs: c.maxUs, totalUs: c.totalUs, depthTotal: c.depthTotal,
  lastDepth: c.lastDepth, lastQueueLength: c.lastQueueLength,
});

/** Microseconds to read the clock 1000 times (sdiag's gettimeofday() latency line): the better of two runs, the first one warming the loop. */
function clockLatencyUs(): number {
  const once = (): number => {
    const t0 = performance.now();
    let sink = 0;
    for (let i = 0; i < 1000; i++) sink += Date.now() & 1;
    return (performance.now() - t0) * 1000 + (sink & 0);
  };
  return Math.round(Math.min(once(), once()));
}

function rpcTables(stats: ServiceContext["rpcStats"]): Pick<Plain<DiagResponse>, "rpcByMethod" | "rpcByUser"> {
  if (stats === undefined) return { rpcByMethod: [], rpcByUser: [] };
  const t = stats.totals();
  return {
    rpcByMethod: t.byMethod.map((m) => ({ name: m.method, id: 0, count: m.count, totalUs: m.totalSec * 1e6 })),
    rpcByUser: t.byUid.map((u) => ({ name: lookupUid(u.uid).name, id: u.uid, count: u.count, totalUs: u.totalSec * 1e6 })),
  };
}

export function diagView(c: Controller, now: number, stats?: ServiceContext["rpcStats"]): Plain<DiagResponse> {
  const k = c.schedCounters();
  let pending = 0;
  let running = 0;
  for (const job of c.state.jobs.values()) {
    if (job.info.state === "PENDING") pending += Math.max(1, job.arrayPending.length);
    else if (job.info.state === "RUNNING") running += 1;
  }
  return {
    now, since: k.since, jobsSubmitted: k.jobsSubmitted, jobsStarted: k.jobsStarted, jobsCompleted: k.jobsCompleted,
    jobsCanceled: k.jobsCanceled, jobsFailed: k.jobsFailed, jobsPending: pending, jobsRunning: running,
    main: cycleOut(k.main), backfill: cycleOut(k.bf), backfilledTotal: k.bf.backfilledTotal, bfLastWhen: k.bf.lastWhen,
    bfLastDepthTrySched: k.bf.lastDepthTrySched, bfLastTableSize: k.bf.lastTableSize,
    bfDepthTrySchedTotal: k.bf.depthTrySchedTotal, bfQueueLengthTotal: k.bf.queueLengthTotal, bfTableSizeTotal: k.bf.tableSizeTotal,
    backfillEnabled: c.state.config.sched.schedulerType === "sched/backfill",
    applyFailed: k.applyFailures, staleDecisions: k.staleDecisions,
    ...rpcTables(stats), clockLatencyUs: clockLatencyUs(),
  };
}

export function schedHandlers(sc: ServiceContext) {
  const c = sc.controller;
  return {
    getPriorityFactors(req: { jobIds: number[]; users: string[] }) {
      const w = c.state.config.sched;
      return {
        jobs: priorityFactorsList(c, req.jobIds, req.users),
        weights: { ...w.weights, tres: { ...w.tresWeights } },
        priorityType: w.priorityType,
      };
    },
    getDiag(req: { reset: boolean }, ctx: Parameters<typeof requester>[0]) {
      if (req.reset) {
        const by = requester(ctx);
        if (by.uid !== 0 && !c.state.config.operators.includes(by.user)) {
          throw new ConnectError("Access/permission denied", Code.PermissionDenied);
        }
        Object.assign(c.schedCounters(), newSchedCounters(sc.now()));
        sc.rpcStats?.resetTotals();
      }
      return diagView(c, sc.now(), sc.rpcStats);
    },
  };
}
