/**
 * @module sched/model/trigger-types
 * Event triggers (strigger) as replicated data: what the trigger waits for, whose program
 * runs, and whether its event has happened ("pulled") but the program has not run yet.
 * A leaf: the trigger logic (triggers.ts) and the state type (types.ts) both import it,
 * and it imports nothing, so the trigger files stay outside the sched import cycle.
 */

/** Slurm's resource types, as `strigger --get` names them. */
export type TriggerResType = "job" | "node" | "slurmctld" | "slurmdbd" | "database" | "burst_buffer" | "front_end";

/**
 * Slurm's trigger types, as `strigger --get` names them. A trigger set with several event
 * options waits for any of them (Slurm ORs the type bits; --get then shows "unknown").
 */
export const TRIGGER_TYPES = [
  "up", "down", "fail", "time", "fini", "reconfig", "idle", "drained",
  "primary_slurmctld_failure", "primary_slurmctld_resumed_operation", "primary_slurmctld_resumed_control",
  "backup_slurmctld_failure", "backup_slurmctld_resumed_operation", "backup_slurmctld_assumed_control",
  "primary_slurmctld_acct_buffer_full", "primary_slurmdbd_failure", "primary_slurmdbd_resumed_operation",
  "primary_database_failure", "primary_database_resumed_operation", "burst_buffer",
] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export interface TriggerRecord {
  id: number;
  resType: TriggerResType;
  /** A job id, a node hostlist, or "*" (every node / not tied to one resource). */
  resId: string;
  types: TriggerType[];
  /** Seconds after the event the program runs (negative: before a job's time limit). */
  offsetSec: number;
  uid: number;
  gid: number;
  user: string;
  /** --flags=PERM: kept after it fired, to fire again at the next event. */
  perm: boolean;
  /** The program and its own arguments, as given (split at spaces when run). */
  program: string;
  /** Set when an edge event (a node going down, up, ...) happened: when, and the argument the program gets. */
  pulled?: { at: number; arg: string };
  /** The event time it last fired for (a PERM trigger on a condition that stays true fires once per event). */
  firedFor?: number;
}

export interface TriggerTable {
  nextId: number;
  list: TriggerRecord[];
}

/** Bound on the table: a set beyond it is refused (every list in the state has a limit). */
export const MAX_TRIGGERS = 10_000;

export const newTriggerTable = (): TriggerTable => ({ nextId: 1, list: [] });
