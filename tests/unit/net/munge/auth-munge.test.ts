/**
 * auth/munge without a real munged: the client and the controller's verifier against a fake
 * daemon on a Unix socket that answers with the codec's daemon-side encoders (the e2e test
 * tests/e2e/auth-munge.test.ts runs the real one). Also AuthInfo= parsing.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createMungeVerifier, mungeCredential, mungeCredVerifier, mungeSource, parseAuthInfo } from "../../../../src/net/munge/auth-munge.ts";
import {
  MUNGE_HEADER_BYTES, MUNGE_ID_ANY, MsgType, decodeHeader, encodeDecodeResponse, encodeEncodeResponse, parseDecodeRequest, parseEncodeRequest,
} from "../../../../src/net/munge/wire.ts";

const dir = mkdtempSync(join(tmpdir(), "spur-fake-munged-"));
const socketPath = join(dir, "sock");
const seen = new Set<string>();
let server: ReturnType<typeof Bun.listen> | undefined;

/** A munged that issues "MUNGE:<n>:" for uid 1234 and refuses a second decode of one credential. */
function answer(msg: Uint8Array): Uint8Array {
  const h = decodeHeader(msg.subarray(0, MUNGE_HEADER_BYTES));
  if (!h.ok) throw new Error(h.error.message);
  const body = msg.subarray(MUNGE_HEADER_BYTES);
  if (h.value.type === MsgType.encodeRequest) {
    expect(parseEncodeRequest(body).ok).toBe(true);
    return encodeEncodeResponse({ errorNum: 0, errorText: "", credential: `MUNGE:${seen.size + 100}:` });
  }
  const cred = parseDecodeRequest(body);
  const base = { cipher: 4, mac: 5, zip: 0, realm: "", ttlSec: 300, originAddr: "10.1.2.3", encodeTime: 1, decodeTime: 2, authUid: MUNGE_ID_ANY, authGid: MUNGE_ID_ANY, payload: new Uint8Array(0) };
  if (!cred.ok || !cred.value.startsWith("MUNGE:")) return encodeDecodeResponse({ ...base, errorNum: 14, errorText: "Invalid credential", originAddr: "", uid: MUNGE_ID_ANY, gid: MUNGE_ID_ANY });
  const replayed = seen.has(cred.value);
  seen.add(cred.value);
  return encodeDecodeResponse({ ...base, errorNum: replayed ? 17 : 0, errorText: replayed ? "Replayed credential" : "", uid: 1234, gid: 99 });
}

beforeAll(() => {
  server = Bun.listen({
    unix: socketPath,
    socket: {
      data(s, chunk) {
        s.write(answer(new Uint8Array(chunk)));
        s.end();
      },
    },
  });
});
afterAll(() => {
  server?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

describe("auth/munge against a fake munged", () => {
  it("gets a credential as the header value munge:<credential>", async () => {
    expect(await mungeCredential({ socketPath, ttlSec: 0 })).toEqual({ ok: true, value: "munge:MUNGE:100:" });
  });

  it("verifies once, then refuses the replay in Slurm's log words", async () => {
    const verify = mungeCredVerifier({ socketPath, ttlSec: 0 });
    expect(await verify("munge:MUNGE:7:")).toEqual({ ok: true, value: { uid: 1234, gid: 99 } });
    const again = await verify("munge:MUNGE:7:");
    expect(again.ok).toBe(false);
    expect(!again.ok && again.error.message).toBe("auth/munge: _decode_cred: Munge decode failed: Replayed credential (encoded on 10.1.2.3 by uid 1234)");
  });

  it("refuses a credential of another kind without asking munged, and a bad one with munged's reason", async () => {
    const verify = mungeCredVerifier({ socketPath, ttlSec: 0 });
    const other = await verify("spur:abc");
    expect(!other.ok && other.error.message).toContain("credential of another kind (spur)");
    const bad = await verify("munge:garbage");
    expect(!bad.ok && bad.error.message).toBe("auth/munge: _decode_cred: Munge decode failed: Invalid credential");
  });

  it("offers the same as a pluggable verifier (scheme + verify(text)) and source (credential(audience))", async () => {
    const v = createMungeVerifier({ socketPath, ttlSec: 0 });
    expect(v.scheme).toBe("munge");
    expect(await v.verify("MUNGE:42:")).toEqual({ ok: true, value: { uid: 1234, gid: 99, host: "10.1.2.3" } });
    const again = await v.verify("MUNGE:42:");
    expect(!again.ok && again.error.message).toBe("Munge decode failed: Replayed credential (encoded on 10.1.2.3 by uid 1234)");
    expect(await mungeSource({ socketPath, ttlSec: 0 }).credential("slurmctld")).toMatch(/^munge:MUNGE:\d+:$/);
    await expect(mungeSource({ socketPath: join(dir, "none"), ttlSec: 0 }).credential("slurmctld")).rejects.toThrow(/^Munge encode failed: /);
  });

  it("says which socket it could not reach", async () => {
    const r = await mungeCredVerifier({ socketPath: join(dir, "none"), ttlSec: 0 })("munge:MUNGE:1:");
    expect(!r.ok && r.error.message).toContain(`munged at ${join(dir, "none")}`);
  });
});

describe("AuthInfo=", () => {
  it("reads socket= and ttl= as Slurm's auth/munge does; defaults otherwise", () => {
    expect(parseAuthInfo(undefined)).toEqual({ socketPath: "/run/munge/munge.socket.2", ttlSec: 0 });
    expect(parseAuthInfo("socket=/var/run/munge/alt.socket, ttl=60,other=x")).toEqual({ socketPath: "/var/run/munge/alt.socket", ttlSec: 60 });
  });
});
