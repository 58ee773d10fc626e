/**
 * @module tests/unit/raft/storage-memory
 * MemoryStorage through the shared storage conformance suite.
 */
import { MemoryStorage } from "../../../src/raft/storage-memory.ts";
import { storageConformance } from "./storage.case.ts";

storageConformance("MemoryStorage", { fresh: () => new MemoryStorage(), bootstrap: (v) => MemoryStorage.bootstrap(v) });
