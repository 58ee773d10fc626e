/**
 * @module bench/scale/snapshot-figures
 * The controller's snapshot at `jobs` held jobs, in process: how long it takes the event loop
 * (snapshot_block_ms), its size per job on disk (snapshot_bytes_per_job), and how long a
 * restore of it takes (restore_ms).
 */
import { parseConf } from "../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../src/sched/model/state.ts";
import { apply } from "../../src/sched/model/apply.ts";
import { emptyJobSpec } from "../../src/sched/model/records.ts";
import type { ClusterState } from "../../src/sched/model/types.ts";
import { encodeSnapshot, restoreSnapshot } from "../../src/raft/snapshot.ts";
import { round } from "./replica-cluster.ts";

const CONF = "ClusterName=b\nNodeName=n[1-64] CPUs=64 RealMemory=256000\nPartitionName=p Nodes=n[1-64] Default=YES MaxTime=INFINITE\n";

export function freshState(): ClusterState {
  const conf = parseConf(CONF);
  if (!conf.ok) throw new Error(conf.error.message);
  const made = createState(conf.value);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

/** A state with `jobs` submitted (held) jobs, each with its own script and environment. */
export function filledState(jobs: number): ClusterState {
  const state = freshState();
  const by = { uid: 0, gid: 0, user: "root", group: "root" };
  for (let i = 0; i < jobs; i++) {
    apply(state, { v: 1, type: "submit", at: 1000 + i, spec: { ...emptyJobSpec(), name: `j${i}`, script: "#!/bin/sh\ntrue\n", workDir: "/tmp", hold: true }, by, priority: 0 });
  }
  return state;
}

export function snapshotFigures(jobs: number, emit: (o: object) => void): void {
  const state = filledState(jobs);
  let t = performance.now();
  const image = encodeSnapshot(state, 123);
  const blockMs = performance.now() - t;
  emit({ metric: "snapshot_block_ms", value: round(blockMs), unit: "ms", jobs: state.jobs.size, goal: 50 });
  emit({ metric: "snapshot_bytes_per_job", value: round(image.length / state.jobs.size), unit: "bytes", jobs: state.jobs.size, total_bytes: image.length, goal: 1024 });
  const fresh = freshState();
  t = performance.now();
  restoreSnapshot(fresh, image);
  emit({ metric: "restore_ms", value: round(performance.now() - t), unit: "ms", jobs: fresh.jobs.size, goal: 1000 });
}
