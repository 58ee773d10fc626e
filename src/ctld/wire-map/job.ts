/**
 * @module ctld/wire-map/job
 * Jobs, steps, allocations, usage and job filters between the wire (protobuf, net/gen) and the
 * replicated state (sched/model/state-types.ts). Every crossing in src/ctld goes through these
 * functions. Today each state record has the fields of its wire message exactly (InStep below,
 * checked at compile time), so state -> wire passes the record itself: listing 100k jobs copies
 * nothing. Wire -> state drops protobuf-es's message brand ($typeName, $unknown), so that a
 * logged command or a snapshot holds plain data only. When a .proto change breaks an InStep
 * check, the conversion of that field is written here (see in-step.ts for what else changes).
 */
import type { Plain } from "../../lib/plain.ts";
import { toPlain } from "../../lib/to-plain.ts";
import type { GresRequest, JobInfo, JobSpec, NodeAlloc, StepInfo, StepUsage } from "../../net/gen/spur/v1/types_pb.ts";
import type { JobFilter } from "../../net/gen/spur/v1/controller_pb.ts";
import type {
  GresRequestState, JobFilterState, JobInfoState, JobSpecState, NodeAllocState, StepInfoState, StepUsageState,
} from "../../sched/model/state-types.ts";
import type { InStep } from "./in-step.ts";

/** Compile-time: each state record and its wire message agree field by field (types and optionality). */
export const JOB_RECORDS_IN_STEP: [
  InStep<JobInfoState, Plain<JobInfo>>,
  InStep<JobSpecState, Plain<JobSpec>>,
  InStep<GresRequestState, Plain<GresRequest>>,
  InStep<StepInfoState, Plain<StepInfo>>,
  InStep<NodeAllocState, Plain<NodeAlloc>>,
  InStep<StepUsageState, Plain<StepUsage>>,
  InStep<JobFilterState, Plain<JobFilter>>,
] = [true, true, true, true, true, true, true];

// State -> wire: the record itself (same fields, checked above).
export const jobInfoToWire = (job: JobInfoState): Plain<JobInfo> => job;
export const jobInfosToWire = (jobs: JobInfoState[]): Plain<JobInfo>[] => jobs;
export const jobSpecToWire = (spec: JobSpecState): Plain<JobSpec> => spec;
export const stepInfoToWire = (step: StepInfoState): Plain<StepInfo> => step;
export const nodeAllocsToWire = (alloc: readonly NodeAllocState[]): Plain<NodeAlloc>[] => [...alloc];

// Wire -> state: a decoded message as plain data.
export const jobSpecFromWire = (spec: JobSpec): JobSpecState => toPlain(spec);
export const nodeAllocsFromWire = (alloc: readonly NodeAlloc[]): NodeAllocState[] => alloc.map((a) => toPlain(a));
export const stepUsageFromWire = (usage: StepUsage): StepUsageState => toPlain(usage);
export const jobFilterFromWire = (filter: JobFilter): JobFilterState => toPlain(filter);
