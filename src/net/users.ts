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

export interface UserTable {
  lookupUid(uid: number): UserEntry;
  lookupUserName(name: string): UserEntry | undefined;
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/** Size, modification time and inode ("" for a missing file): what tells a changed file. */
function statStamp(path: string): string {
  try {
    const s = statSync(path);
    return `${s.size}:${s.mtimeMs}:${s.ino}`;
  } catch {
    return "";
  }
}

/** A table over the two files (`read` and `stamp` are node:fs's; tests count the reads). */
export function createUserTable(
  files: readonly [passwd: string, group: string] = ["/etc/passwd", "/etc/group"],
  io: { read: (path: string) => string | undefined; stamp: (path: string) => string } = { read: readText, stamp: statStamp },
): UserTable {
  let table: Map<number, UserEntry> | undefined;
  /** The files' stamps when the table was read. */
  let readAs = "";
  const stamps = () => files.map(io.stamp).join("|");
  const load = (): Map<number, UserEntry> => {
    readAs = stamps();
    return parseUsers(io.read(files[0]), io.read(files[1]));
  };
  const current = (): Map<number, UserEntry> => (table ??= load());
  /** On a miss only (a hit needs no check): read again if a file changed. */
  const reloadIfChanged = (): boolean => {
    if (stamps() === readAs) return false;
    table = load();
    return true;
  };
  return {
    lookupUid(uid) {
      let entry = current().get(uid);
      if (entry === undefined && reloadIfChanged()) entry = current().get(uid);
      return entry ?? unknownUser(uid);
    },
    lookupUserName(name) {
      let entry = userNamed(current(), name);
      if (entry === undefined && reloadIfChanged()) entry = userNamed(current(), name);
      return entry;
    },
  };
}

const host = createUserTable();

export const lookupUid = (uid: number): UserEntry => host.lookupUid(uid);
export const lookupUserName = (name: string): UserEntry | undefined => host.lookupUserName(name);
