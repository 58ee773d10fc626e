/**
 * @module tests/unit/ctld/wire-map
 * State and wire stay in step (issue 17). Compiled by tsc (`npx tsc --noEmit -p .`): each
 * state record (sched/model/state-types.ts) has exactly its wire message's fields, of the
 * same types and optionality, and the InStep check refuses every kind of drift a .proto change
 * makes (a field added or removed on either side, retyped, made optional, or drifting in a
 * nested record): each `@ts-expect-error` below fails the build if the check let it pass. At
 * run time: a wire message with every field set crosses into the state and back unchanged, and
 * the state side holds plain data only.
 */
import { describe, expect, it } from "vitest";
import { type DescField, type DescMessage, create, toBinary } from "@bufbuild/protobuf";
import type { Plain } from "../../../src/lib/plain.ts";
import type { InStep } from "../../../src/ctld/wire-map/in-step.ts";
import {
  JOB_RECORDS_IN_STEP, jobFilterFromWire, jobInfoToWire, jobSpecFromWire, jobSpecToWire, nodeAllocsFromWire, nodeAllocsToWire,
  stepInfoToWire, stepUsageFromWire,
} from "../../../src/ctld/wire-map/job.ts";
import { NODE_RECORDS_IN_STEP, nodeInfoFromWire, nodeInfosToWire } from "../../../src/ctld/wire-map/node.ts";
import {
  type JobInfo, JobInfoSchema, type JobSpec, JobSpecSchema, type NodeAlloc, NodeAllocSchema, NodeInfoSchema, PartitionInfoSchema, StepInfoSchema, StepUsageSchema,
} from "../../../src/net/gen/spur/v1/types_pb.ts";
import { JobFilterSchema } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import type { JobInfoState, JobSpecState, NodeAllocState, PartitionInfoState, StepInfoState } from "../../../src/sched/model/state-types.ts";

// Every record the state stores or a command carries, in step with its wire message.
const allInStep: true[] = [...JOB_RECORDS_IN_STEP, ...NODE_RECORDS_IN_STEP];

// The check refuses drift; each line fails the build (unused @ts-expect-error) if it were accepted.
type WireJob = Plain<JobInfo>;
// @ts-expect-error a field the .proto gained that the state lacks
export const wireGained: InStep<JobInfoState, WireJob & { newField: string }> = true;
// @ts-expect-error a field the .proto dropped that the state still has
export const wireDropped: InStep<JobInfoState, Omit<WireJob, "comment">> = true;
// @ts-expect-error a field retyped (uint32 -> string)
export const retyped: InStep<JobInfoState, Omit<WireJob, "priority"> & { priority: string }> = true;
// @ts-expect-error a field made optional on the wire (proto3 `optional`) but required in the state
export const madeOptional: InStep<JobInfoState, Omit<WireJob, "nice"> & { nice?: number }> = true;
// @ts-expect-error a nested record drifting (a field the allocation gained) is drift of the job too
export const nestedDrift: InStep<JobInfoState, Omit<WireJob, "alloc"> & { alloc: (Plain<NodeAlloc> & { numa: string })[] }> = true;
// @ts-expect-error a state field renamed
export const renamed: InStep<Omit<JobSpecState, "workDir"> & { workDirectory: string }, Plain<JobSpec>> = true;
// and the records are distinct types: a partition is no node allocation
// @ts-expect-error different records
export const different: InStep<PartitionInfoState, Plain<NodeAlloc>> = true;

/** A value for each field of `schema` unlike its default (nested messages filled too, one level of lists). */
function filled(schema: DescMessage, depth = 0): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of schema.fields) out[f.localName] = valueFor(f, depth);
  return out;
}

function scalarValue(f: DescField & { scalar?: unknown }): unknown {
  const t = String(f.scalar);
  // ScalarType: 8 bool, 9 string, 1/2 double/float, the others integers
  if (t === "8") return true;
  if (t === "9") return `${f.localName}-x`;
  if (t === "1" || t === "2") return 2.5;
  return 7;
}

function valueFor(f: DescField, depth: number): unknown {
  switch (f.fieldKind) {
    case "scalar": return scalarValue(f);
    case "enum": return 1;
    case "message": return depth < 2 ? create(f.message, filled(f.message, depth + 1)) : create(f.message);
    case "list":
      if (f.listKind === "message") return depth < 2 ? [create(f.message, filled(f.message, depth + 1))] : [];
      if (f.listKind === "scalar") return [scalarValue(f as unknown as DescField & { scalar: unknown })];
      return [1];
    case "map": return { k: "v" };
  }
}

/** Whether a value holds a protobuf-es brand anywhere. */
const branded = (v: unknown): boolean =>
  v !== null && typeof v === "object" && (Object.hasOwn(v, "$typeName") || Object.values(v).some(branded));

describe("state <-> wire mapping (ctld/wire-map)", () => {
  it("every record the state keeps is in step with its wire message", () => {
    expect(allInStep).toEqual(Array(9).fill(true));
  });

  it("a job spec with every field set crosses into the state and back unchanged, as plain data", () => {
    const wire = create(JobSpecSchema, filled(JobSpecSchema));
    const state = jobSpecFromWire(wire);
    expect(branded(state)).toBe(false);
    expect(Object.keys(state).sort()).toEqual(JobSpecSchema.fields.map((f) => f.localName).sort());
    expect(toBinary(JobSpecSchema, create(JobSpecSchema, jobSpecToWire(state)))).toEqual(toBinary(JobSpecSchema, wire));
  });

  it("a job record (steps, allocations, usage) leaves the state as the wire message it was", () => {
    const wire = create(JobInfoSchema, filled(JobInfoSchema));
    const state = filled(JobInfoSchema) as unknown as JobInfoState;
    expect(toBinary(JobInfoSchema, create(JobInfoSchema, jobInfoToWire(state)))).toEqual(toBinary(JobInfoSchema, wire));
    const step = filled(StepInfoSchema) as unknown as StepInfoState;
    expect(toBinary(StepInfoSchema, create(StepInfoSchema, stepInfoToWire(step)))).toEqual(toBinary(StepInfoSchema, create(StepInfoSchema, filled(StepInfoSchema))));
    // state -> wire copies nothing: a listing of 100k jobs pays for no translation
    expect(jobInfoToWire(state)).toBe(state);
  });

  it("allocations, usage, filters and nodes cross both ways without loss", () => {
    const allocs = [create(NodeAllocSchema, filled(NodeAllocSchema))];
    const allocState: NodeAllocState[] = nodeAllocsFromWire(allocs);
    expect(branded(allocState)).toBe(false);
    expect(toBinary(NodeAllocSchema, create(NodeAllocSchema, nodeAllocsToWire(allocState)[0]))).toEqual(toBinary(NodeAllocSchema, allocs[0] as NodeAlloc));
    for (const [schema, from] of [
      [StepUsageSchema, stepUsageFromWire], [JobFilterSchema, jobFilterFromWire], [NodeInfoSchema, nodeInfoFromWire],
    ] as [DescMessage, (m: never) => object][]) {
      const wire = create(schema, filled(schema));
      const state = from(wire as never);
      expect(branded(state), schema.typeName).toBe(false);
      expect(Object.keys(state).sort(), schema.typeName).toEqual(schema.fields.map((f) => f.localName).sort());
      expect(toBinary(schema, create(schema, state as never)), schema.typeName).toEqual(toBinary(schema, wire));
    }
    const node = nodeInfoFromWire(create(NodeInfoSchema, filled(NodeInfoSchema)));
    expect(nodeInfosToWire([node])[0]).toBe(node);
    expect(PartitionInfoSchema.fields.length).toBeGreaterThan(0);
  });
});
