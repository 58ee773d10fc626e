/**
 * @module cli/io
 * The world a user command sees, injected so that every command's logic
 * (src/cli/<command>.ts) is a testable function: argv + env + this port in,
 * { stdout, stderr, exitCode } out. The real port (src/roles/cli/port.ts) talks
 * to spurctld with Connect's JSON form over plain fetch; tests pass a fake.
 */
import type {
  CancelRequest,
  CancelResponse,
  ConfigResponse,
  ListJobsRequest,
  ListJobsResponse,
  ListNodesResponse,
  PingResponse,
  SubmitRequest,
  SubmitResponse,
  UpdateJobRequest,
  UpdateJobResponse,
  UpdateNodeRequest,
  WaitJobRequest,
  WaitJobResponse,
} from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";

/** Error from the controller, already in Slurm's wording when it has one. */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** Controller calls. Each rejects with RpcError; "unavailable" when no controller answers. */
export interface ControllerPort {
  submit(req: Plain<SubmitRequest>): Promise<Plain<SubmitResponse>>;
  listJobs(req: Partial<Plain<ListJobsRequest>>): Promise<Plain<ListJobsResponse>>;
  listNodes(): Promise<Plain<ListNodesResponse>>;
  cancel(req: Plain<CancelRequest>): Promise<Plain<CancelResponse>>;
  updateJob(req: Plain<UpdateJobRequest>): Promise<Plain<UpdateJobResponse>>;
  updateNode(req: Plain<UpdateNodeRequest>): Promise<void>;
  ping(): Promise<Plain<PingResponse>>;
  getConfig(): Promise<Plain<ConfigResponse>>;
  waitJob(req: Plain<WaitJobRequest>): Promise<Plain<WaitJobResponse>>;
}

/** Who runs the command and where. */
export interface Invoker {
  uid: number;
  gid: number;
  user: string;
  group: string;
  cwd: string;
  hostname: string;
  /** process.umask() of the command (sbatch records it as SLURM_UMASK). */
  umask?: number;
}

export interface CliPort {
  ctl: ControllerPort;
  invoker: Invoker;
  env: Record<string, string | undefined>;
  /** Seconds since the epoch (fractional). */
  now(): number;
  /** Local time zone offset handling is the formatter's: it receives epoch seconds. */
  readFile(path: string): Promise<string | undefined>;
  readStdin(): Promise<string>;
  /** Streams for commands that print while they wait (sbatch --wait, srun). */
  write(stream: "stdout" | "stderr", text: string): void;
  sleep(ms: number): Promise<void>;
  /** Whether a user name or uid exists on this host (squeue -u); unset: every user counts as known. */
  userKnown?(nameOrUid: string): boolean;
}

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}
