/**
 * rest_auth/local: the Unix-socket peer is the caller; only a root peer may name
 * another user; spurctld gets a token minted for whoever the caller ends up being.
 * Also reads this process's own credentials over a socketpair-like Unix connection.
 */
import { describe, expect, it } from "vitest";
import { createAuthenticator } from "../../../src/net/rest/auth.ts";
import { RestError } from "../../../src/net/rest/errors.ts";
import { peerCred } from "../../../src/net/rest/local-socket.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const users: Record<string, { uid: number; group: string }> = { root: { uid: 0, group: "root" }, alice: { uid: 1001, group: "alice" }, bob: { uid: 1002, group: "bob" } };
const auth = createAuthenticator({
  verify: async () => ({ ok: false, reason: "signature" }),
  mint: async (user, life) => `minted:${user}:${life}`,
  isPrivileged: (u) => u === "root",
  lookupUser: (n) => users[n],
});
const headers = (h: Record<string, string>) => (name: string) => h[name];

describe("authenticateLocal", () => {
  it("acts as the peer, and as the named user only for a root peer", async () => {
    expect(await auth.authenticateLocal("alice", headers({}), 0)).toEqual({ user: "alice", uid: 1001, group: "alice", token: "minted:alice:60" });
    expect((await auth.authenticateLocal("alice", headers({ "x-slurm-user-name": "bob" }), 0)).user).toBe("alice");
    expect((await auth.authenticateLocal("root", headers({ "x-slurm-user-name": "bob" }), 0)).user).toBe("bob");
    await expect(auth.authenticateLocal("nobody-here", headers({}), 0)).rejects.toBeInstanceOf(RestError);
  });
});

describe("peerCred", () => {
  it("reads the connecting process's uid and pid from the kernel", async () => {
    const path = join(mkdtempSync(join(tmpdir(), "spur-peer-")), "s.sock");
    let seen: ReturnType<typeof peerCred>;
    const opened = new Promise<void>((resolve) => {
      const l = Bun.listen({ unix: path, socket: { open(s) { seen = peerCred((s as unknown as { fd: number }).fd); s.end(); l.stop(true); resolve(); }, data() {} } });
    });
    await Bun.connect({ unix: path, socket: { data() {} } });
    await opened;
    expect(seen).toEqual({ pid: process.pid, uid: process.getuid?.(), gid: process.getgid?.() });
    expect(peerCred(-1)).toBeUndefined();
  });
});
