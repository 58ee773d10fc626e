/**
 * @module golden
 * Byte-exact stdout/stderr blocks of the recorded Slurm 22.05 goldens
 * (shared/oracle/golden/NNN-name.txt) and a JobInfo fixture builder for the
 * job-env, dependency and array-spec tests.
 */
import { readdirSync, readFileSync } from "node:fs";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import { GOLDEN_DIR_PATH } from "../../shared-dir.ts";

const GOLDEN_DIR = `${GOLDEN_DIR_PATH}/`;

function goldenBlock(num: string, stream: "stdout" | "stderr"): string {
  const file = readdirSync(GOLDEN_DIR).find((f) => f.startsWith(`${num}-`));
  if (file === undefined) throw new Error(`no golden ${num}`);
  const buf = readFileSync(GOLDEN_DIR + file);
  const m = new RegExp(`### ${stream} \\((\\d+) bytes\\):\\n`).exec(buf.toString("latin1"));
  if (m === null) throw new Error(`golden ${num} has no ${stream} block`);
  const start = m.index + m[0].length;
  return buf.subarray(start, start + Number(m[1])).toString("utf8");
}

export const goldenStdout = (num: string): string => goldenBlock(num, "stdout");
export const goldenStderr = (num: string): string => goldenBlock(num, "stderr");

/** A JobInfo with every field at its proto default, then `over`. */
export function makeJob(over: Partial<Plain<JobInfo>>): Plain<JobInfo> {
  const base: Plain<JobInfo> = {
    jobId: 1, arrayJobId: 0, arrayTaskId: -1, arrayTaskStr: "", arrayMaxTasks: 0, name: "job",
    uid: 0, user: "root", gid: 0, group: "root", account: "root", partition: "debug", qos: "normal",
    state: "RUNNING", stateFlags: [], reason: "None", priority: 1, nice: 0, submitTime: 0,
    eligibleTime: 0, startTime: 0, endTime: 0, suspendTime: 0, numNodes: 1, numCpus: 1,
    numTasks: 0, cpusPerTask: 0, ntasksPerNode: 0, memPerNodeMib: 0, memPerCpuMib: 0,
    reqNodelist: "", excNodelist: "", nodelist: "n1", schedNodelist: "", batchHost: "n1",
    alloc: [{ node: "n1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 0 }],
    tresReq: "", tresAlloc: "", tresPerNode: "", tresPerJob: "", workDir: "/tmp/slurm-oracle/jobs",
    stdOut: "", stdErr: "", stdIn: "/dev/null", command: "", exitCode: 0, exitSignal: 0,
    derivedExitCode: 0, dependency: "", features: "", comment: "", exclusive: false, requeue: true,
    restarts: 0, batchFlag: true, submitLine: "", submitHost: "vm", allocSid: 0, steps: [],
    lastSchedEval: 0, reservation: "", wckey: "", deadline: 0, preSusTime: 0, cancelledBy: "",
    heldByAdmin: false, killWaitSec: 0, signal: "",
  };
  return { ...base, ...over };
}
