/**
 * Builds the large snapshot bench/sched.ts schedules: N nodes (a quarter with
 * 8 GPUs), most of them busy with running jobs of random shapes and limits,
 * and P pending jobs of mixed shapes (small, multi-node exclusive, GPU) under
 * multifactor priority. Running jobs start through apply(); pending records
 * are cloned from submitted templates (apply's submit validation looks at
 * every node, which would make building 100k jobs slower than the pass itself).
 * Each clone gets its own info and spec, copied compactly as apply's submit keeps them
 * (lib/compact-record.ts): clones sharing their template's spec, or spread into
 * out-of-line storage, are laid out in memory unlike the controller's jobs, and a pass over
 * 100k jobs is bound by reading their fields (shared specs made it look ~20% faster).
 */
import { parseConf } from "../src/compat/conf/slurm-conf.ts";
import { createState } from "../src/sched/model/state.ts";
import { apply } from "../src/sched/model/apply.ts";
import { emptyJobSpec } from "../src/sched/model/records.ts";
import type { ClusterState, JobRecord, JobSpecP } from "../src/sched/model/types.ts";
import type { StartDecision } from "../src/sched/model/commands.ts";
import { createRng, type Rng } from "../src/lib/rng.ts";
import { compactCopy } from "../src/lib/compact-record.ts";

const ROOT = { uid: 0, gid: 0, user: "root", group: "root" };
const USERS = Array.from({ length: 50 }, (_, i) => ({ uid: 1000 + i, gid: 1000, user: `u${i}`, group: "users" }));

export interface BigStateOptions {
  nodes: number;
  pending: number;
  busyFraction: number;
  seed: number;
  schedulerParameters?: string;
}

export function bigConf(nodes: number, schedulerParameters = ""): string {
  const gpuNodes = Math.floor(nodes / 4);
  const cpuNodes = nodes - gpuNodes;
  return [
    "ClusterName=bench",
    "PriorityType=priority/multifactor",
    "PriorityWeightAge=1000",
    "PriorityWeightFairshare=10000",
    "PriorityWeightJobSize=1000",
    "PriorityWeightPartition=1000",
    "DefMemPerCPU=2000",
    schedulerParameters ? `SchedulerParameters=${schedulerParameters}` : "",
    `NodeName=c[1-${cpuNodes}] CPUs=64 RealMemory=256000`,
    `NodeName=g[1-${gpuNodes}] CPUs=64 RealMemory=512000 Gres=gpu:h100:8`,
    `PartitionName=cpu Nodes=c[1-${cpuNodes}] Default=YES MaxTime=INFINITE`,
    `PartitionName=gpu Nodes=g[1-${gpuNodes}] MaxTime=INFINITE PriorityJobFactor=2`,
    "",
  ].join("\n");
}

function spec(over: Partial<JobSpecP>): JobSpecP {
  return { ...emptyJobSpec(), name: "bench", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", ...over };
}

function pendingShape(rng: Rng): Partial<JobSpecP> {
  const limit = rng.pick([10, 30, 60, 120, 240, 720, 1440]);
  const kind = rng.next();
  if (kind < 0.55) return { ntasks: rng.pick([1, 2, 4, 8, 16, 32]), timeLimitMin: limit };
  if (kind < 0.75) return { nodesMin: rng.pick([2, 4, 8, 16, 64]), exclusive: true, timeLimitMin: limit };
  return { partition: "gpu", ntasks: 1, cpusPerTask: 8, gpusPerNode: `h100:${rng.pick([1, 2, 4, 8])}`, timeLimitMin: limit };
}

/** Fill each busy node with running jobs (whole node or halves/quarters); starts go through apply(). */
function startRunning(state: ClusterState, rng: Rng, busyFraction: number, now: number): void {
  const templates = new Map<string, JobRecord>();
  const template = (partition: string, cpus: number): JobRecord => {
    const key = `${partition}/${cpus}`;
    let t = templates.get(key);
    if (t === undefined) {
      const r = apply(state, { v: 1, type: "submit", at: now - 86_400, spec: spec({ ntasks: cpus, timeLimitMin: 1440, partition }), by: ROOT, priority: 0 });
      t = state.jobs.get(r.ids[0] as number) as JobRecord;
      state.jobs.delete(t.info.jobId);
      templates.set(key, t);
    }
    return t;
  };
  let decisions: StartDecision[] = [];
  for (const node of state.nodes.values()) {
    if (rng.next() > busyFraction) continue;
    const parts = rng.pick([1, 2, 4]);
    const cpus = node.info.cpus / parts;
    const gpus = node.info.gpuCount / parts;
    const base = template(node.info.gpuCount > 0 ? "gpu" : "cpu", cpus);
    for (let k = 0; k < parts; k++) {
      const by = rng.pick(USERS);
      const limit = rng.pick([30, 60, 240, 720, 1440]);
      const jobId = state.nextJobId++;
      const submitTime = now - rng.int(60, limit * 60 - 60);
      const info = compactCopy({ ...base.info, jobId, submitTime, eligibleTime: submitTime, timeLimitMin: limit, uid: by.uid, user: by.user });
      state.jobs.set(jobId, { ...base, info, spec: compactCopy({ ...base.spec }), sequence: state.nextSequence++, arrayPending: [] });
      const gpuIndices = Array.from({ length: gpus }, (_, g) => g + k * gpus);
      decisions.push({ jobId, arrayTaskId: -1, alloc: [{ node: node.info.name, cpus, memMib: cpus * 2000, gpuIndices, tasks: cpus }] });
      if (decisions.length >= 1000) {
        apply(state, { v: 1, type: "startJobs", at: now - 60, decisions });
        decisions = [];
      }
    }
  }
  if (decisions.length > 0) apply(state, { v: 1, type: "startJobs", at: now - 60, decisions });
  // Each job really started at its own time: spread them so that limits end at different instants.
  for (const job of state.jobs.values()) {
    if (job.info.state !== "RUNNING") continue;
    job.info.startTime = job.info.submitTime;
    if (job.info.timeLimitMin !== undefined) job.info.endTime = job.info.startTime + job.info.timeLimitMin * 60;
  }
}

function addPending(state: ClusterState, rng: Rng, count: number, now: number): void {
  const templates: JobRecord[] = [];
  for (let t = 0; t < 64; t++) {
    const r = apply(state, { v: 1, type: "submit", at: now - 3600, spec: spec(pendingShape(rng)), by: rng.pick(USERS), priority: 0 });
    const job = state.jobs.get(r.ids[0] as number);
    if (job !== undefined) templates.push(job);
  }
  for (let i = templates.length; i < count; i++) {
    const base = rng.pick(templates);
    const jobId = state.nextJobId++;
    const sequence = state.nextSequence++;
    const by = rng.pick(USERS);
    const submitTime = now - rng.int(0, 86_400);
    const info = compactCopy({ ...base.info, jobId, submitTime, eligibleTime: submitTime, uid: by.uid, user: by.user });
    state.jobs.set(jobId, { ...base, info, spec: compactCopy({ ...base.spec }), sequence, arrayPending: [] });
  }
}

export function buildBigState(o: BigStateOptions, now: number): ClusterState {
  const parsed = parseConf(bigConf(o.nodes, o.schedulerParameters));
  if (!parsed.ok) throw new Error(parsed.error.message);
  const made = createState(parsed.value);
  if (!made.ok) throw new Error(made.error.message);
  const state = made.value;
  for (const node of [...state.nodes.values()]) {
    apply(state, { v: 1, type: "registerNode", at: now - 86_400, node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
  }
  const rng = createRng(o.seed);
  startRunning(state, rng, o.busyFraction, now);
  addPending(state, rng, o.pending, now);
  return state;
}
