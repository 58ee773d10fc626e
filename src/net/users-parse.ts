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
