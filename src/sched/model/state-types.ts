/**
 * @module sched/model/state-types
 * The records the controller's replicated state stores and its commands carry, in one place,
 * with their version. They are the state's own types: nothing under src/sched imports the
 * generated protobuf types (tests/architecture/rules.ts forbids it); the shells map between
 * the two in src/ctld/wire-map, where a .proto change that these records do not follow is a
 * compile error instead of a silent change of the state machine, the Raft commands' meaning
 * and the snapshot format.
 */

/**
 * Version of the record shapes below. Bump it when a field is added, removed, renamed or
 * changes meaning; the snapshot header records it (ctld/state-snapshot.ts) and a restore
 * of an older version goes through its upgrade there; commands change their `v` likewise.
 * 1: the shapes the wire had when the state got its own types (snapshot format 3 and before).
 */
export const STATE_TYPES_VERSION = 1;

export type { GresRequestState, JobSpecState } from "./state-job-spec.ts";
export type { JobInfoState, NodeAllocState, StepInfoState, StepUsageState } from "./state-job-info.ts";
export type { NodeInfoState, PartitionInfoState } from "./state-node.ts";

/** Which jobs a command acts on (scancel's selection; the cancel command's payload). */
export interface JobFilterState {
  /** "17", "17_2", "17_[1-3]" */
  jobIds: string[];
  user: string;
  name: string;
  partition: string;
  states: string[];
  account: string;
  nodelist: string;
  qos: string;
  reservation: string;
}
