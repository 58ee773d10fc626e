/**
 * The RPC edge with a pluggable credential verifier (rpc-server `auth`): a credential of the
 * configured scheme names the caller; a refused one, one of another scheme, and a forged
 * verdict header name nobody and are told to `refused`; without a credential the loopback
 * identity still applies. Any AuthType's verifier (auth/spur, auth/munge) meets this edge.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AUTH_REFUSED_HEADER, PEER_HOST_HEADER, PEER_UID_HEADER, startRpcServer, type RpcServer } from "../../../../src/net/rpc-server.ts";
import { err, ok } from "../../../../src/lib/result.ts";
import { CRED_HEADER, type CredentialVerifier } from "../../../../src/net/auth/types.ts";

const servers: RpcServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** A verifier of scheme "test": "uid=N" names uid N from host "h1", anything else is refused. */
const testVerifier: CredentialVerifier = {
  scheme: "test",
  verify: async (text, ctx) => {
    if (ctx.audience !== "slurmctld") return err("audience", "Unauthorized credential (audience)");
    const m = /^uid=(\d+)$/.exec(text);
    return m === null ? err("invalid", "Invalid credential (test)") : ok({ uid: Number(m[1]), gid: 0, host: "h1" });
  },
};

async function edge() {
  const seen: { uid?: string; host?: string; refused?: string }[] = [];
  const refusals: string[] = [];
  const server = await startRpcServer(() => undefined, { host: "127.0.0.1", port: 0 }, {}, {
    auth: { verifier: testVerifier, audience: "slurmctld", refused: (why) => refusals.push(why) },
    readBarrier: (req) => {
      const h = (k: string) => req.headers[k] as string | undefined;
      seen.push({ uid: h(PEER_UID_HEADER), host: h(PEER_HOST_HEADER), refused: h(AUTH_REFUSED_HEADER) });
      return undefined;
    },
  });
  servers.push(server);
  return { server, seen, refusals };
}

const call = (port: number, headers: Record<string, string>) =>
  fetch(`http://127.0.0.1:${port}/spur.v1.Controller/Cancel`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" }).then((r) => r.text());

describe("credentials at the RPC edge", () => {
  it("names the caller a credential proves, and nobody for a refused or foreign one", async () => {
    const { server, seen, refusals } = await edge();
    await call(server.port, { [CRED_HEADER]: "test:uid=1234" });
    await call(server.port, { [CRED_HEADER]: "test:garbage", [PEER_UID_HEADER]: "0" });
    await call(server.port, { [CRED_HEADER]: "munge:whatever" });
    expect(seen[0]).toEqual({ uid: "1234", host: "h1", refused: undefined });
    expect(seen[1]).toEqual({ uid: "", host: undefined, refused: "Invalid credential (test)" });
    expect(seen[2]?.uid).toBe("");
    expect(seen[2]?.refused).toMatch(/^Invalid credential \(a "munge" credential, this cluster uses auth\/test\)/);
    expect(refusals).toHaveLength(2);
  });

  it("ignores forged verdict headers, and falls back to loopback identity without a credential", async () => {
    const { server, seen } = await edge();
    await call(server.port, { [AUTH_REFUSED_HEADER]: "x", [PEER_HOST_HEADER]: "forged" });
    expect(seen[0]?.refused).toBeUndefined();
    expect(seen[0]?.host).toBeUndefined();
    expect(seen[0]?.uid).toBe(String(process.getuid?.()));
  });
});
