/**
 * @module tests/unit/options/helpers
 * Shared by the option tests: the golden-file reader (Slurm 22.05 oracle outputs) and a
 * fake CliPort whose controller answers the way spurctld does (or rejects with RpcError).
 */
import { readFileSync } from "node:fs";
import { RpcError, type CliPort, type ControllerPort } from "../../../src/net/ctl-port.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import { absolutePath } from "../../../src/compat/options/build-state.ts";
import type { JobInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import type { SubmitRequest, SubmitResponse } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { GOLDEN_DIR_PATH, SURFACE_DIR_PATH } from "../../shared-dir.ts";

export const GOLDEN_DIR = GOLDEN_DIR_PATH;
export const SURFACE_DIR = SURFACE_DIR_PATH;

export interface Golden {
  command: string;
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Read one golden file: the raw stdout/stderr blocks by their byte counts. */
export function readGolden(name: string): Golden {
  const buf = readFileSync(`${GOLDEN_DIR}/${name}`);
  const text = buf.toString("latin1");
  const command = /### command:\n(.*)\n/.exec(text)?.[1] ?? "";
  const exitCode = Number(/### exit_code: (\d+)/.exec(text)?.[1]);
  const block = (label: string): string => {
    const m = new RegExp(`### ${label} \\((\\d+) bytes\\):\\n`).exec(text);
    if (m === null) throw new Error(`no ${label} block in ${name}`);
    const start = m.index + m[0].length;
    return buf.subarray(start, start + Number(m[1])).toString("utf8");
  };
  return { command, exitCode, stdout: block("stdout"), stderr: block("stderr") };
}

export function job(over: Partial<Plain<JobInfo>>): Plain<JobInfo> {
  return { jobId: 1, arrayJobId: 0, arrayTaskId: -1, state: "COMPLETED", exitCode: 0, exitSignal: 0, ...over } as Plain<JobInfo>;
}

export interface FakeOptions {
  jobId?: number;
  reject?: RpcError;
  response?: Partial<Plain<SubmitResponse>>;
  files?: Record<string, string>;
  stdin?: string;
  env?: Record<string, string>;
  /** Successive WaitJob answers (the last one repeats). */
  waits?: (Plain<JobInfo> | RpcError | undefined)[];
  listed?: Plain<JobInfo>[];
}

export interface Fake {
  port: CliPort;
  submitted: Plain<SubmitRequest>[];
  written: string[];
  slept: number[];
}

export function fakePort(o: FakeOptions = {}): Fake {
  const submitted: Plain<SubmitRequest>[] = [];
  const written: string[] = [];
  const slept: number[] = [];
  let waitIndex = 0;
  const ctl: Partial<ControllerPort> = {
    submit: async (req) => {
      submitted.push(req);
      if (o.reject !== undefined) throw o.reject;
      return { jobId: o.jobId ?? 1, warnings: [], startEstimate: 0, nodelist: "", cpus: 0, partition: "", ...o.response };
    },
    waitJob: async () => {
      const waits = o.waits ?? [job({ jobId: o.jobId ?? 1 })];
      const w = waits[Math.min(waitIndex++, waits.length - 1)];
      if (w instanceof RpcError) throw w;
      return { job: w };
    },
    listJobs: async () => ({ jobs: o.listed ?? [], now: 0, clusterName: "oracle" }),
  };
  const port: CliPort = {
    ctl: ctl as ControllerPort,
    invoker: { uid: 0, gid: 0, user: "root", group: "root", cwd: "/tmp/slurm-oracle/jobs", hostname: "vm" },
    env: o.env ?? { HOME: "/root", PATH: "/usr/bin:/bin", SLURM_CONF: "/tmp/slurm-oracle/etc/slurm.conf" },
    now: () => new Date(2026, 11, 2, 12, 35, 0).getTime() / 1000,
    readFile: async (path) => o.files?.[path],
    // the files as if in the invoker's cwd (relative names) or where named (absolute ones)
    fileExists: async (path) => Object.keys(o.files ?? {}).some((f) => absolutePath("/tmp/slurm-oracle/jobs", f) === absolutePath("/", path)),
    readStdin: async () => o.stdin ?? "",
    write: (stream, text) => {
      if (text !== "") written.push(`${stream}:${text}`);
    },
    sleep: async (ms) => {
      slept.push(ms);
    },
  };
  return { port, submitted, written, slept };
}
