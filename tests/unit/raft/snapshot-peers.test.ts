/**
 * @module tests/unit/raft/snapshot-peers
 * Controller addresses wrapped around a snapshot image come back unchanged with the image;
 * an image written without them (older snapshots, plain SQLite) is read as is.
 */
import { describe, expect, it } from "vitest";
import { unwrapSnapshot, wrapSnapshot } from "../../../src/raft/snapshot-peers.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

describe("snapshot peer addresses", () => {
  it("round-trips the address map and the image bytes", () => {
    const image = new Uint8Array([83, 81, 76, 0, 10, 255, 1]);
    const addresses = new Map([[1, "h1:6817:6818"], [4, "[::1]:7000:7001"]]);
    const back = unwrapSnapshot(wrapSnapshot(addresses, image));
    expect(back.addresses).toEqual(addresses);
    expect([...back.image]).toEqual([...image]);
  });
  it("a controller state image restores after the round trip", () => {
    const full = cluster();
    full.run(submit(spec({}), 10));
    const wrapped = wrapSnapshot(new Map([[2, "h2:1:2"]]), encodeSnapshot(full.state, 7));
    const restored = cluster(undefined, false);
    expect(restoreSnapshot(restored.state, unwrapSnapshot(wrapped).image)).toBe(7);
    expect(restored.state.jobs.size).toBe(1);
  });

  it("reads an image without a header as is", () => {
    const image = new TextEncoder().encode("SQLite format 3\0rest");
    const back = unwrapSnapshot(image);
    expect(back.addresses.size).toBe(0);
    expect(back.image).toBe(image);
  });
});
