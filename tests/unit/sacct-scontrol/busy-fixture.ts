/**
 * @module tests/sacct-scontrol/busy-fixture
 * The controller state of the goldens' "busy" setup (array 17 with 3 running
 * tasks, 20 'long' running, pending 21 'held', 22 'dep', 23 'later', 24
 * 'big'), the dependency-never scenario (25 failed, 26 waits on it), and the
 * oracle's nodes and partitions (goldens 015-019, 066).
 */
import { at, makeJob, makeNode, makePartition, type Job, type Node, type Partition } from "./helpers.ts";

const DIR = "/tmp/slurm-oracle/jobs";

function arrayTask(jobId: number, task: number, node: string): Job {
  return makeJob({
    jobId, arrayJobId: 17, arrayTaskId: task, name: "golden", state: "RUNNING", priority: 11187,
    submitTime: at("12:35:58"), eligibleTime: at("12:36:00"), startTime: at("12:36:00"), timeLimitMin: 10,
    lastSchedEval: at("12:36:00"), nodelist: node, batchHost: node, numCpus: 2, numTasks: 2,
    tresReq: "cpu=2,mem=512M,node=1,billing=2,gres/gpu=2", tresAlloc: "cpu=2,mem=512M,node=1,billing=2,gres/gpu=2",
    command: `${DIR}/golden_job.sh`, stdOut: `${DIR}/golden-${jobId}.out`, stdErr: `${DIR}/golden-${jobId}.out`,
    tresPerNode: "gres/gpu:2",
  });
}

function pending(jobId: number, name: string, p: Partial<Job>): Job {
  return makeJob({
    jobId, name, state: "PENDING", submitTime: at("12:36:03"), lastSchedEval: at("12:36:03"),
    stdOut: `${DIR}/slurm-${jobId}.out`, stdErr: `${DIR}/slurm-${jobId}.out`, ...p,
  });
}

/** Records the controller lists for the busy goldens (059-078). */
export function busyJobs(): Job[] {
  return [
    arrayTask(17, 3, "n4"),
    arrayTask(18, 1, "n3"),
    arrayTask(19, 2, "n3"),
    makeJob({
      jobId: 20, name: "long", state: "RUNNING", submitTime: at("12:36:00"), eligibleTime: at("12:36:00"),
      startTime: at("12:36:03"), timeLimitMin: 10, lastSchedEval: at("12:36:03"), nodelist: "n4", batchHost: "n4",
      tresAlloc: "cpu=1,mem=256M,node=1,billing=1", stdOut: `${DIR}/slurm-20.out`, stdErr: `${DIR}/slurm-20.out`,
    }),
    pending(21, "held", { reason: "JobHeldUser", priority: 0 }),
    pending(22, "dep", { reason: "Dependency", dependency: "afterok:17_*(unfulfilled)" }),
    pending(23, "later", { reason: "BeginTime", eligibleTime: at("13:36:03") }),
    pending(24, "big", { reason: "Resources", numNodes: 4, numCpus: 4, exclusive: true }),
  ];
}

/** Job 25 (failed after one second) and 26 (afterok:25, never satisfied). */
export function dependencyJobs(): Job[] {
  return [
    makeJob({
      jobId: 25, name: "willfail", state: "FAILED", reason: "NonZeroExitCode", exitCode: 1,
      submitTime: at("12:36:11"), eligibleTime: at("12:36:11"), startTime: at("12:36:12"), endTime: at("12:36:13"),
      lastSchedEval: at("12:36:12"), nodelist: "n1", batchHost: "n1", tresAlloc: "cpu=1,mem=256M,node=1,billing=1",
      stdOut: `${DIR}/slurm-25.out`, stdErr: `${DIR}/slurm-25.out`,
    }),
    pending(26, "needsok", {
      reason: "DependencyNeverSatisfied", dependency: "afterok:25(failed)", submitTime: at("12:36:11"),
      lastSchedEval: at("12:36:11"),
    }),
  ];
}

function oracleNode(i: number): Node {
  const gpu = i >= 3;
  return makeNode({
    name: `n${i}`, port: 17000 + i, gres: gpu ? "gpu:mi300x:8" : "", partitions: gpu ? ["debug", "gpu"] : ["debug"],
    cpuLoad: gpu ? 0.72 : 0.68, freeMemoryMib: [23609, 23608, 23607, 23607][i - 1] as number,
    bootTime: i === 4 ? at("10:57:17") : at("10:57:18"), registeredTime: at("12:35:28"), lastBusyTime: at("12:35:28"),
  });
}

/** n1..n4 idle, as in goldens 017-019. */
export const oracleNodes = (): Node[] => [1, 2, 3, 4].map(oracleNode);

export function oraclePartitions(): Partition[] {
  return [
    makePartition({
      name: "debug", nodes: "n[1-4]", isDefault: true, totalCpus: 16, totalNodes: 4,
      tres: "cpu=16,mem=16000M,node=4,billing=16,gres/gpu=16",
    }),
    makePartition({ name: "gpu", nodes: "n[3-4]", totalCpus: 8, totalNodes: 2, tres: "cpu=8,mem=8000M,node=2,billing=8,gres/gpu=16" }),
  ];
}
