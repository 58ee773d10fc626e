/**
 * The RPC edge with a pluggable credential verifier (net/auth/edge + rpc-server's
 * verifyCred): a credential of the configured scheme names the caller; a refused one or one
 * of another scheme is answered "Protocol authentication error" (401) before any handler and
 * told to onCredRefused; a client cannot forge the refusal marker; without a credential the
 * loopback identity still applies. auth/spur's and auth/munge's verifiers meet this edge.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AUTH_REFUSED_HEADER, PEER_UID_HEADER, startRpcServer, type RpcServer } from "../../../../src/net/rpc-server.ts";
import { err, ok } from "../../../../src/lib/result.ts";
import { CRED_HEADER, type CredentialVerifier } from "../../../../src/net/auth/types.ts";
import { edgeVerifier } from "../../../../src/net/auth/edge.ts";

const servers: RpcServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A verifier of scheme "test": "uid=N" names uid N, anything else is refused. */
const testVerifier: CredentialVerifier = {
  scheme: "test",
  verify: async (text, ctx) => {
    if (ctx.audience !== "slurmctld") return err("audience", "Unauthorized credential (audience)");
    const m = /^uid=(\d+)$/.exec(text);
    return m === null ? err("invalid", "Invalid credential (test)") : ok({ uid: Number(m[1]), gid: 0, host: "h1" });
  },
};

async function edge() {
  const seen: { uid?: string; refused?: string }[] = [];
  const refusals: string[] = [];
  const server = await startRpcServer(() => undefined, { host: "127.0.0.1", port: 0 }, {}, {
    verifyCred: edgeVerifier(testVerifier, "slurmctld"),
    onCredRefused: (why) => refusals.push(why),
    readBarrier: (req) => {
      seen.push({ uid: req.headers[PEER_UID_HEADER] as string | undefined, refused: req.headers[AUTH_REFUSED_HEADER] as string | undefined });
      return undefined;
    },
  });
  servers.push(server);
  return { server, seen, refusals };
}

const call = (port: number, headers: Record<string, string>) =>
  fetch(`http://127.0.0.1:${port}/spur.v1.Controller/Cancel`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" })
    .then(async (r) => ({ status: r.status, body: await r.text() }));

describe("credentials at the RPC edge", () => {
  it("names the caller a credential proves, and refuses a bad or foreign one before any handler", async () => {
    const { server, seen, refusals } = await edge();
    await call(server.port, { [CRED_HEADER]: "test:uid=1234", [PEER_UID_HEADER]: "0" });
    const bad = await call(server.port, { [CRED_HEADER]: "test:garbage" });
    const foreign = await call(server.port, { [CRED_HEADER]: "munge:whatever" });
    expect(seen).toEqual([{ uid: "1234", refused: undefined }]);
    for (const r of [bad, foreign]) expect([r.status, JSON.parse(r.body).message]).toEqual([401, "Protocol authentication error"]);
    expect(refusals[0]).toBe("Invalid credential (test)");
    expect(refusals[1]).toMatch(/^Invalid credential \(a "munge" credential, this cluster uses auth\/test\)/);
  });

  it("ignores a forged refusal marker, and falls back to loopback identity without a credential", async () => {
    const { server, seen } = await edge();
    await call(server.port, { [AUTH_REFUSED_HEADER]: "x" });
    expect(seen[0]).toEqual({ uid: String(process.getuid?.()), refused: undefined });
  });
});
