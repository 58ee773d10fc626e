/**
 * @module net/users
 * User and group names for uids and gids from /etc/passwd and /etc/group, read
 * once and cached (the controller answers many requests from few users). A uid or
 * name the table lacks reloads it only when either file changed since it was read:
 * the controller looks up the caller of every request, and a user the files do not
 * list (a directory service's) made each of its requests parse both files again
 * (~120 ms at 50k users, on the event loop).
 */
import { readFileSync, statSync } from "node:fs";
import { parseUsers, unknownUser, userNamed, type UserEntry } from "./users-parse.ts";

export type { UserEntry } from "./users-parse.ts";

const FILES = ["/etc/passwd", "/etc/group"] as const;

let passwd: Map<number, UserEntry> | undefined;
/** The files' size and modification time when the table was read ("" for a missing one). */
let readAs = "";

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function stamp(): string {
  return FILES.map((f) => {
    try {
      const s = statSync(f);
      return `${s.size}:${s.mtimeMs}:${s.ino}`;
    } catch {
      return "";
    }
  }).join("|");
}

function load(): Map<number, UserEntry> {
  readAs = stamp();
  return parseUsers(read(FILES[0]), read(FILES[1]));
}

/** The table, read again if a file changed (called on a miss only: a hit needs no check). */
function reloadIfChanged(): boolean {
  if (passwd !== undefined && stamp() === readAs) return false;
  passwd = load();
  return true;
}

export function lookupUid(uid: number): UserEntry {
  passwd ??= load();
  let entry = passwd.get(uid);
  if (entry === undefined && reloadIfChanged()) entry = passwd.get(uid);
  return entry ?? unknownUser(uid);
}

export function lookupUserName(name: string): UserEntry | undefined {
  passwd ??= load();
  let entry = userNamed(passwd, name);
  if (entry === undefined && reloadIfChanged()) entry = userNamed(passwd, name);
  return entry;
}
