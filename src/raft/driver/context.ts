/**
 * @module raft/driver/context
 * The state the pieces of the Raft driver share: the core, the ports, the clock, and the few
 * variables each piece reads or moves (role, serving, applied and snapshot indices). One
 * object, created once per driver, passed to each piece; only the pieces named in each
 * field's comment change that field.
 */
import type { Clock } from "../../lib/clock.ts";
import { diskFullReporter } from "../../lib/store-full.ts";
import type { RaftNode, SoftState } from "../core/index.ts";
import type { DriverOptions, DriverPorts } from "./api.ts";

export interface DriverContext {
  readonly ports: DriverPorts;
  readonly o: DriverOptions;
  readonly clock: Clock;
  readonly node: RaftNode;
  /** Replica id, boot time and a random part: proposal and read tags of an earlier run never match. */
  readonly bootNonce: string;
  readonly diskFull: ReturnType<typeof diskFullReporter>;
  /** The next proposal or read sequence number. */
  nextSeq(): number;
  /** Run a Ready turn soon (once, however often asked before it runs). */
  schedule(): void;
  /** The core's role and leader as of the last Ready (changed by the ready loop only). */
  soft: SoftState;
  /** Leader with current state (changed by the ready loop and stop only). */
  serving: boolean;
  /** Between start() and stop(). */
  running: boolean;
  /** Last entry applied here (moved by apply and snapshot install). */
  appliedIndex: number;
  /** Index of the latest snapshot stored (moved by snapshot install and snapshot taking). */
  snapIndex: number;
}

export function createContext(ports: DriverPorts, o: DriverOptions, clock: Clock, node: RaftNode, schedule: () => void): DriverContext {
  let seq = 0;
  const snapIndex = ports.storage.snapshot().meta.index;
  return {
    ports, o, clock, node, schedule,
    bootNonce: `${ports.id}.${clock.now().toString(36)}.${Math.floor(Math.random() * 1e9).toString(36)}`,
    diskFull: diskFullReporter(ports.logger ?? { warn: () => undefined, info: () => undefined }, "raft log"),
    nextSeq: () => seq++,
    soft: { lead: 0, state: "follower" },
    serving: false,
    running: false,
    appliedIndex: snapIndex,
    snapIndex,
  };
}
