/**
 * @module tests/unit/ctld/state-upgrade
 * What older controllers wrote still loads (issue 17): the Raft log of commands and the
 * format-3 snapshot in tests/fixtures/state-v1 were written by the code before the state got
 * its own types; the format-4 snapshot there (the same state, all job rows in one JSON
 * document) by the code before format 5 put a job a line. Replaying that log through apply() gives the state it gave then; restoring
 * the snapshot gives the state it was taken from, and replaying the log's tail on top ends
 * where the full replay ends.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { apply } from "../../../src/sched/model/apply.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { SNAPSHOT_FORMAT, encodeSnapshot, restoreSnapshot, snapshotIndex } from "../../../src/ctld/state-snapshot.ts";
import { STATE_TYPES_VERSION } from "../../../src/sched/model/state-types.ts";
import { canonical, canonicalKeysSorted, keysSortedText } from "../../sim/controller/canonical.ts";
import { fixtureState } from "../../fixtures/state-v1/make-fixtures.ts";

const dir = join(import.meta.dirname, "../../fixtures/state-v1");
const read = (name: string) => readFileSync(join(dir, name), "utf8");
/** A recorded state, to compare with canonicalKeysSorted(): records made today list their keys in another order. */
const recorded = (name: string) => keysSortedText(read(name));
const log = read("commands.jsonl").trim().split("\n").map((line) => JSON.parse(line) as Command);
const SNAPSHOT_AT = 17;
const format3 = new Uint8Array(readFileSync(join(dir, `snapshot-format3-at-${SNAPSHOT_AT}.bin`)));
const format4 = new Uint8Array(readFileSync(join(dir, `snapshot-format4-at-${SNAPSHOT_AT}.bin`)));

function replay(commands: Command[], state = fixtureState()) {
  for (const c of commands) expect(apply(state, c).errorCode, `${c.type} applies`).toBe("");
  return state;
}

describe("state written before the state types (v1, format 3)", () => {
  it("replays the old Raft log to the state it gave then", () => {
    expect(log.length).toBeGreaterThan(SNAPSHOT_AT);
    const state = replay(log);
    // today's apply() also keeps each node's history out of service (sreport's Down, node-history.ts),
    // which the old code did not: the drain at 26 and resume at 34 of n4; the rest is unchanged
    expect(state.nodes.get("n4")?.downSpans).toEqual([{ start: 26, end: 34, state: "DRAIN", reason: "disk" }]);
    for (const node of state.nodes.values()) delete node.downSpans;
    // ...and the type of the GPUs a job holds on each node (gres_detail, scontrol -d): job 2's two on g1
    expect([...state.jobs.values()].flatMap((j) => j.info.alloc.filter((a) => a.gpuType !== undefined).map((a) => [j.info.jobId, a.node, a.gpuType]))).toEqual([[2, "g1", "mi300x"]]);
    for (const job of state.jobs.values()) for (const a of job.info.alloc) delete a.gpuType;
    expect(canonicalKeysSorted(state)).toBe(recorded("state-at-end.json"));
  });

  it("restores the format-3 snapshot, and its log tail ends where the full replay ends", () => {
    expect(snapshotIndex(format3)).toBe(SNAPSHOT_AT);
    const state = fixtureState();
    expect(restoreSnapshot(state, format3)).toBe(SNAPSHOT_AT);
    expect(canonicalKeysSorted(state)).toBe(recorded("state-at-snapshot.json"));
    expect(canonicalKeysSorted(replay(log.slice(SNAPSHOT_AT), state))).toBe(recorded("state-at-end.json"));
  });

  it("writes the restored state in today's format (5, with its state types version) and reads it back unchanged", () => {
    const state = fixtureState();
    restoreSnapshot(state, format3);
    const image = encodeSnapshot(state, SNAPSHOT_AT);
    const headerOf = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes.subarray(0, 200)).split("\n")[1] ?? "") as object;
    expect(headerOf(format3)).toMatchObject({ format: 3 });
    expect(headerOf(format3)).not.toHaveProperty("state");
    expect(headerOf(image)).toMatchObject({ format: SNAPSHOT_FORMAT, state: STATE_TYPES_VERSION });
    const again = fixtureState();
    expect(restoreSnapshot(again, image)).toBe(SNAPSHOT_AT);
    expect(canonical(again)).toBe(canonical(state));
  });

  it("restores the format-4 snapshot (job rows in one document) to the same state", () => {
    const headerOf = JSON.parse(new TextDecoder().decode(format4.subarray(0, 200)).split("\n")[1] ?? "") as object;
    expect(headerOf).toMatchObject({ format: 4, state: 1 });
    const state = fixtureState();
    expect(restoreSnapshot(state, format4)).toBe(SNAPSHOT_AT);
    expect(canonicalKeysSorted(state)).toBe(recorded("state-at-snapshot.json"));
    expect(canonicalKeysSorted(replay(log.slice(SNAPSHOT_AT), state))).toBe(recorded("state-at-end.json"));
  });
});
