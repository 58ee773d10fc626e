/**
 * @module raft/core
 * Spur's Raft core, in one import for the driver: createRaft (etcd RawNode-shaped API),
 * the data types it speaks, and the conf-change codec the application needs to read
 * committed membership entries. See ready.ts for the driver contract.
 */
export { bootstrapEntries, decodeConfChange, encodeConfChange } from "./confchange.ts";
export { resolveConfig } from "./raft.ts";
export { type RaftNode, createRaft } from "./ready.ts";
export * from "./types.ts";
