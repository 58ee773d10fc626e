/**
 * @module compat/rpc-message-types
 * sdiag's "Remote Procedure Call statistics by message type" names Slurm's message types with
 * their numbers; Spur's controller methods are named here as the Slurm message that does the
 * same work (names and numbers read off the oracle: 22.05's sdiag after running each client
 * command). A method with no single Slurm counterpart (one method for create/update/delete, or
 * Spur's own: heartbeats, overlay, tokens) keeps its own name, upper-cased, with number 0.
 * Where one method serves two Slurm messages the more common one is named: Submit counts salloc's
 * and srun's allocations as REQUEST_SUBMIT_BATCH_JOB (Slurm: REQUEST_RESOURCE_ALLOCATION). Pure.
 */

const BY_METHOD: Readonly<Record<string, readonly [string, number]>> = {
  Submit: ["REQUEST_SUBMIT_BATCH_JOB", 4003],
  ListJobs: ["REQUEST_JOB_INFO", 2003],
  ListNodes: ["REQUEST_NODE_INFO", 2007],
  Cancel: ["REQUEST_KILL_JOB", 5032],
  UpdateJob: ["REQUEST_UPDATE_JOB", 3001],
  UpdateNode: ["REQUEST_UPDATE_NODE", 3002],
  Ping: ["REQUEST_PING", 1008],
  GetConfig: ["REQUEST_BUILD_INFO", 2001],
  WaitJob: ["REQUEST_JOB_READY", 4019],
  StepCreate: ["REQUEST_JOB_STEP_CREATE", 5001],
  StepComplete: ["REQUEST_STEP_COMPLETE", 5016],
  JobDone: ["REQUEST_COMPLETE_JOB_ALLOCATION", 5017],
  RegisterNode: ["MESSAGE_NODE_REGISTRATION_STATUS", 1002],
  BatchComplete: ["REQUEST_COMPLETE_BATCH_SCRIPT", 5018],
  GetPriorityFactors: ["REQUEST_PRIORITY_FACTORS", 2026],
  GetDiag: ["REQUEST_STATS_INFO", 2035],
  GetShares: ["REQUEST_SHARE_INFO", 2022],
  ListReservations: ["REQUEST_RESERVATION_INFO", 2024],
  Partition: ["REQUEST_UPDATE_PARTITION", 3005],
  Reconfigure: ["REQUEST_RECONFIGURE", 1003],
  SetTrigger: ["REQUEST_TRIGGER_SET", 2017],
  ListTriggers: ["REQUEST_TRIGGER_GET", 2018],
  GetJobScript: ["REQUEST_BATCH_SCRIPT", 2051],
};

/** "RecordStepUsage" → "RECORD_STEP_USAGE". */
const upperSnake = (name: string): string => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();

/** The message type sdiag names for a served path ("/spur.v1.Controller/Submit", or "other"), with its number. */
export function rpcMessageType(path: string): { name: string; id: number } {
  const method = path.slice(path.lastIndexOf("/") + 1);
  const known = BY_METHOD[method];
  return known === undefined ? { name: upperSnake(method), id: 0 } : { name: known[0], id: known[1] };
}
