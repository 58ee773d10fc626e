/**
 * @module net/ctl-port
 * The world a user command sees, injected so that every command's logic
 * (src/cli/<command>.ts) is a testable function: argv + env + this port in,
 * { stdout, stderr, exitCode } out. The real port (src/roles/cli/port-core.ts, its
 * controller calls in net/ctl-client/) talks to spurctld with Connect's JSON form
 * over plain fetch; tests pass a fake.
 */
import type {
  AcctListRequest,
  AcctListResponse,
  AcctModifyRequest,
  AcctModifyResponse,
  SharesRequest,
  SharesResponse,
  ReservationRequest,
  PartitionRequest,
  PartitionResponse,
  ReconfigureRequest,
  ReconfigureResponse,
  ReservationResponse,
  ListReservationsRequest,
  ListReservationsResponse,
  CancelRequest,
  CancelResponse,
  ConfigResponse,
  DiagRequest,
  DiagResponse,
  PriorityFactorsRequest,
  PriorityFactorsResponse,
  ListJobsRequest,
  ListJobsResponse,
  ListNodesRequest,
  ListNodesResponse,
  PingResponse,
  SubmitRequest,
  SubmitResponse,
  UpdateJobRequest,
  UpdateJobResponse,
  UpdateNodeRequest,
  WaitJobRequest,
  WaitJobResponse,
  IssueTokenRequest,
  IssueTokenResponse,
  TriggerSetRequest,
  TriggerSetResponse,
  TriggerClearRequest,
  TriggerClearResponse,
  TriggerListRequest,
  TriggerListResponse,
  JobScriptRequest,
  JobScriptResponse,
} from "./gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";

/** Error from the controller, already in Slurm's wording when it has one. */
export class RpcError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Slurm's error number of a controller rejection (the x-slurm-errno header; 0 = none). */
    readonly errno = 0,
  ) {
    super(message);
  }
}

/** ListJobs' answer: the listing-cache fields may be absent (older controllers, test fakes). */
export type ListJobsAnswer = Omit<Plain<ListJobsResponse>, "listVersion" | "listUnchanged" | "squeueTextZone"> &
  Partial<Pick<Plain<ListJobsResponse>, "listVersion" | "listUnchanged" | "squeueTextZone">>;

/** Controller calls. Each rejects with RpcError; "unavailable" when no controller answers. */
export interface ControllerPort {
  submit(req: Plain<SubmitRequest>): Promise<Plain<SubmitResponse>>;
  listJobs(req: Partial<Plain<ListJobsRequest>>): Promise<ListJobsAnswer>;
  /** `withDownSpans`: also every node's spans out of service (sreport); sinfo and the rest leave it out. */
  listNodes(req?: Partial<Plain<ListNodesRequest>>): Promise<Plain<ListNodesResponse>>;
  cancel(req: Plain<CancelRequest>): Promise<Plain<CancelResponse>>;
  updateJob(req: Plain<UpdateJobRequest>): Promise<Plain<UpdateJobResponse>>;
  updateNode(req: Plain<UpdateNodeRequest>): Promise<void>;
  ping(): Promise<Plain<PingResponse>>;
  getConfig(): Promise<Plain<ConfigResponse>>;
  waitJob(req: Plain<WaitJobRequest>): Promise<Plain<WaitJobResponse>>;
  /** scontrol token (optional so that test fakes need not implement it). */
  issueToken?(req: Plain<IssueTokenRequest>): Promise<Plain<IssueTokenResponse>>;
  /** Replicated controllers: ping each one (undefined ping = no answer). Absent: one controller. */
  pingAll?(): Promise<{ url: string; ping?: Plain<PingResponse> }[]>;
  /** sprio and sdiag (optional so that test fakes of the other commands need not provide them). */
  getPriorityFactors?(req: Plain<PriorityFactorsRequest>): Promise<Plain<PriorityFactorsResponse>>;
  getDiag?(req: Plain<DiagRequest>): Promise<Plain<DiagResponse>>;
  /** sacctmgr and sshare (optional for the same reason). */
  acctModify?(req: Plain<AcctModifyRequest>): Promise<Plain<AcctModifyResponse>>;
  acctList?(req: Plain<AcctListRequest>): Promise<Plain<AcctListResponse>>;
  getShares?(req: Plain<SharesRequest>): Promise<Plain<SharesResponse>>;
  /** scontrol's reservation commands and sinfo -T. */
  reservation?(req: Plain<ReservationRequest>): Promise<Plain<ReservationResponse>>;
  /** scontrol create|update|delete partition. */
  partition?(req: Plain<PartitionRequest>): Promise<Plain<PartitionResponse>>;
  /** scontrol reconfigure. */
  reconfigure?(req: Plain<ReconfigureRequest>): Promise<Plain<ReconfigureResponse>>;
  listReservations?(req: Plain<ListReservationsRequest>): Promise<Plain<ListReservationsResponse>>;
  /** strigger. */
  setTrigger?(req: Plain<TriggerSetRequest>): Promise<Plain<TriggerSetResponse>>;
  clearTrigger?(req: Plain<TriggerClearRequest>): Promise<Plain<TriggerClearResponse>>;
  listTriggers?(req: Plain<TriggerListRequest>): Promise<Plain<TriggerListResponse>>;
  /** A batch job's script (owner, root and operators only). */
  getJobScript?(req: Plain<JobScriptRequest>): Promise<Plain<JobScriptResponse>>;
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
  /** spur.conf's ClusterName (-M is checked against it); unset when there is no spur.conf to read. */
  clusterName?: string;
}

import type { ListPidsRequest, ListPidsResponse } from "./gen/spur/v1/agent_pb.ts";

export interface CliPort {
  ctl: ControllerPort;
  invoker: Invoker;
  env: Record<string, string | undefined>;
  /** Seconds since the epoch (fractional). */
  now(): number;
  /** Local time zone offset handling is the formatter's: it receives epoch seconds. */
  readFile(path: string): Promise<string | undefined>;
  /** Whether a file (not a directory) is at `path` (sbatch's Command= lookup); unset: Command= is the script's absolute path. */
  fileExists?(path: string): Promise<boolean>;
  readStdin(): Promise<string>;
  /** Write `text` to `path` (relative to the invoker's cwd) as the invoking user; the system's reason (strerror) on failure. */
  writeFile?(path: string, text: string): Promise<string | undefined>;
  /** Streams for commands that print while they wait (sbatch --wait, srun). */
  write(stream: "stdout" | "stderr", text: string): void;
  sleep(ms: number): Promise<void>;
  /** One answer line from the user (terminal or pipe); undefined when none came within timeoutMs (sacctmgr's prompt). */
  readLine?(timeoutMs: number): Promise<string | undefined>;
  /** scontrol listpids: ask the node agent at addr:port (on this host) for its steps' processes. */
  agentListPids?(addr: string, port: number, req: Plain<ListPidsRequest>): Promise<Plain<ListPidsResponse>>;
  /** Whether a user name or uid exists on this host (squeue -u); unset: every user counts as known. */
  userKnown?(nameOrUid: string): boolean;
  /** The uid of a user name or uid on this host (scontrol update UserID=); unset or unknown: undefined. */
  uidOf?(nameOrUid: string): number | undefined;
  /**
   * The shell writes a result's `stdoutMore` chunk by chunk as it is produced (roles/cli/run.ts).
   * Unset (tests' ports): a command puts its whole output in `stdout`.
   */
  streamsOutput?: boolean;
}

export interface CliResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  /**
   * Output after `stdout`, produced while it is written (only for a port that `streamsOutput`):
   * `squeue --json` with 10k jobs is ~70 MiB, never held whole.
   */
  stdoutMore?: Iterable<string>;
}
