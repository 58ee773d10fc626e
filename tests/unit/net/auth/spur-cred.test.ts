/**
 * auth/spur credentials (net/auth/spur-cred, spur-verifier, replay-cache): a credential
 * verifies once, for its audience, from a known host, within its lifetime, under the
 * cluster key; each refusal names its reason in MUNGE's words.
 */
import { describe, expect, it } from "vitest";
import { openSpurCred, signSpurCred, type SpurClaims } from "../../../../src/net/auth/spur-cred.ts";
import { createSpurVerifier } from "../../../../src/net/auth/spur-verifier.ts";
import { ReplayCache } from "../../../../src/net/auth/replay-cache.ts";
import { CTLD_AUDIENCE, nodeAudience } from "../../../../src/net/auth/types.ts";

const KEY = "a".repeat(64);
const NOW = 1_800_000_000;
const claims = (over: Partial<SpurClaims> = {}): SpurClaims => ({
  uid: 1001, gid: 1001, host: "login", issuedSec: NOW, expirySec: NOW + 60, nonce: "0123456789abcdef0123456789abcdef", audience: CTLD_AUDIENCE, ...over,
});
const verifier = () => createSpurVerifier({ secret: KEY, knownHosts: new Set(["login", "n1"]) });
const check = (v: ReturnType<typeof verifier>, text: string, audience = CTLD_AUDIENCE, nowSec = NOW + 1) => v.verify(text, { audience, nowSec });

describe("auth/spur credential", () => {
  it("round-trips its claims under the right key", () => {
    const opened = openSpurCred(KEY, signSpurCred(KEY, claims()), NOW);
    expect(opened).toEqual({ ok: true, value: claims() });
  });

  it("names the caller once, then refuses the same credential as replayed", async () => {
    const v = verifier();
    const text = signSpurCred(KEY, claims());
    expect(await check(v, text)).toEqual({ ok: true, value: { uid: 1001, gid: 1001, host: "login" } });
    const again = await check(v, text);
    expect(again.ok).toBe(false);
    if (!again.ok) expect(again.error.message).toMatch(/^Replayed credential/);
  });

  it("refuses another key, a changed payload, expiry, the future, another audience, an unknown host", async () => {
    const v = verifier();
    const refusal = async (text: string, audience = CTLD_AUDIENCE, nowSec = NOW + 1) => {
      const r = await check(v, text, audience, nowSec);
      return r.ok ? "accepted" : r.error.message;
    };
    expect(await refusal(signSpurCred("b".repeat(64), claims()))).toMatch(/^Invalid credential \(not signed with this cluster's key\)/);
    const [ver, , mac] = signSpurCred(KEY, claims()).split(".");
    const rootPayload = Buffer.from(JSON.stringify({ u: 0, g: 0, h: "login", i: NOW, e: NOW + 60, n: "f".repeat(32), a: CTLD_AUDIENCE })).toString("base64url");
    expect(await refusal(`${ver}.${rootPayload}.${mac}`)).toMatch(/^Invalid credential/);
    expect(await refusal(signSpurCred(KEY, claims({ nonce: "1".repeat(32) })), CTLD_AUDIENCE, NOW + 61)).toMatch(/^Expired credential/);
    expect(await refusal(signSpurCred(KEY, claims({ nonce: "2".repeat(32), issuedSec: NOW + 600, expirySec: NOW + 660 })))).toMatch(/^Rewound credential/);
    expect(await refusal(signSpurCred(KEY, claims({ nonce: "3".repeat(32) })), nodeAudience("n1"))).toMatch(/^Unauthorized credential \(made for slurmctld/);
    expect(await refusal(signSpurCred(KEY, claims({ nonce: "4".repeat(32), host: "elsewhere" })))).toMatch(/^Unauthorized credential \(unknown host "elsewhere"\)/);
    expect(await refusal(signSpurCred(KEY, claims({ nonce: "5".repeat(32), issuedSec: NOW - 1000, expirySec: NOW + 10 })))).toMatch(/^Expired credential/);
    expect(await refusal("v1.garbage")).toMatch(/^Invalid credential \(malformed\)/);
  });
});

describe("replay cache", () => {
  it("keeps a nonce until its credential expires, then lets the sweep forget it", () => {
    const cache = new ReplayCache(2);
    expect(cache.admit("a", NOW + 10, NOW)).toBe("fresh");
    expect(cache.admit("a", NOW + 10, NOW + 5)).toBe("replayed");
    expect(cache.admit("b", NOW + 10, NOW)).toBe("fresh");
    // full of live nonces: a new one is refused (fail closed), not let through
    expect(cache.admit("c", NOW + 10, NOW + 1)).toBe("full");
    // once the others expired, the sweep makes room
    expect(cache.admit("c", NOW + 30, NOW + 20)).toBe("fresh");
    expect(cache.size).toBe(1);
  });
});
