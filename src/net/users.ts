/**
 * @module net/users
 * User and group names for uids and gids from /etc/passwd and /etc/group, read
 * once and cached (the controller answers many requests from few users).
 */
import { readFileSync } from "node:fs";
import { parseUsers, unknownUser, userNamed, type UserEntry } from "./users-parse.ts";

export type { UserEntry } from "./users-parse.ts";

let passwd: Map<number, UserEntry> | undefined;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function load(): Map<number, UserEntry> {
  return parseUsers(read("/etc/passwd"), read("/etc/group"));
}

export function lookupUid(uid: number): UserEntry {
  passwd ??= load();
  let entry = passwd.get(uid);
  if (entry === undefined) {
    passwd = load();
    entry = passwd.get(uid);
  }
  return entry ?? unknownUser(uid);
}

export function lookupUserName(name: string): UserEntry | undefined {
  passwd ??= load();
  return userNamed(passwd, name);
}
