/**
 * @module ctld/wire-map/node
 * Nodes and partitions between the wire (protobuf, net/gen) and the replicated state
 * (sched/model/state-types.ts), as ./job.ts does for jobs: the records agree field by field
 * (InStep, checked at compile time), state -> wire passes the record itself, wire -> state
 * drops the protobuf-es message brand.
 */
import type { Plain } from "../../lib/plain.ts";
import { toPlain } from "../../lib/to-plain.ts";
import type { NodeInfo, PartitionInfo } from "../../net/gen/spur/v1/types_pb.ts";
import type { NodeInfoState, PartitionInfoState } from "../../sched/model/state-types.ts";
import type { InStep } from "./in-step.ts";

/** Compile-time: each state record and its wire message agree field by field (types and optionality). */
export const NODE_RECORDS_IN_STEP: [InStep<NodeInfoState, Plain<NodeInfo>>, InStep<PartitionInfoState, Plain<PartitionInfo>>] = [true, true];

export const nodeInfosToWire = (nodes: NodeInfoState[]): Plain<NodeInfo>[] => nodes;
export const partitionInfosToWire = (partitions: PartitionInfoState[]): Plain<PartitionInfo>[] => partitions;
export const nodeInfoFromWire = (node: NodeInfo): NodeInfoState => toPlain(node);
