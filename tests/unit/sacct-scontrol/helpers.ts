/**
 * @module tests/sacct-scontrol/helpers
 * Shared test kit for the sacct/scontrol/scancel goldens: the golden-file
 * reader (byte counts from the "### stdout (N bytes):" headers), record
 * builders with Slurm-like defaults, times on the oracle's day (2026-12-02,
 * UTC) and a fake CliPort that records controller calls.
 */
import { readFileSync, readdirSync } from "node:fs";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo, NodeInfo, PartitionInfo, StepInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import type {
  CancelRequest,
  CancelResponse,
  JobResult,
  PingResponse,
  UpdateJobRequest,
  UpdateNodeRequest,
} from "../../../src/net/gen/spur/v1/controller_pb.ts";
import type { CliPort } from "../../../src/net/ctl-port.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { GOLDEN_DIR_PATH } from "../../shared-dir.ts";

process.env.TZ = "UTC";

export type Job = Plain<JobInfo>;
export type Step = Plain<StepInfo>;
export type Node = Plain<NodeInfo>;
export type Partition = Plain<PartitionInfo>;

const GOLDEN_DIR = GOLDEN_DIR_PATH;

export interface Golden {
  command: string;
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** Read golden NNN (e.g. "102") into its command, streams and exit code. */
export function loadGolden(number: string): Golden {
  const file = readdirSync(GOLDEN_DIR).find((f) => f.startsWith(`${number}-`));
  if (file === undefined) throw new Error(`no golden ${number}`);
  const text = readFileSync(`${GOLDEN_DIR}/${file}`).toString("latin1");
  const command = /### command:\n(.*)\n/.exec(text)?.[1] ?? "";
  const exitCode = Number(/### exit_code: (\d+)/.exec(text)?.[1] ?? "0");
  const stream = (name: string): string => {
    const m = new RegExp(`### ${name} \\((\\d+) bytes\\):\\n`).exec(text);
    if (!m) throw new Error(`no ${name} in golden ${number}`);
    const start = m.index + m[0].length;
    return text.slice(start, start + Number(m[1]));
  };
  return { command, stdout: stream("stdout"), stderr: stream("stderr"), exitCode };
}

/** Split a golden command line into argv (quotes respected, program dropped). */
export function argvOf(command: string): string[] {
  const words = command.match(/"[^"]*"|'[^']*'|\S+/g) ?? [];
  return words.slice(1).map((w) => w.replace(/^["']|["']$/g, ""));
}

/** Epoch seconds of an oracle-day clock time ("12:36:11" on 2026-12-02 UTC). */
export const at = (clock: string): number => Date.UTC(2026, 11, 2, ...clock.split(":").map(Number)) / 1000;

export function makeJob(p: Partial<Job> & { jobId: number }): Job {
  return {
    arrayJobId: 0, arrayTaskId: -1, arrayTaskStr: "", arrayMaxTasks: 0, name: "wrap",
    uid: 0, user: "root", gid: 0, group: "root", account: "root", partition: "debug", qos: "normal",
    state: "COMPLETED", stateFlags: [], reason: "None", priority: 11156, nice: 0,
    submitTime: 0, eligibleTime: 0, startTime: 0, endTime: 0, suspendTime: 0,
    numNodes: 1, numCpus: 1, numTasks: 1, cpusPerTask: 1, ntasksPerNode: 0,
    memPerNodeMib: 0, memPerCpuMib: 256, reqNodelist: "", excNodelist: "", nodelist: "",
    schedNodelist: "", batchHost: "", alloc: [], tresReq: "cpu=1,mem=256M,node=1,billing=1",
    tresAlloc: "", tresPerNode: "", tresPerJob: "", workDir: "/tmp/slurm-oracle/jobs",
    stdOut: "", stdErr: "", stdIn: "/dev/null", command: "", exitCode: 0, exitSignal: 0,
    derivedExitCode: 0, dependency: "", features: "", comment: "", exclusive: false, requeue: true,
    restarts: 0, batchFlag: true, submitLine: "", submitHost: "localhost", allocSid: 1451,
    steps: [], lastSchedEval: 0, reservation: "", wckey: "", deadline: 0, preSusTime: 0,
    cancelledBy: "", heldByAdmin: false, killWaitSec: 30, signal: "",
    ...p,
  };
}

export function makeStep(p: Partial<Step> & { jobId: number; stepId: number }): Step {
  return {
    name: p.stepId === -5 ? "batch" : "hostname", state: "COMPLETED", nodelist: "n1", ntasks: 1,
    cpus: 1, startTime: 0, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "cpu=1,mem=256M,node=1",
    ...p,
  };
}

export function makeNode(p: Partial<Node> & { name: string }): Node {
  return {
    addr: "127.0.0.1", port: 17001, hostname: "localhost", state: "IDLE", stateFlags: [], reason: "",
    reasonUser: "", reasonTime: 0, cpus: 4, allocCpus: 0, sockets: 1, coresPerSocket: 4,
    threadsPerCore: 1, realMemoryMib: 4000, allocMemoryMib: 0, freeMemoryMib: 23609, gres: "",
    gresUsed: "", features: "", partitions: ["debug"], bootTime: 0, lastBusyTime: 0,
    registeredTime: 0, lastHeartbeat: 0, weight: 1, tmpDiskMib: 0, arch: "x86_64",
    os: "Linux 6.18.44-fc-v1045 #1 SMP PREEMPT_DYNAMIC @0", version: "22.05.8", cpuLoad: 0.68,
    gpuModel: "", gpuCount: 0, gpuAlloc: [], gpuTopology: "",
    ...p,
  };
}

export function makePartition(p: Partial<Partition> & { name: string }): Partition {
  return {
    nodes: "", isDefault: false, state: "UP", minNodes: 0, priorityTier: 1, priorityJobFactor: 1,
    totalCpus: 0, totalNodes: 0, tres: "", oversubscribe: "NO", rootOnly: false, allowGroups: "",
    allowAccounts: "", allowQos: "", hidden: false, graceTimeSec: 0,
    ...p,
  };
}

export interface FakeWorld {
  jobs?: Job[];
  nodes?: Node[];
  partitions?: Partition[];
  /** slurm.conf Licenses= as listNodes reports them (scontrol show licenses). */
  licenses?: { name: string; total: number; used: number; reserved: number }[];
  /** When nodes were DOWN or drained (sreport's Down). */
  downSpans?: { node: string; start: number; end: number; state: string; reason: string }[];
  config?: Record<string, string>;
  ping?: Plain<PingResponse> | Error;
  now: number;
  uid?: number;
  user?: string;
  env?: Record<string, string>;
  stdin?: string;
  cancelResults?: (req: Plain<CancelRequest>) => Plain<JobResult>[];
  updateResults?: (req: Plain<UpdateJobRequest>) => Plain<JobResult>[];
  updateNodeError?: string;
  listError?: string;
}

export interface Calls {
  listJobs: unknown[];
  cancel: Plain<CancelRequest>[];
  updateJob: Plain<UpdateJobRequest>[];
  updateNode: Plain<UpdateNodeRequest>[];
  writes: string[];
}

/** A CliPort over fixed records; every controller call is recorded. */
export function fakePort(world: FakeWorld): { port: CliPort; calls: Calls } {
  const calls: Calls = { listJobs: [], cancel: [], updateJob: [], updateNode: [], writes: [] };
  const unused = (): never => {
    throw new Error("not used in these tests");
  };
  const port: CliPort = {
    ctl: {
      submit: unused,
      listJobs: async (req) => {
        calls.listJobs.push(req);
        if (world.listError) throw new RpcError("unavailable", world.listError);
        return { jobs: world.jobs ?? [], now: world.now, clusterName: "oracle" };
      },
      listNodes: async () => ({ nodes: world.nodes ?? [], partitions: world.partitions ?? [], now: world.now, licenses: world.licenses ?? [], downSpans: world.downSpans ?? [] }),
      cancel: async (req): Promise<Plain<CancelResponse>> => {
        calls.cancel.push(req);
        return { results: world.cancelResults?.(req) ?? [] };
      },
      updateJob: async (req) => {
        calls.updateJob.push(req);
        return { results: world.updateResults?.(req) ?? req.jobIds.map((id) => ({ jobId: id, error: "", errorCode: 0 })) };
      },
      updateNode: async (req) => {
        calls.updateNode.push(req);
        if (world.updateNodeError) throw new RpcError("invalid", world.updateNodeError);
      },
      ping: async () => {
        if (world.ping instanceof Error) throw world.ping;
        return world.ping ?? { controller: "vm", primary: true, now: world.now, version: "22.05.8", pid: 1, started: 0 };
      },
      getConfig: async () => ({ entries: world.config ?? {} }),
      waitJob: unused,
    },
    invoker: { uid: world.uid ?? 0, gid: 0, user: world.user ?? "root", group: "root", cwd: "/tmp", hostname: "vm" },
    env: world.env ?? {},
    now: () => world.now,
    readFile: async () => undefined,
    readStdin: async () => world.stdin ?? "",
    write: (_stream, text) => {
      calls.writes.push(text);
    },
    sleep: async () => {},
  };
  return { port, calls };
}
