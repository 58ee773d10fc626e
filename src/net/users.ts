/**
 * @module net/users
 * User and group names for uids and gids from /etc/passwd and /etc/group, read
 * once and cached (the controller answers many requests from few users).
 */
import { readFileSync } from "node:fs";

export interface UserEntry {
  uid: number;
  gid: number;
  name: string;
  group: string;
  home: string;
  shell: string;
}

let passwd: Map<number, UserEntry> | undefined;

function load(): Map<number, UserEntry> {
  const groups = new Map<number, string>();
  try {
    for (const line of readFileSync("/etc/group", "utf8").split("\n")) {
      const [name, , gid] = line.split(":");
      if (name && gid) groups.set(Number(gid), name);
    }
  } catch {
    /* no /etc/group: names fall back to numbers */
  }
  const users = new Map<number, UserEntry>();
  try {
    for (const line of readFileSync("/etc/passwd", "utf8").split("\n")) {
      const [name, , uid, gid, , home, shell] = line.split(":");
      if (!name || uid === undefined || gid === undefined) continue;
      users.set(Number(uid), {
        uid: Number(uid), gid: Number(gid), name, group: groups.get(Number(gid)) ?? gid, home: home ?? "/", shell: shell ?? "/bin/sh",
      });
    }
  } catch {
    /* no /etc/passwd */
  }
  return users;
}

export function lookupUid(uid: number): UserEntry {
  passwd ??= load();
  let entry = passwd.get(uid);
  if (entry === undefined) {
    passwd = load();
    entry = passwd.get(uid);
  }
  return entry ?? { uid, gid: uid, name: String(uid), group: String(uid), home: "/", shell: "/bin/sh" };
}

export function lookupUserName(name: string): UserEntry | undefined {
  passwd ??= load();
  for (const e of passwd.values()) if (e.name === name) return e;
  return undefined;
}
