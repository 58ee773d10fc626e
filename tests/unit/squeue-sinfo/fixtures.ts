/**
 * @module tests/squeue-sinfo/fixtures
 * Record builders and the oracle's "busy cluster" (goldens 044-058): array
 * job 17 (three tasks running on n3/n3/n4), 20 'long' running, pending 21
 * held, 22 dependency, 23 begin time, 24 big; times taken from golden 055.
 */
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo, NodeInfo, PartitionInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";

export type Job = Plain<JobInfo>;
export type Node = Plain<NodeInfo>;
export type Partition = Plain<PartitionInfo>;

export function job(over: Partial<Job>): Job {
  return {
    jobId: 0, arrayJobId: 0, arrayTaskId: -1, arrayTaskStr: "", arrayMaxTasks: 0, name: "",
    uid: 0, user: "root", gid: 0, group: "root", account: "root", partition: "debug", qos: "normal",
    state: "PENDING", stateFlags: [], reason: "None", priority: 0, nice: 0, submitTime: 0,
    eligibleTime: 0, startTime: 0, endTime: 0, suspendTime: 0, numNodes: 1, numCpus: 1,
    numTasks: 1, cpusPerTask: 0, ntasksPerNode: 0, memPerNodeMib: 0, memPerCpuMib: 256,
    reqNodelist: "", excNodelist: "", nodelist: "", schedNodelist: "", batchHost: "", alloc: [],
    tresReq: "cpu=1,mem=256M,node=1,billing=1", tresAlloc: "", tresPerNode: "", tresPerJob: "",
    workDir: "/tmp/slurm-oracle/jobs", stdOut: "", stdErr: "", stdIn: "/dev/null", command: "",
    exitCode: 0, exitSignal: 0, derivedExitCode: 0, dependency: "", features: "", comment: "",
    exclusive: false, requeue: true, restarts: 0, batchFlag: true, submitLine: "", submitHost: "vm",
    allocSid: 0, steps: [], lastSchedEval: 0, reservation: "", wckey: "", deadline: 0,
    preSusTime: 0, cancelledBy: "", heldByAdmin: false, killWaitSec: 0, signal: "",
    ...over,
  };
}

const T0 = 1796214958; // array 17 submitted
const RUN = 1796214960; // array tasks started
const SUB = 1796214963; // pending jobs submitted

function arrayTask(jobId: number, task: number, node: string, gpus: number[]): Job {
  return job({
    jobId, arrayJobId: 17, arrayTaskId: task, name: "golden", state: "RUNNING", priority: 11187,
    submitTime: T0, eligibleTime: RUN, startTime: RUN, endTime: RUN + 600, timeLimitMin: 10,
    numCpus: 2, numTasks: 2, nodelist: node, batchHost: node, tresPerNode: "gres:gpu:2",
    command: "/tmp/slurm-oracle/jobs/golden_job.sh", stdOut: "/tmp/slurm-oracle/jobs/%x-%j.out",
    tresReq: "cpu=2,mem=512M,node=1,billing=2,gres/gpu=2", tresAlloc: "cpu=2,mem=512M,node=1,billing=2,gres/gpu=2",
    // the controller records the type of the GPUs held when the job starts (the oracle's nodes are mi300x)
    lastSchedEval: RUN, alloc: [{ node, cpus: 2, memMib: 512, gpuIndices: gpus, tasks: 2, gpuType: "mi300x" }],
  });
}

/** A finished `srun <cmd>` job on n1 (interactive: no batch script). */
const srunJob = (jobId: number, name: string, at: number, over: Partial<Job>): Job =>
  job({
    jobId, name, command: name, batchFlag: false, batchHost: "n1", nodelist: "n1", priority: 11156,
    submitTime: at, eligibleTime: at, startTime: at, endTime: at, lastSchedEval: at, stdIn: "",
    tresAlloc: "cpu=1,mem=256M,node=1,billing=1",
    alloc: [{ node: "n1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }],
    ...over,
  });

const pending = (jobId: number, name: string, reason: string, over: Partial<Job> = {}): Job =>
  job({ jobId, name, reason, priority: 11156, submitTime: SUB, lastSchedEval: SUB, ...over });

/** Jobs of the busy cluster in the controller's list order (golden 055: 18, 19, 17, 20, ...). */
export function busyJobs(): Job[] {
  return [
    srunJob(1, "hostname", 1796214931, { state: "COMPLETED" }),
    srunJob(5, "false", 1796214932, { state: "FAILED", reason: "NonZeroExitCode", exitCode: 1, derivedExitCode: 1 }),
    arrayTask(18, 1, "n3", [0, 1]),
    arrayTask(19, 2, "n3", [2, 3]),
    arrayTask(17, 3, "n4", [0, 1]),
    job({
      jobId: 20, name: "long", state: "RUNNING", priority: 11156, submitTime: RUN, eligibleTime: RUN,
      startTime: SUB, endTime: SUB + 600, timeLimitMin: 10, nodelist: "n4", batchHost: "n4",
      tresAlloc: "cpu=1,mem=256M,node=1,billing=1", lastSchedEval: SUB,
      alloc: [{ node: "n4", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 }],
    }),
    pending(21, "held", "JobHeldUser", { priority: 0 }),
    pending(22, "dep", "Dependency", { dependency: "afterok:17_*(unfulfilled)" }),
    pending(23, "later", "BeginTime", { startTime: SUB + 3600, eligibleTime: SUB + 3600 }),
    pending(24, "big", "Resources", {
      priority: 11625, numNodes: 4, numCpus: 4, numTasks: 4, exclusive: true, eligibleTime: SUB,
      lastSchedEval: SUB + 3, tresReq: "cpu=4,mem=1G,node=4,billing=4",
    }),
  ];
}

export function node(over: Partial<Node>): Node {
  return {
    name: "", addr: "127.0.0.1", port: 0, hostname: "localhost", state: "IDLE", stateFlags: [],
    reason: "", reasonUser: "", reasonTime: 0, cpus: 4, allocCpus: 0, sockets: 1, coresPerSocket: 4,
    threadsPerCore: 1, realMemoryMib: 4000, allocMemoryMib: 0, freeMemoryMib: 0, gres: "",
    gresUsed: "", features: "", partitions: [], bootTime: 0, lastBusyTime: 0, registeredTime: 0,
    lastHeartbeat: 0, weight: 1, tmpDiskMib: 0, arch: "x86_64", os: "Linux", version: "22.05.8",
    cpuLoad: 0, gpuModel: "", gpuCount: 0, gpuAlloc: [], gpuTopology: "",
    ...over,
  };
}

export function partition(over: Partial<Partition>): Partition {
  return {
    name: "", nodes: "", isDefault: false, state: "UP", minNodes: 0, priorityTier: 1,
    priorityJobFactor: 1, totalCpus: 0, totalNodes: 0, tres: "", oversubscribe: "NO", rootOnly: false,
    allowGroups: "", allowAccounts: "", allowQos: "", hidden: false, graceTimeSec: 0,
    ...over,
  };
}

/** The oracle's layout: n[1-4] (n3, n4 with 8 GPUs), partitions debug* = n[1-4], gpu = n[3-4]. */
export function oracleNodes(states: Record<string, Partial<Node>> = {}): Node[] {
  return ["n1", "n2", "n3", "n4"].map((name, i) => {
    const gpu = name === "n3" || name === "n4";
    return node({
      name, port: 17001 + i, partitions: gpu ? ["debug", "gpu"] : ["debug"],
      gres: gpu ? "gpu:mi300x:8" : "", gpuModel: gpu ? "mi300x" : "", gpuCount: gpu ? 8 : 0,
      ...states[name],
    });
  });
}

export const oraclePartitions = (): Partition[] => [
  partition({ name: "debug", nodes: "n[1-4]", isDefault: true, totalCpus: 16, totalNodes: 4 }),
  partition({ name: "gpu", nodes: "n[3-4]", totalCpus: 8, totalNodes: 2 }),
];

/** Busy node states: n3 fully allocated (4 CPUs), n4 mixed (3 of 4). */
export const busyNodeStates = (): Record<string, Partial<Node>> => ({
  n3: { state: "ALLOCATED", allocCpus: 4 },
  n4: { state: "MIXED", allocCpus: 3 },
});
