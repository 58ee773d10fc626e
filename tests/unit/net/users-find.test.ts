/**
 * A user command looks up one passwd entry (findUserById/findUserByName) instead of parsing the
 * whole file (parseUsers). On generated passwd/group texts (names and numbers that are substrings
 * of one another, a password field holding a number, malformed lines, group lines without a
 * trailing colon, a missing group file) each lookup must give what parseUsers and userNamed give
 * for the same text, as long as uids are unique (parseUsers keeps the last duplicate; the lookups
 * keep the first, as getpwuid(3) does: asserted separately).
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { findUserById, findUserByName, parseUsers, userNamed } from "../../../src/net/users-parse.ts";

const NAMES = ["a", "ab", "bob", "bo", "b", "root", "x", "1000", "10", "user1", "user10", "svc-db", "_lab"];
const NUMBERS = [0, 1, 10, 100, 1000, 10000, 65534, 7, 70, 700];

function generate(rng: Rng): { passwd: string; group: string | undefined; uids: number[]; names: string[] } {
  const uids = [...NUMBERS].sort(() => rng.next() - 0.5).slice(0, rng.int(1, NUMBERS.length));
  const lines: string[] = [];
  const names: string[] = [];
  for (const uid of uids) {
    const name = rng.pick(NAMES);
    names.push(name);
    const gid = rng.pick(NUMBERS);
    const pw = rng.pick(["x", "*", String(rng.pick(NUMBERS)), ""]);
    const shape = rng.int(0, 9);
    if (shape === 0) lines.push(`${name}:${pw}:${uid}`); // no gid: parseUsers skips it
    else if (shape === 1) lines.push(`:${pw}:${uid}:${gid}:::`); // no name: skipped
    else lines.push(`${name}:${pw}:${uid}:${gid}:${rng.pick(["", "Some One,,,"])}:/home/${name}:${rng.pick(["/bin/bash", "/bin/sh", ""])}`);
    if (rng.int(0, 4) === 0) lines.push(rng.pick(["", "# comment", "garbage", `${rng.pick(NAMES)}`]));
  }
  const groups: string[] = [];
  for (const gid of NUMBERS) {
    if (rng.int(0, 2) === 0) continue;
    const shape = rng.int(0, 5);
    groups.push(shape === 0 ? `g${gid}:x:${gid}` : shape === 1 ? `:x:${gid}:` : `${rng.pick(NAMES)}grp:x:${gid}:${rng.pick(["", "a,b"])}`);
  }
  return { passwd: lines.join("\n") + (rng.int(0, 1) ? "\n" : ""), group: rng.int(0, 5) === 0 ? undefined : groups.join("\n"), uids, names };
}

describe("findUserById / findUserByName", () => {
  it("give parseUsers' and userNamed's answers on generated files with unique uids", () => {
    const seed = Number(process.env.SEED ?? 16);
    let found = 0;
    let missing = 0;
    for (let round = 0; round < 400; round++) {
      const rng = createRng(seed + round);
      const { passwd, group } = generate(rng);
      const all = parseUsers(passwd, group);
      for (const uid of [...NUMBERS, 3, 99999]) {
        const want = all.get(uid);
        expect(findUserById(passwd, group, uid), `SEED=${seed + round} uid ${uid}`).toEqual(want);
        if (want === undefined) missing++;
        else found++;
      }
      for (const name of [...NAMES, "nobody", "bob:x"]) {
        expect(findUserByName(passwd, group, name), `SEED=${seed + round} name ${name}`).toEqual(userNamed(all, name));
      }
    }
    // The cases mean something: both answers occur often.
    expect(found).toBeGreaterThan(1000);
    expect(missing).toBeGreaterThan(1000);
  });

  it("keep the first line of a duplicated uid, as getpwuid(3)", () => {
    const passwd = "first:x:500:500::/home/first:/bin/sh\nsecond:x:500:500::/home/second:/bin/sh\n";
    expect(findUserById(passwd, "grp:x:500:\n", 500)?.name).toBe("first");
    expect(findUserById(passwd, "grp:x:500:\nother:x:500:\n", 500)?.group).toBe("grp");
  });

  it("answer nothing without a passwd file, and numbers for a gid without a group line", () => {
    expect(findUserById(undefined, undefined, 0)).toBeUndefined();
    expect(findUserByName(undefined, undefined, "root")).toBeUndefined();
    expect(findUserById("root:x:0:0:root:/root:/bin/bash", undefined, 0)).toEqual({ uid: 0, gid: 0, name: "root", group: "0", home: "/root", shell: "/bin/bash" });
  });
});
