import { describe, expect, it } from "vitest";
import { NO_OWNER, uidInTable } from "../../../src/net/peer-identity.ts";

// Rows as the kernel writes them: sl, local, remote, st, queues, tr, retrnsmt, uid, timeout, inode.
const TABLE = [
  "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode",
  "   0: 0100007F:1A85 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1001 1 0000000000000000 100 0 0 10 0",
  // the server's end of the connection: local = server port, remote = client port (uid of the server)
  "   1: 0100007F:1A85 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 1002 1 0000000000000000 20 4 30 10 -1",
  // another client whose REMOTE port happens to equal our client's port: must not match
  "   2: 0100007F:9C40 0100007F:C350 01 00000000:00000000 00:00000000 00000000   777        0 1003 1 0000000000000000 20 4 30 10 -1",
  // the client's end: local = client port 50000 (C350), remote = server port 6789 (1A85), uid 1234
  "   3: 0100007F:C350 0100007F:1A85 01 00000000:00000000 00:00000000 00000000  1234        0 1004 1 0000000000000000 20 4 30 10 -1",
  "   4: 0100007F:C351 0100007F:1A85 06 00000000:00000000 03:00001234 00000000     0        0 0 3 0000000000000000",
].join("\n");

describe("loopback peer uid from /proc/net/tcp", () => {
  it("finds the row whose local end is the client port and remote end the server port", () => {
    expect(uidInTable(TABLE, 50000, 6789)).toBe(1234);
  });

  it("matches whole ports, not prefixes, and answers undefined when no row matches", () => {
    expect(uidInTable(TABLE, 0xc35, 6789)).toBeUndefined();
    expect(uidInTable(TABLE, 50000, 6790)).toBeUndefined();
  });

  it("reads a closed socket (TIME_WAIT row, inode 0, uid column 0) as nobody, never as root", () => {
    expect(uidInTable(TABLE, 50001, 6789)).toBe(NO_OWNER);
    expect(uidInTable(`${TABLE}\n`, 50001, 6789)).toBe(NO_OWNER);
  });

  it("reads a listener (state 0A) as nobody", () => {
    expect(uidInTable(TABLE, 6789, 0)).toBe(NO_OWNER);
  });

  it("still names root for a live socket that root owns (inode not 0)", () => {
    const row = "   5: 0100007F:C352 0100007F:1A85 01 00000000:00000000 00:00000000 00000000     0        0 1005 1 0000000000000000 20 4 30 10 -1";
    expect(uidInTable(`${TABLE}\n${row}`, 50002, 6789)).toBe(0);
  });
});
