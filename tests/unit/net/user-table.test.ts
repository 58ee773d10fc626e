/**
 * The daemons' user table (net/users.ts): read once, read again on a miss only when a file
 * changed. A uid the files do not list must not make every lookup parse the files again.
 */
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createUserTable } from "../../../src/net/users.ts";

function table() {
  const dir = mkdtempSync(join(tmpdir(), "spur-users-"));
  const passwd = join(dir, "passwd");
  const group = join(dir, "group");
  writeFileSync(passwd, "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\n");
  writeFileSync(group, "root:x:0:\nalice:x:1000:\n");
  let reads = 0;
  const t = createUserTable([passwd, group], {
    read: (p) => {
      reads++;
      return readFileSync(p, "utf8");
    },
    stamp: (p) => {
      const s = statSync(p);
      return `${s.size}:${s.mtimeMs}:${s.ino}`;
    },
  });
  return { t, passwd, reads: () => reads };
}

describe("the daemons' user table", () => {
  it("reads the files once, and not again for a uid they do not list while they are unchanged", () => {
    const { t, reads } = table();
    expect(t.lookupUid(1000).name).toBe("alice");
    expect(reads()).toBe(2);
    for (let i = 0; i < 5; i++) expect(t.lookupUid(4242).name).toBe("4242");
    expect(t.lookupUserName("nobody-here")).toBeUndefined();
    expect(reads()).toBe(2);
  });

  it("reads them again on a miss once a file changed, and finds the new user", () => {
    const { t, passwd, reads } = table();
    expect(t.lookupUid(4242).name).toBe("4242");
    writeFileSync(passwd, "root:x:0:0:root:/root:/bin/bash\nalice:x:1000:1000::/home/alice:/bin/sh\nbob:x:4242:1000::/home/bob:/bin/sh\n");
    expect(t.lookupUid(4242)).toMatchObject({ name: "bob", group: "alice" });
    expect(t.lookupUserName("bob")?.uid).toBe(4242);
    expect(reads()).toBe(4);
  });
});
