/**
 * @module net/users-parse
 * /etc/passwd and /etc/group text → user entries by uid. Pure (no node:fs), so a CLI
 * that reads the two files itself with Bun.file (roles/cli/client-env.ts) shares the
 * parsing with net/users.ts without loading node:fs.
 */

export interface UserEntry {
  uid: number;
  gid: number;
  name: string;
  group: string;
  home: string;
  shell: string;
}

/** Users by uid; an unreadable file is passed as undefined (names then fall back to numbers). */
export function parseUsers(passwdText: string | undefined, groupText: string | undefined): Map<number, UserEntry> {
  const groups = new Map<number, string>();
  for (const line of (groupText ?? "").split("\n")) {
    const [name, , gid] = line.split(":");
    if (name && gid) groups.set(Number(gid), name);
  }
  const users = new Map<number, UserEntry>();
  for (const line of (passwdText ?? "").split("\n")) {
    const [name, , uid, gid, , home, shell] = line.split(":");
    if (!name || uid === undefined || gid === undefined) continue;
    users.set(Number(uid), {
      uid: Number(uid), gid: Number(gid), name, group: groups.get(Number(gid)) ?? gid, home: home ?? "/", shell: shell ?? "/bin/sh",
    });
  }
  return users;
}

/** The entry for a uid not in the table: its number stands for the names. */
export function unknownUser(uid: number): UserEntry {
  return { uid, gid: uid, name: String(uid), group: String(uid), home: "/", shell: "/bin/sh" };
}

export function userNamed(users: Map<number, UserEntry>, name: string): UserEntry | undefined {
  for (const e of users.values()) if (e.name === name) return e;
  return undefined;
}

/**
 * The fields of the first line of passwd/group text whose field `at` reads `value` (for a
 * number field: the number written without leading zeros), found with indexOf instead of
 * splitting every line: a user command wants one or two entries, and a site's /etc/passwd may
 * list tens of thousands of users (parseUsers of 50k lines took 120 ms in a fresh compiled
 * process, against well under a millisecond here). First match, as getpwuid(3) and getpwnam(3).
 */
function firstLineWith(text: string, at: number, value: string, usable: (fields: string[]) => boolean): string[] | undefined {
  const needle = at === 0 ? value : `:${value}`;
  let lineEnd = -1;
  for (let pos = text.indexOf(needle); pos >= 0; pos = text.indexOf(needle, Math.max(pos + 1, lineEnd))) {
    const start = text.lastIndexOf("\n", pos - 1) + 1;
    const nl = text.indexOf("\n", pos);
    lineEnd = nl < 0 ? text.length : nl;
    const fields = text.slice(start, lineEnd).split(":");
    if (fields[at] === value && usable(fields)) return fields;
  }
  return undefined;
}

/** What parseUsers keeps of a line: a group line with a name and a gid, a passwd line with a name, a uid and a gid. */
const usableGroup = (f: string[]): boolean => Boolean(f[0] && f[2]);
const usableUser = (f: string[]): boolean => Boolean(f[0]) && f[2] !== undefined && f[3] !== undefined;

/** A group's name by gid from /etc/group text (its number when it has no line, as parseUsers). */
function groupName(groupText: string | undefined, gid: string): string {
  const fields = groupText === undefined ? undefined : firstLineWith(groupText, 2, gid, usableGroup);
  return fields?.[0] ?? gid;
}

function entryOf(fields: string[], groupText: string | undefined): UserEntry {
  const [name = "", , uid = "", gid = "", , home, shell] = fields;
  return { uid: Number(uid), gid: Number(gid), name, group: groupName(groupText, gid), home: home ?? "/", shell: shell ?? "/bin/sh" };
}

/** The passwd entry of one uid, as parseUsers would give it for a file without duplicate uids; undefined: no line. */
export function findUserById(passwdText: string | undefined, groupText: string | undefined, uid: number): UserEntry | undefined {
  const fields = passwdText === undefined ? undefined : firstLineWith(passwdText, 2, String(uid), usableUser);
  return fields === undefined ? undefined : entryOf(fields, groupText);
}

/** The passwd entry of one user name (the first line naming it, as userNamed); undefined: no line. */
export function findUserByName(passwdText: string | undefined, groupText: string | undefined, name: string): UserEntry | undefined {
  if (name === "" || name.includes(":") || name.includes("\n")) return undefined;
  const fields = passwdText === undefined ? undefined : firstLineWith(passwdText, 0, name, usableUser);
  return fields === undefined ? undefined : entryOf(fields, groupText);
}
