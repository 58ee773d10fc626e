/**
 * HS256 tokens (WebCrypto) and the key file ring: round trip, expiry, forged
 * and tampered tokens, malformed input, and key rotation without restart with
 * the previous key accepted for its grace period only.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importKey, signToken, verifyToken } from "../../../src/net/rest/jwt.ts";
import { ensureKeyFile, keyPathFromConf, openKeyring } from "../../../src/net/rest/keyring.ts";

const enc = (s: string) => new TextEncoder().encode(s);

describe("jwt", () => {
  it("round-trips claims and refuses expired, forged, tampered and malformed tokens", async () => {
    const key = await importKey(enc("0123456789abcdef0123456789abcdef"));
    const other = await importKey(enc("fedcba9876543210fedcba9876543210"));
    const t = await signToken(key, { iat: 100, exp: 200, sun: "alice" });
    expect(t.split(".")).toHaveLength(3);
    expect(await verifyToken([key], t, 150)).toEqual({ ok: true, claims: { iat: 100, exp: 200, sun: "alice" } });
    expect(await verifyToken([key], t, 200)).toEqual({ ok: false, reason: "expired" });
    expect(await verifyToken([other], t, 150)).toEqual({ ok: false, reason: "signature" });
    const [h, , s] = t.split(".");
    const evil = btoa(JSON.stringify({ iat: 100, exp: 200, sun: "root" })).replace(/=+$/, "");
    expect((await verifyToken([key], `${h}.${evil}.${s}`, 150)).ok).toBe(false);
    for (const bad of ["", "a.b", "a.b.c.d", "!!.??.**", `${"x".repeat(5000)}.a.b`]) expect((await verifyToken([key], bad, 150)).ok).toBe(false);
    const none = `${btoa(JSON.stringify({ alg: "none" }))}.${evil}.`;
    expect((await verifyToken([key], none, 150)).ok).toBe(false);
  });

  it("refuses keys shorter than 16 bytes", async () => {
    await expect(importKey(enc("short"))).rejects.toThrow(/too short/);
  });
});

describe("keyring", () => {
  it("creates the key file once, mode 0600, and finds it from AuthAltParameters", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-key-"));
    const path = join(dir, "jwt_hs256.key");
    ensureKeyFile(path);
    ensureKeyFile(path);
    expect(keyPathFromConf(new Map(), dir)).toBe(path);
    expect(keyPathFromConf(new Map([["authaltparameters", "disable_token_creation,jwt_key=/etc/k"]]), dir)).toBe("/etc/k");
  });

  it("picks up a rotated key without restart and honours the grace period", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-key-"));
    const path = join(dir, "k");
    writeFileSync(path, "first-key-0123456789abcdef");
    let nowMs = 1_000_000;
    const ring = openKeyring(path, { graceSec: 60, recheckMs: 1000, nowMs: () => nowMs });
    const old = await ring.sign({ iat: 1000, exp: 5000, sun: "alice" });
    writeFileSync(path, "second-key-0123456789abcdefgh");
    nowMs += 1500;
    const fresh = await ring.sign({ iat: 1000, exp: 5000, sun: "alice" });
    expect(fresh).not.toBe(old);
    expect((await ring.verify(fresh, 2000)).ok).toBe(true);
    expect((await ring.verify(old, 2000)).ok).toBe(true);
    nowMs += 61_000;
    expect((await ring.verify(old, 2000)).ok).toBe(false);
    expect((await ring.verify(fresh, 2000)).ok).toBe(true);
  });
});
