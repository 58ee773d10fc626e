/**
 * @module ctld/batch-hosts
 * Which running or suspended batch jobs each node hosts, for reconciling a heartbeat with what
 * its agent reports (service-agent.ts). A heartbeat used to walk every job: ~4 ms at 100k jobs,
 * and every node sends one every few seconds, so a thousand nodes alone kept the controller busy.
 * The index is made from the running jobs (ctld/job-phases.ts, listed once per applied index),
 * and made again only when the state has changed since (its applied index moved) and the index
 * is older than MAX_AGE_SEC: an idle controller with 100k queued jobs made it every second from a
 * walk over them all. It can be that old, so a caller re-reads each listed job's live record (a
 * job listed but ended since is left out), and may miss only a job that started on the node
 * since: reconcile leaves a job alone for far longer after its start (LOST_JOB_GRACE_SEC), which
 * the assertion below keeps true. Whatever the index misses is only found lost a heartbeat
 * later, never wrongly.
 */
import { assert } from "../lib/assert.ts";
import { runsBatchScript } from "../sched/model/het.ts";
import type { ClusterState } from "../sched/model/types.ts";
import { jobPhases } from "./job-phases.ts";

/** The longest an index is used (seconds of the caller's clock). */
export const MAX_AGE_SEC = 1;

export interface BatchHosts {
  /** Ids of the jobs that ran their batch script on `node` when the index was made (live records must be re-checked). */
  jobsOn(node: string): readonly number[];
}

/** An index over `state`'s jobs, remade on use once older than MAX_AGE_SEC by `nowSec`; `graceSec` is how long the caller ignores a new job. */
export function batchHosts(state: ClusterState, nowSec: () => number, graceSec: number): BatchHosts {
  assert(MAX_AGE_SEC < graceSec, "a job missing from the index is one the caller still leaves alone");
  let madeAt = Number.NEGATIVE_INFINITY;
  let madeAtIndex = -1;
  let byHost = new Map<string, number[]>();
  return {
    jobsOn(node) {
      const now = nowSec();
      // a snapshot restore moves the applied index too (to the image's)
      if (state.appliedIndex !== madeAtIndex && (now - madeAt >= MAX_AGE_SEC || now < madeAt)) {
        byHost = new Map();
        for (const job of jobPhases(state).active) {
          const i = job.info;
          if (!runsBatchScript(i)) continue;
          const list = byHost.get(i.batchHost);
          if (list === undefined) byHost.set(i.batchHost, [i.jobId]);
          else list.push(i.jobId);
        }
        madeAt = now;
        madeAtIndex = state.appliedIndex;
      }
      return byHost.get(node) ?? [];
    },
  };
}
