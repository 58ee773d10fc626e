/**
 * auth/spur's vouching socket (net/auth/authd + authd-client): the credential names the
 * caller as the kernel saw it (SO_PEERCRED), not as it claims; it verifies at a
 * controller once; a bad audience line is refused.
 */
import { afterAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startAuthd } from "../../../../src/net/auth/authd.ts";
import { requestCredential } from "../../../../src/net/auth/authd-client.ts";
import { createSpurVerifier } from "../../../../src/net/auth/spur-verifier.ts";
import { CTLD_AUDIENCE } from "../../../../src/net/auth/types.ts";

const dir = mkdtempSync(join(tmpdir(), "spur-authd-"));
const KEY = "k".repeat(64);
const path = join(dir, "auth.sock");
const served = startAuthd({ path, secret: KEY, host: "login" });
afterAll(() => {
  served.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("auth/spur vouching daemon", () => {
  it("vouches for this process's own uid and gid, for the audience asked", async () => {
    const header = await requestCredential(path, CTLD_AUDIENCE);
    expect(header.startsWith("spur:")).toBe(true);
    const v = createSpurVerifier({ secret: KEY, knownHosts: new Set(["login"]) });
    const r = await v.verify(header.slice(5), { audience: CTLD_AUDIENCE, nowSec: Date.now() / 1000 });
    expect(r).toEqual({ ok: true, value: { uid: process.getuid?.(), gid: process.getgid?.(), host: "login" } });
  });

  it("refuses a malformed audience and says why", async () => {
    await expect(requestCredential(path, "no spaces allowed")).rejects.toThrow(/bad audience/);
  });

  it("names the socket when no daemon answers", async () => {
    await expect(requestCredential(join(dir, "none.sock"), CTLD_AUDIENCE)).rejects.toThrow(/none\.sock/);
  });
});
