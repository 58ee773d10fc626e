/**
 * @module compat/slurm-errors
 * The typed errors a controller command can be rejected with: each has Slurm's error number
 * (slurm_errno.h; 0 where Slurm has none and the rejection is Spur's own), the text Slurm
 * prints for it when a rejection carries no more specific wording, and the class of RPC
 * failure it travels as. `apply()` rejects with a name from this table; the RPC layer turns
 * the name into the Connect code and an `x-slurm-errno` header; the CLIs and spurrestd read
 * the number back (REST `error_number`, scancel's exit status). One table, so a code cannot
 * mean one thing in apply and another at the edge.
 */

/** How a rejection travels over RPC (a Connect code, named without importing Connect here). */
export type RpcClass = "invalid_argument" | "permission_denied" | "not_found" | "resource_exhausted" | "already_exists" | "internal";

interface SlurmErrorRow {
  /** Slurm's error number (slurm_errno.h); 0 = no Slurm number (Spur's own rejection). */
  errno: number;
  /** Slurm's text for the number (used when the rejection gives none of its own). */
  text: string;
  rpc: RpcClass;
}

export const SLURM_ERRORS = {
  InvalidArgument: { errno: 22, text: "Invalid argument", rpc: "invalid_argument" },
  InvalidPartitionName: { errno: 2000, text: "Invalid partition name specified", rpc: "invalid_argument" },
  AccessDenied: { errno: 2002, text: "Access/permission denied", rpc: "permission_denied" },
  JobScriptMissing: { errno: 2009, text: "Job script not specified", rpc: "invalid_argument" },
  UserIdMissing: { errno: 2010, text: "Invalid user id", rpc: "permission_denied" },
  InvalidJobId: { errno: 2017, text: "Invalid job id specified", rpc: "invalid_argument" },
  InvalidNodeName: { errno: 2018, text: "Invalid node name specified", rpc: "invalid_argument" },
  AlreadyDone: { errno: 2021, text: "Job/step already completing or completed", rpc: "invalid_argument" },
  InvalidNodeState: { errno: 2028, text: "Invalid node state specified", rpc: "invalid_argument" },
  InvalidFeature: { errno: 2029, text: "Invalid feature specification", rpc: "invalid_argument" },
  InvalidTimeLimit: { errno: 2051, text: "Requested time limit is invalid (missing or exceeds some limit)", rpc: "invalid_argument" },
  ReservationInvalid: { errno: 2053, text: "Requested reservation is invalid", rpc: "invalid_argument" },
  // 22.05's libslurm: slurm_strerror(2124)
  InvalidTimeMin: { errno: 2124, text: "Invalid time-min specification (exceeds job's time or other limits)", rpc: "invalid_argument" },
  PartitionInUse: { errno: 2075, text: "Partition is in use", rpc: "invalid_argument" },
  TriggerDuplicate: { errno: 2089, text: "Duplicate event trigger", rpc: "already_exists" },
  Internal: { errno: 2090, text: "Slurm internal error, contact system administrator", rpc: "internal" },
  /** The site's job_submit hook or a submission check refused the job: its own words, no single Slurm number. */
  SubmitRejected: { errno: 0, text: "Job submission rejected", rpc: "invalid_argument" },
  /** sacctmgr's change refused by the accounting rules: its own words, no single Slurm number. */
  AcctRejected: { errno: 0, text: "Accounting change rejected", rpc: "invalid_argument" },
  /** errno EAGAIN: a table is full (triggers). */
  TryAgain: { errno: 11, text: "Resource temporarily unavailable", rpc: "resource_exhausted" },
  /** errno ESRCH: nothing matched (strigger --clear). */
  NoSuchProcess: { errno: 3, text: "No such process", rpc: "not_found" },
  /** Spur's own: a command from a newer version, or a bug caught by apply (see apply.ts). */
  ApplyFailed: { errno: 0, text: "internal error applying a command", rpc: "internal" },
  /** Spur's own: an end report for an earlier run of a requeued job (ignored, as Slurm ignores a late batch complete). */
  StaleJobEnd: { errno: 0, text: "end report for an earlier run ignored", rpc: "invalid_argument" },
} as const satisfies Record<string, SlurmErrorRow>;

export type SlurmErrorName = keyof typeof SLURM_ERRORS;

/** The header that carries a rejection's Slurm error number from the controller to its clients. */
export const SLURM_ERRNO_HEADER = "x-slurm-errno";

export const isSlurmErrorName = (name: string): name is SlurmErrorName => Object.hasOwn(SLURM_ERRORS, name);

/** Slurm's number for a rejection code ("" or unknown: 0). */
export function slurmErrno(name: string): number {
  return isSlurmErrorName(name) ? SLURM_ERRORS[name].errno : 0;
}
