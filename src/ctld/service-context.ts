/**
 * @module ctld/service-context
 * What every Controller RPC handler shares: the ServiceContext the service is built with,
 * the caller as a Requester (its uid from the transport's verdict), and the mapping of an
 * apply rejection to a Connect error. A leaf below `service.ts` and its `service-*.ts`
 * parts, so the parts need not import the file that assembles them.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { RaftStatus } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import type { Controller } from "./controller.ts";
import type { Requester } from "../sched/model/commands.ts";
import { peerUid } from "../net/rpc-server.ts";
import type { CallHeaders } from "../net/rpc-unary-fast.ts";
import { lookupUid } from "../net/users.ts";
import type { Keyring } from "../net/rest/keyring.ts";
import { SLURM_ERRNO_HEADER, SLURM_ERRORS, type RpcClass, type SlurmErrorName } from "../compat/slurm-errors.ts";
import type { RpcMetrics } from "../net/rpc-metrics.ts";

export interface ServiceContext {
  controller: Controller;
  now: () => number;
  controllerName: string;
  startedAt: number;
  /** uid the controller runs as: agents must run as it or as root. */
  selfUid: number;
  confPath: string;
  /** scontrol show config: SlurmctldPort, SlurmctldHost[0]'s address, SlurmctldLogFile, spur.conf's settings (config-view). */
  port?: number;
  address?: string;
  logFile?: string;
  globals?: ReadonlyMap<string, string>;
  /** JWT key (scontrol token, tokens forwarded by spurrestd); absent = JWT off. */
  keyring?: Keyring;
  /** spur.conf JobSubmitScript: the site's job_submit hook ("" = none). */
  jobSubmitScript?: string;
  /** Replicated controllers: this replica's Raft view for Ping (undefined: single controller). */
  raftStatus?: () => Plain<RaftStatus>;
  /**
   * Set when spur.conf names a cluster secret: agent RPCs must then carry a credential
   * (net/cluster-auth); `refused` logs each refusal (rate-limited by the caller's wiring).
   */
  agentAuth?: { refused(method: string, why: string): void };
  /** This daemon's RPC counts and times (net/rpc-metrics): sdiag's RPC tables; absent: none shown. */
  rpcStats?: Pick<RpcMetrics, "totals" | "resetTotals">;
  /** Replicated controllers: add or remove a replica (called on any replica; refuses unless leading). */
  changeControllers?: (req: { action: string; id: number; address: string; force: boolean }) => Promise<{ voters: number[]; learners: number[] }>;
}

export function requester(ctx: CallHeaders): Requester {
  const uid = peerUid(ctx);
  const u = lookupUid(uid);
  return { uid, gid: u.gid, user: u.name, group: u.group };
}

const CONNECT_CODE: Record<RpcClass, Code> = {
  invalid_argument: Code.InvalidArgument,
  permission_denied: Code.PermissionDenied,
  not_found: Code.NotFound,
  resource_exhausted: Code.ResourceExhausted,
  already_exists: Code.AlreadyExists,
  internal: Code.Internal,
};

/**
 * A rejection as the clients receive it: the rejection's own words, the Connect code of its
 * class, and Slurm's error number in the `x-slurm-errno` header (compat/slurm-errors.ts).
 */
export function rejectionError(message: string, name: SlurmErrorName | ""): ConnectError {
  const row = SLURM_ERRORS[name === "" ? "Internal" : name];
  const metadata = row.errno > 0 ? new Headers({ [SLURM_ERRNO_HEADER]: String(row.errno) }) : undefined;
  return new ConnectError(message || row.text, CONNECT_CODE[row.rpc], metadata);
}

/** Throw the typed rejection of an apply result, if it is one. */
export function rejectIfError(result: { error: string; errorCode: SlurmErrorName | "" }): void {
  if (result.error !== "") throw rejectionError(result.error, result.errorCode);
}
