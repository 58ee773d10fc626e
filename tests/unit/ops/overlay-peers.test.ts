/**
 * @module tests/unit/ops/overlay-peers
 * Peer distribution for the WireGuard overlay: the controller's soft member registry
 * (joins, refreshes, conflicts, leaving by silence or DOWN) and the agent's peer diff
 * turned into `wg set` commands. Pure; a seeded random walk checks that applying each
 * diff to the previous peer set always lands exactly on the desired set.
 */
import { describe, expect, it } from "vitest";
import {
  MEMBER_TTL_REFRESHES, OVERLAY_REFRESH_MS, announce, desiredPeers, diffPeers, isEmptyDiff, liveMembers, wgSetCommands,
  type OverlayMember, type OverlayPeer, type OverlayRegistry,
} from "../../../src/net/overlay-peers.ts";
import { wgGenKey } from "../../../src/net/wireguard-keys.ts";
import { createRng } from "../../../src/lib/rng.ts";

const member = (node: string, address: string, endpoint = ""): OverlayMember => ({ node, publicKey: wgGenKey().publicKey, address, endpoint });
const TTL_SEC = (OVERLAY_REFRESH_MS / 1000) * MEMBER_TTL_REFRESHES;
const up = () => false;

describe("controller registry", () => {
  it("adds members as they announce and returns them sorted", () => {
    const reg: OverlayRegistry = new Map();
    const b = member("b", "10.100.0.2", "203.0.113.2:51820");
    const a = member("a", "10.100.0.1");
    expect(announce(reg, b, 100).ok).toBe(true);
    expect(announce(reg, a, 100).ok).toBe(true);
    expect(liveMembers(reg, 101, up).map((m) => m.node)).toEqual(["a", "b"]);
  });

  it("refuses bad records and an address or key another live node holds", () => {
    const reg: OverlayRegistry = new Map();
    const a = member("a", "10.100.0.1");
    announce(reg, a, 0);
    expect(announce(reg, { ...member("x", "10.100.0.9"), publicKey: "nope" }, 0)).toMatchObject({ ok: false });
    expect(announce(reg, member("x", "10.100.0.300"), 0)).toMatchObject({ ok: false });
    expect(announce(reg, member("x", "10.100.0.9", "no-port"), 0)).toMatchObject({ ok: false });
    const stolen = announce(reg, member("b", "10.100.0.1"), 1);
    expect(!stolen.ok && stolen.error.message).toBe("overlay address 10.100.0.1 of b is already a's");
    expect(announce(reg, { ...member("c", "10.100.0.3"), publicKey: a.publicKey }, 1)).toMatchObject({ ok: false });
    // once a has gone silent, its address may be reused
    expect(announce(reg, member("b", "10.100.0.1"), TTL_SEC + 1).ok).toBe(true);
  });

  it("forgets members that stop announcing or whose node is DOWN", () => {
    const reg: OverlayRegistry = new Map();
    announce(reg, member("a", "10.100.0.1"), 0);
    announce(reg, member("b", "10.100.0.2"), 0);
    announce(reg, member("b", "10.100.0.2"), TTL_SEC);
    expect(liveMembers(reg, TTL_SEC, up).map((m) => m.node)).toEqual(["a", "b"]);
    expect(liveMembers(reg, TTL_SEC + 1, up).map((m) => m.node)).toEqual(["b"]);
    expect(liveMembers(reg, 1, (n) => n === "a").map((m) => m.node)).toEqual(["b"]);
  });
});

describe("agent peers", () => {
  const pub = member("hq1", "10.100.0.1", "203.0.113.1:51820");
  const nat = member("lab1", "10.100.1.1");
  const nat2 = member("lab2", "10.100.1.2");

  it("peers with every member it can reach; keepalive only from an undialable node to dialable peers", () => {
    const all = [pub, nat];
    expect(desiredPeers(nat, all)).toEqual([
      { node: "hq1", publicKey: pub.publicKey, allowedIps: ["10.100.0.1/32"], endpoint: "203.0.113.1:51820", keepaliveSec: 25 },
    ]);
    expect(desiredPeers(pub, [pub, nat, nat2])).toEqual([
      { node: "lab1", publicKey: nat.publicKey, allowedIps: ["10.100.1.1/32"] },
      { node: "lab2", publicKey: nat2.publicKey, allowedIps: ["10.100.1.2/32"] },
    ]);
  });

  it("sends traffic between two undialable nodes through the first dialable member", () => {
    const pub2 = member("hq2", "10.100.0.2", "203.0.113.2:51820");
    const peers = desiredPeers(nat, [pub, pub2, nat, nat2]);
    expect(peers.map((p) => [p.node, p.allowedIps])).toEqual([["hq1", ["10.100.0.1/32", "10.100.1.2/32"]], ["hq2", ["10.100.0.2/32"]]]);
    expect(desiredPeers(nat, [nat, nat2])).toEqual([]);
  });

  it("diffs a join, a leave and a moved endpoint into wg set commands", () => {
    const before = desiredPeers(pub, [pub, nat]);
    const moved = { ...nat, endpoint: "198.51.100.7:51820" };
    const after = desiredPeers(pub, [pub, moved, nat2]);
    expect(after.map((p) => p.node)).toEqual(["lab1", "lab2"]);
    const d = diffPeers(before, after);
    expect([d.add.map((p) => p.node), d.change.map((p) => p.node), d.remove]).toEqual([["lab2"], ["lab1"], []]);
    const gone = diffPeers(after, desiredPeers(pub, [pub, moved]));
    expect(gone.remove).toEqual([nat2.publicKey]);
    expect(wgSetCommands("spur0", gone)).toEqual([["wg", "set", "spur0", "peer", nat2.publicKey, "remove"]]);
    expect(wgSetCommands("spur0", d)).toEqual([
      ["wg", "set", "spur0", "peer", nat2.publicKey, "allowed-ips", "10.100.1.2/32", "persistent-keepalive", "off"],
      ["wg", "set", "spur0", "peer", nat.publicKey, "allowed-ips", "10.100.1.1/32", "endpoint", "198.51.100.7:51820", "persistent-keepalive", "off"],
    ]);
    expect(isEmptyDiff(diffPeers(after, after))).toBe(true);
  });

  it("applying each diff to the previous peer set gives the desired set (seeded walk)", () => {
    const seed = Number(process.env.SEED ?? 8);
    const rng = createRng(seed);
    const pool = Array.from({ length: 12 }, (_, i) => member(`n${i}`, `10.100.0.${i + 1}`, i % 3 === 0 ? "" : `198.51.100.${i}:51820`));
    const self = pool[0] as OverlayMember;
    let have: OverlayPeer[] = [];
    for (let step = 0; step < 200; step++) {
      const members = pool.filter(() => rng.next() < 0.6).map((m) => (rng.next() < 0.2 ? { ...m, endpoint: "" } : m));
      const want = desiredPeers(self, [self, ...members]);
      const d = diffPeers(have, want);
      const byKey = new Map(have.map((p) => [p.publicKey, p]));
      for (const k of d.remove) byKey.delete(k);
      for (const p of [...d.add, ...d.change]) byKey.set(p.publicKey, p);
      have = [...byKey.values()].sort((a, b) => a.node.localeCompare(b.node));
      expect(have, `SEED=${seed} step ${step}`).toEqual(want);
    }
  });
});
