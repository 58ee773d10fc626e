import { describe, expect, it } from "vitest";
import { diagAnswerUid, diagRequest, ipv4Bytes, NO_OWNER, sockDiagUid } from "../../../src/net/sock-diag.ts";

/** An inet_diag answer as the kernel lays it out (little-endian host). */
function answer(type: number, state: number, uid: number, inode: number): Uint8Array {
  const a = new Uint8Array(16 + 4 + 48 + 12 + 8);
  const v = new DataView(a.buffer);
  v.setUint32(0, a.length, true);
  v.setUint16(4, type, true);
  a[16] = 2;
  a[17] = state;
  v.setUint32(80, uid, true);
  v.setUint32(84, inode, true);
  return a;
}

describe("sock_diag lookup of a loopback client's uid", () => {
  it("lays the request out as inet_diag_req_v2 naming one socket", () => {
    const req = diagRequest([127, 0, 0, 1], 50000, [127, 0, 0, 2], 6817);
    const v = new DataView(req.buffer);
    expect(v.getUint32(0, true)).toBe(72);
    expect(v.getUint16(4, true)).toBe(20);
    expect(v.getUint16(6, true)).toBe(1); // a request, not a dump
    expect([req[16], req[17]]).toEqual([2, 6]);
    expect(v.getUint16(24, false)).toBe(50000);
    expect(v.getUint16(26, false)).toBe(6817);
    expect([...req.slice(28, 32)]).toEqual([127, 0, 0, 1]);
    expect([...req.slice(44, 48)]).toEqual([127, 0, 0, 2]);
  });

  it("reads the uid of an owned socket and refuses closed ones, listeners and errors", () => {
    expect(diagAnswerUid(answer(20, 1, 1234, 99), 88)).toBe(1234);
    expect(diagAnswerUid(answer(20, 6, 0, 0), 88)).toBe(NO_OWNER); // time-wait: uid 0 must not mean root
    expect(diagAnswerUid(answer(20, 10, 0, 5), 88)).toBe(NO_OWNER);
    expect(diagAnswerUid(answer(2, 0, 0, 0), 88)).toBeUndefined(); // NLMSG_ERROR
    expect(diagAnswerUid(answer(20, 1, 1234, 99), 40)).toBeUndefined();
  });

  it("takes IPv4 and IPv4-mapped addresses only", () => {
    expect(ipv4Bytes("127.0.0.1")).toEqual([127, 0, 0, 1]);
    expect(ipv4Bytes("::ffff:127.0.0.5")).toEqual([127, 0, 0, 5]);
    expect(ipv4Bytes("::1")).toBeUndefined();
    expect(ipv4Bytes("300.0.0.1")).toBeUndefined();
  });

  it("finds this process's own client socket through the kernel (Linux)", async () => {
    if (process.platform !== "linux") return;
    let accepted: { localPort: number } | undefined;
    const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {}, open() {} } });
    try {
      const client = await Bun.connect({ hostname: "127.0.0.1", port: server.port, socket: { data() {} } });
      accepted = client;
      const uid = sockDiagUid({ remoteAddress: "127.0.0.1", remotePort: accepted.localPort, localPort: server.port, localAddress: "127.0.0.1" });
      // undefined only where netlink is not allowed (some sandboxes): the caller then reads /proc/net/tcp
      if (uid !== undefined) expect(uid).toBe(process.getuid?.() ?? 0);
      expect(sockDiagUid({ remoteAddress: "127.0.0.1", remotePort: 1, localPort: server.port, localAddress: "127.0.0.1" })).toBeUndefined();
      client.end();
    } finally {
      server.stop(true);
    }
  });
});
