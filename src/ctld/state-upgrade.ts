/**
 * @module ctld/state-upgrade
 * Records restored from a snapshot written with an older STATE_TYPES_VERSION
 * (sched/model/state-types.ts) brought to today's shapes, one version step at a time. A
 * format-3 image (written before the state had its own types) holds version 1: the records
 * exactly as the wire carried them then. Version 1 is today's, so no step exists yet; the
 * first change of a state record adds its step here (and a test restoring an image of the
 * version before, such as tests/fixtures/state-v1).
 * Failure policy: an image of a newer version than this controller knows is refused, never
 * half-read.
 */
import { STATE_TYPES_VERSION } from "../sched/model/state-types.ts";
import type { JobRecord, NodeRecord } from "../sched/model/types.ts";

/** One version step: rewrites the records of version `from` (in place) into version `from + 1`. */
interface UpgradeStep {
  job(record: Record<string, unknown>): void;
  node(record: Record<string, unknown>): void;
}

/** The steps by the version they start from (none yet: version 1 is today's). */
const STEPS: ReadonlyMap<number, UpgradeStep> = new Map();

/** Throws unless records of `version` can be brought to today's: known, and not newer. */
export function checkStateVersion(version: number): void {
  if (!Number.isInteger(version) || version < 1 || version > STATE_TYPES_VERSION) {
    throw new Error(`snapshot holds state types version ${version}, this spurctld reads 1 to ${STATE_TYPES_VERSION}`);
  }
}

/** Brings the restored records of `version` to today's shapes, in place. */
export function upgradeRecords(version: number, jobs: Iterable<JobRecord>, nodes: Iterable<NodeRecord>): void {
  checkStateVersion(version);
  for (let v = version; v < STATE_TYPES_VERSION; v++) {
    const step = STEPS.get(v);
    if (step === undefined) throw new Error(`no upgrade of state types version ${v} to ${v + 1}`);
    for (const job of jobs) step.job(job as unknown as Record<string, unknown>);
    for (const node of nodes) step.node(node as unknown as Record<string, unknown>);
  }
}
