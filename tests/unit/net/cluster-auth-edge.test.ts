/**
 * @module tests/unit/net/cluster-auth-edge
 * The RPC server's edge: a client cannot forge the verified-agent header (it is replaced
 * by the verdict on the credential); a good credential names the node, a bad one says why.
 * Also: a replica with no log refuses to start when a running cluster's leader lacks it.
 */
import { afterAll, describe, expect, it } from "vitest";
import { AGENT_NODE_HEADER, CLUSTER_AUTH_HEADER, signAgentCall } from "../../../src/net/cluster-auth.ts";
import { startRpcServer, type RpcServer } from "../../../src/net/rpc-server.ts";
import { strangerRefusal } from "../../../src/roles/replica-membership.ts";

const servers: { close(): unknown }[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function edge(secret: string | undefined): Promise<{ server: RpcServer; seen: (string | undefined)[] }> {
  const seen: (string | undefined)[] = [];
  const server = await startRpcServer(() => undefined, { host: "127.0.0.1", port: 0 }, {}, {
    ...(secret === undefined ? {} : { clusterSecret: secret }),
    readBarrier: (req) => {
      seen.push(req.headers[AGENT_NODE_HEADER] as string | undefined);
      return undefined;
    },
  });
  servers.push(server);
  return { server, seen };
}

const PATH = "/spur.v1.Controller/Heartbeat";
const call = (port: number, headers: Record<string, string>) =>
  fetch(`http://127.0.0.1:${port}${PATH}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: "{}" }).then((r) => r.text());

describe("cluster credentials at the RPC edge", () => {
  it("replaces a forged verdict and verifies real credentials", async () => {
    const { server, seen } = await edge("s3cret");
    await call(server.port, { [AGENT_NODE_HEADER]: "n1" });
    await call(server.port, { [CLUSTER_AUTH_HEADER]: signAgentCall("s3cret", "n7", PATH, Date.now() / 1000) });
    await call(server.port, { [CLUSTER_AUTH_HEADER]: signAgentCall("wrong", "n7", PATH, Date.now() / 1000), [AGENT_NODE_HEADER]: "n7" });
    expect(seen).toEqual([undefined, "n7", "!cluster credential does not match this controller's secret"]);
  });

  it("without a secret, a credential is not taken on trust", async () => {
    const { server, seen } = await edge(undefined);
    await call(server.port, { [CLUSTER_AUTH_HEADER]: signAgentCall("s3cret", "n7", PATH, Date.now() / 1000) });
    expect(seen[0]).toMatch(/^!this controller has no cluster secret/);
  });
});

describe("a replica with no log and no --join", () => {
  function fakeController(raft: object) {
    const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ raft }) });
    servers.push({ close: () => s.stop(true) });
    return `http://127.0.0.1:${s.port}`;
  }

  it("refuses when the running cluster's leader does not count it", async () => {
    const lead = fakeController({ id: 1, role: "leader", peers: [{ id: 1 }, { id: 2 }, { id: 3 }] });
    const follower = fakeController({ id: 2, role: "follower", leaderUrl: lead, peers: [] });
    const why = await strangerRefusal(5, [follower]);
    expect(why).toContain("controller 5 is not one of its members");
    expect(await strangerRefusal(3, [follower, lead])).toBeUndefined();
  });

  it("starts when nothing answers (a cluster coming up for the first time)", async () => {
    expect(await strangerRefusal(2, ["http://127.0.0.1:1"], 500)).toBeUndefined();
  });
});
