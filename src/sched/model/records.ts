/**
 * @module sched/model/records
 * Zero values for the record shapes, so that every field a view prints is set.
 * The TypeScript compiler checks these against the generated types: adding a
 * field to types.proto without a default here fails the build.
 *
 * Key order is memory layout: a record keeps its keys in the order they were first set
 * (lib/compact-record copies keep it), and JavaScriptCore stores the first 64 or so inline in
 * that order, the rest out of line. A scheduling pass reads a dozen fields of each of 100k
 * queued jobs, which do not fit in any cache: with those fields first they share two or
 * three cache lines instead of spreading over six or more plus the out-of-line part
 * (bench/sched.ts, about 12% of a pass). No output depends on the order: views and the wire
 * name their fields.
 */
import type { JobInfoP, JobSpecP, NodeInfoP, StepInfoP } from "./types.ts";

export function emptyJobInfo(): JobInfoP {
  return {
    // read for every queued job in every scheduling pass: kept first (see the module comment);
    // the last three for every running job (its hold on the timeline, fair share's usage)
    partition: "", state: "PENDING", jobId: 0, eligibleTime: 0, priority: 0, numCpus: 1, arrayJobId: 0,
    startTime: 0, numNodes: 1, account: "", user: "", qos: "", nice: 0, reservation: "", deadline: 0,
    uid: 0, arrayTaskId: -1, submitTime: 0, timeLimitMin: undefined, endTime: 0, alloc: [],
    arrayTaskStr: "", arrayMaxTasks: 0, name: "", gid: 0, group: "", stateFlags: [], reason: "None",
    suspendTime: 0, numTasks: 1, cpusPerTask: 1, ntasksPerNode: 0,
    memPerNodeMib: 0, memPerCpuMib: 0, reqNodelist: "", excNodelist: "", nodelist: "",
    schedNodelist: "", batchHost: "", tresReq: "", tresAlloc: "", tresPerNode: "",
    tresPerJob: "", workDir: "", stdOut: "", stdErr: "", stdIn: "", command: "",
    exitCode: 0, exitSignal: 0, derivedExitCode: 0, dependency: "", features: "", comment: "",
    exclusive: false, requeue: true, restarts: 0, batchFlag: true, submitLine: "",
    submitHost: "", allocSid: 0, steps: [], lastSchedEval: 0, wckey: "",
    preSusTime: 0, cancelledBy: "", heldByAdmin: false, killWaitSec: 30, signal: "",
  };
}

export function emptyJobSpec(): JobSpecP {
  return {
    // read for every queued job in every scheduling pass: kept first (see the module comment)
    dependency: "", nodesMin: 0, ntasks: 0, nodesMax: 0,
    name: "", script: "", argv: [], workDir: "", env: {}, partition: "", account: "", qos: "",
    ntasksPerNode: 0, cpusPerTask: 0, gresPerNode: [],
    gpus: "", gpusPerNode: "", gpusPerTask: "", cpusPerGpu: 0, exclusive: false, nodelist: "",
    exclude: "", constraint: "", beginTime: 0, hold: false, array: "",
    stdOut: "", stdErr: "", stdIn: "", openMode: "", requeue: false, nice: 0, comment: "",
    mailType: "", mailUser: "", signal: "", deadline: 0, export: "", submitLine: "",
    submitHost: "", interactive: false, overcommit: false, killWaitSec: 0, reservation: "",
    wckey: "", threadsPerCore: 0, licenses: "", immediate: false, noRequeue: false,
    distribution: "", command: "", killOnInvalidDep: false, priority: 0, umask: 0, reqSwitch: 0, wait4switchSec: 0, gpuBind: "", ntasksPerGpu: 0,
  };
}

export function emptyNodeInfo(name: string): NodeInfoP {
  return {
    name, addr: "", port: 0, hostname: "", state: "UNKNOWN", stateFlags: [], reason: "",
    reasonUser: "", reasonTime: 0, cpus: 1, allocCpus: 0, sockets: 1, coresPerSocket: 1,
    threadsPerCore: 1, realMemoryMib: 1, allocMemoryMib: 0, freeMemoryMib: 0, gres: "",
    gresUsed: "", features: "", partitions: [], bootTime: 0, lastBusyTime: 0,
    registeredTime: 0, lastHeartbeat: 0, weight: 1, tmpDiskMib: 0, arch: "", os: "",
    version: "", cpuLoad: 0, gpuModel: "", gpuCount: 0, gpuAlloc: [], gpuTopology: "",
  };
}

export function emptyStepInfo(jobId: number, stepId: number): StepInfoP {
  return {
    jobId, stepId, name: "", state: "RUNNING", nodelist: "", ntasks: 1, cpus: 1,
    startTime: 0, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "", srunHost: "", srunPid: 0, distribution: "",
  };
}
