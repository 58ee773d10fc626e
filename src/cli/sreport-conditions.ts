/**
 * @module cli/sreport-conditions
 * The words after an sreport report name: conditions named by a prefix of at least a few
 * letters, case-insensitive (Start=, End=, Clusters=, Accounts=/Acct=, Users=, Format=, ...),
 * and the bare words each report takes (a cluster, a user, a reservation name, Tree,
 * FlatView, PrintJobCount). Which conditions a report knows follows sreport's own tables; an
 * unknown one is reported in sreport's words and the report still printed.
 */
import { parseSacctTime } from "../compat/format/sacct-time.ts";

/** Report families: their conditions differ. */
export type Family = "cluster" | "assoc" | "user" | "job" | "resv";

export interface Conditions {
  start?: number;
  end?: number;
  top: number;
  users: string[];
  accounts: string[];
  clusters: string[];
  /** Format= fields as typed (with %width). */
  format: string[];
  /** Grouping= sizes, or "individual". */
  grouping: number[] | "individual" | undefined;
  flat: boolean;
  printJobCount: boolean;
  tree: boolean;
  /** user TopUsage's Group: one line per user, its accounts listed. */
  group: boolean;
  names: string[];
  partitions: string[];
  wckeys: string[];
  stderr: string;
}

/** A condition name matches when what was typed is a prefix of it, at least `min` letters. */
const isKey = (key: string, name: string, min: number): boolean => key.length >= min && name.startsWith(key);

const listOf = (value: string): string[] => value.split(",").filter((v) => v !== "");

const UNKNOWN = (word: string): string => ` Unknown condition: ${word}\nUse keyword set to modify value\n`;

function grouping(value: string): number[] | "individual" {
  if (value.toLowerCase().startsWith("i")) return "individual";
  return listOf(value).map((v) => Number.parseInt(v, 10)).filter((n) => Number.isFinite(n) && n > 0);
}

/** A bare word (no '='): a flag, else what the family names by default. */
function bareWord(c: Conditions, key: string, value: string, family: Family): boolean {
  if (isKey(key, "all_clusters", 1)) return true;
  if (family === "assoc" && isKey(key, "tree", 4)) c.tree = true;
  else if (family === "job" && isKey(key, "printjobcount", 2)) c.printJobCount = true;
  else if (family === "job" && isKey(key, "flatview", 2)) c.flat = true;
  else if (family === "user" && isKey(key, "group", 1)) c.group = true;
  else if (family === "user" || family === "assoc") c.users.push(...listOf(value));
  else if (family === "resv") c.names.push(...listOf(value));
  else c.clusters.push(...listOf(value));
  return true;
}

/** One key=value condition; false when the family does not know it. */
function keyed(c: Conditions, key: string, value: string, family: Family, time: () => number | undefined): boolean {
  const people = family === "user" || family === "assoc" || family === "job";
  if (people && isKey(key, "users", 1)) c.users.push(...listOf(value));
  else if (people && (isKey(key, "accounts", 2) || isKey(key, "acct", 4))) c.accounts.push(...listOf(value));
  else if (isKey(key, "clusters", 1)) c.clusters.push(...listOf(value));
  else if (isKey(key, "end", 1)) {
    const t = time();
    if (t !== undefined) c.end = t;
  } else if (isKey(key, "format", family === "job" || family === "resv" ? 2 : 1)) c.format.push(...listOf(value));
  else if (family === "job" && isKey(key, "grouping", 2)) c.grouping = grouping(value);
  else if (family === "job" && isKey(key, "partitions", 2)) c.partitions.push(...listOf(value));
  else if (family === "job" && isKey(key, "wckeys", 2)) c.wckeys.push(...listOf(value));
  else if (family === "resv" && isKey(key, "names", 1)) c.names.push(...listOf(value));
  else if (isKey(key, "start", 1)) {
    const t = time();
    if (t !== undefined) c.start = t;
  } else if (family === "user" && isKey(key, "topcount", 1)) c.top = Math.max(0, Number.parseInt(value, 10) || 0);
  else return false;
  return true;
}

/** Parse the words after the report name; times as sacct's -S/-E at `now`. */
export function parseConditions(words: readonly string[], now: number, family: Family): Conditions {
  const c: Conditions = {
    top: 10, users: [], accounts: [], clusters: [], format: [], grouping: undefined, flat: false, printJobCount: false,
    tree: false, group: false, names: [], partitions: [], wckeys: [], stderr: "",
  };
  for (const word of words) {
    const eq = word.indexOf("=");
    const key = (eq < 0 ? word : word.slice(0, eq)).toLowerCase();
    const value = eq < 0 ? word : word.slice(eq + 1);
    const time = (): number | undefined => {
      const t = parseSacctTime(value, now);
      if (t.ok) return t.value;
      c.stderr += `Invalid time specification (pos=0): ${value}\n`;
      return undefined;
    };
    const known = eq < 0 ? bareWord(c, key, value, family) : keyed(c, key, value, family, time);
    if (!known) c.stderr += UNKNOWN(word);
  }
  return c;
}
