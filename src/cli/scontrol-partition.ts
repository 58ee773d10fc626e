/**
 * @module cli/scontrol-partition
 * `scontrol create partition PartitionName=p Nodes=... [k=v ...]`, `scontrol update
 * PartitionName=p k=v ...` and `scontrol delete PartitionName=p` (or `delete partition p`).
 * Keys are matched by Slurm's abbreviation rules and values checked as its
 * scontrol_parse_part_options does, with its messages; the controller applies the change
 * (replicated) and answers Slurm's errors, printed as scontrol prints them:
 * "Error creating the partition: ...", "slurm_update error: ...", "delete_partition ...: ...".
 * Settings Slurm has that Spur's partitions do not hold are refused by name, never dropped.
 */
import type { CliPort } from "../net/ctl-port.ts";
import { keywordMatch } from "../compat/format/scontrol-update.ts";
import { merge, messageOf, outcome, type Outcome } from "./scontrol-jobs.ts";
import { parseTimeLimit } from "../compat/parse-time.ts";

type Fields = Record<string, string>;
/** `notes`: errors Slurm prints and goes on (a bad MaxNodes/MinNodes count leaves 1). */
type Parsed = { ok: true; name: string | undefined; fields: Fields; notes: string[] } | { ok: false; errors: string[] };

/** A YES/NO value (Slurm matches any prefix of the word, at least one letter). */
function yesNo(v: string): "YES" | "NO" | undefined {
  if (v !== "" && "NO".startsWith(v.toUpperCase())) return "NO";
  if (v !== "" && "YES".startsWith(v.toUpperCase())) return "YES";
  return undefined;
}

const prefixOf = (v: string, words: readonly string[]): string | undefined => (v === "" ? undefined : words.find((w) => w.startsWith(v.toUpperCase())));
const uint = (v: string, max: number): boolean => /^\d{1,10}$/.test(v) && Number(v) <= max;
const timeOk = (v: string): boolean => ["INFINITE", "UNLIMITED"].includes(v.toUpperCase()) || parseTimeLimit(v).ok;

function overSubscribe(v: string): string | undefined {
  const [word = "", n] = v.split(":", 2);
  const kind = prefixOf(word, ["NO", "EXCLUSIVE", "YES", "FORCE"]);
  if (kind === "NO" || kind === "EXCLUSIVE") return kind;
  if (kind === undefined) return undefined;
  return `${kind}:${n === undefined ? 4 : Number.parseInt(n, 10) || 0}`;
}

/** Settings Slurm's scontrol takes that Spur's partitions do not hold: [name, minimum abbreviation]. */
const NOT_HELD: readonly (readonly [string, number])[] = [
  ["MaxCPUsPerNode", 4], ["DisableRootJobs", 1], ["ExclusiveUser", 1], ["LLN", 1], ["ReqResv", 3], ["OverTimeLimit", 5],
  ["PreemptMode", 3], ["DenyAccounts", 5], ["DenyQos", 5], ["AllocNodes", 6], ["Alternate", 3], ["DefMemPerCPU", 10],
  ["DefMemPerNode", 10], ["MaxMemPerCPU", 10], ["MaxMemPerNode", 10], ["QoS", 3],
];

type Setter = (v: string, f: Fields, word: string, notes: string[]) => string[] | undefined;

const yesNoKey = (key: string): Setter => (v, f, word) => {
  const yn = yesNo(v);
  if (yn === undefined) return [`Invalid input: ${word}`, `Acceptable ${key} values are YES and NO`];
  f[key] = yn;
  return undefined;
};
const timeKey = (key: string): Setter => (v, f, word) => {
  if (!timeOk(v)) return [`Invalid input ${word}`];
  f[key] = v;
  return undefined;
};
const numberKey = (key: string, max: number, ...also: string[]): Setter => (v, f) => {
  if (!uint(v, max)) return [`Invalid ${key === "PriorityTier" && also.length > 0 ? "Priority" : key} value: ${v}`];
  for (const k of [key, ...also]) f[k] = v;
  return undefined;
};
const textKey = (key: string): Setter => (v, f) => {
  f[key] = v;
  return undefined;
};

const overSubscribeKey: Setter = (v, f, word) => {
  const o = overSubscribe(v);
  if (o === undefined) return [`Invalid input: ${word}`, "Acceptable OverSubscribe values are NO, EXCLUSIVE, YES:#, and FORCE:#"];
  f.OverSubscribe = o;
  return undefined;
};

/** scontrol_parse_part_options's keys in its test order: [word, minimum, setter]. */
const KEYS: readonly (readonly [string, number, Setter])[] = [
  ["MaxTime", 4, timeKey("MaxTime")],
  ["DefaultTime", 8, timeKey("DefaultTime")],
  // 22.05 says what is wrong with a count and carries on with 1 (the oracle sent the update)
  ["MaxNodes", 4, (v, f, _word, notes) => {
    if (["UNLIMITED", "INFINITE"].includes(v.toUpperCase())) f.MaxNodes = "UNLIMITED";
    else if (uint(v, 4294967294)) f.MaxNodes = v;
    else {
      notes.push(`Invalid numeric value "${v}" for MaxNodes.`);
      f.MaxNodes = "1";
    }
    return undefined;
  }],
  ["MinNodes", 2, (v, f, _word, notes) => {
    if (uint(v, 4294967294)) f.MinNodes = v;
    else {
      notes.push(`"${v}" is not a valid node count`);
      f.MinNodes = "1";
    }
    return undefined;
  }],
  ["Default", 7, yesNoKey("Default")],
  ["Hidden", 1, yesNoKey("Hidden")],
  ["RootOnly", 3, yesNoKey("RootOnly")],
  ["OverSubscribe", 5, overSubscribeKey],
  ["Shared", 2, overSubscribeKey],
  ["Priority", 3, numberKey("PriorityTier", 65535, "PriorityJobFactor")],
  ["PriorityJobFactor", 3, numberKey("PriorityJobFactor", 65535)],
  ["PriorityTier", 3, numberKey("PriorityTier", 65535)],
  ["State", 2, (v, f, word) => {
    const s = prefixOf(v, ["INACTIVE", "DOWN", "UP", "DRAIN"]);
    if (s === undefined) return [`Invalid input: ${word}`, "Acceptable State values are UP, DOWN, DRAIN and INACTIVE"];
    f.State = s;
    return undefined;
  }],
  ["Nodes", 1, textKey("Nodes")],
  ["AllowGroups", 6, textKey("AllowGroups")],
  ["AllowAccounts", 6, textKey("AllowAccounts")],
  ["AllowQos", 6, textKey("AllowQos")],
  ["GraceTime", 5, numberKey("GraceTime", 4294967294)],
];

/** key=value words → the partition name and the canonical fields, or scontrol's error lines. */
export function parsePartitionOptions(words: readonly string[]): Parsed {
  let name: string | undefined;
  const fields: Fields = {};
  const notes: string[] = [];
  for (const word of words) {
    const eq = word.indexOf("=");
    if (eq < 0) return { ok: false, errors: [`Invalid input: ${word}  Request aborted`] };
    const tag = word.slice(0, eq);
    const v = word.slice(eq + 1);
    if (keywordMatch(tag, "PartitionName", 2)) {
      name = v;
      continue;
    }
    const key = KEYS.find(([w, min]) => keywordMatch(tag, w, min));
    const notHeld = key === undefined && NOT_HELD.some(([w, min]) => keywordMatch(tag, w, min));
    // Slurm's format ends with a newline of its own: an empty line follows
    if (key === undefined || notHeld) return { ok: false, errors: [`Update of this parameter is not supported: ${word}\n`, "Request aborted"] };
    const errors = key[2](v, fields, word, notes);
    if (errors !== undefined) return { ok: false, errors };
  }
  return { ok: true, name, fields, notes };
}

const errorLines = (lines: readonly string[]): Outcome => outcome("", lines.map((l) => `scontrol: error: ${l}\n`).join(""), lines.length > 0);

/** A bare entity word before the settings ("create partition PartitionName=p") is skipped. */
const settings = (words: readonly string[]): readonly string[] =>
  words[0] !== undefined && !words[0].includes("=") && keywordMatch(words[0], "partition", 3) ? words.slice(1) : words;

export async function partitionCommand(port: CliPort, action: "create" | "update" | "delete", words: readonly string[]): Promise<Outcome> {
  const call = port.ctl.partition;
  if (call === undefined) return outcome("", "partitions cannot be changed through this controller\n", true);
  if (action === "delete") return deletePartition(port, words);
  const parsed = parsePartitionOptions(settings(words));
  // update: 22.05 then reports the aborted request as an update error with errno 0 (the oracle's output)
  if (!parsed.ok) return merge([errorLines(parsed.errors), action === "update" ? outcome("", "slurm_update error: No error\n", true) : outcome()]);
  const notes = errorLines(parsed.notes);
  if (parsed.name === undefined) return merge([notes, errorLines(["PartitionName must be given."])]);
  if (action === "create" && parsed.name.toUpperCase() === "DEFAULT") return merge([notes, errorLines(['PartitionName cannot be "DEFAULT".'])]);
  if (action === "update" && Object.keys(parsed.fields).length === 0) return merge([notes, errorLines(["No changes specified"])]);
  try {
    await call({ action, name: parsed.name, fields: parsed.fields });
    return outcome("", notes.stderr, false); // the count's complaint sets no exit code of its own
  } catch (e) {
    return merge([notes, outcome("", `${action === "create" ? "Error creating the partition" : "slurm_update error"}: ${messageOf(e)}\n`, true)]);
  }
}

async function deletePartition(port: CliPort, words: readonly string[]): Promise<Outcome> {
  const bare = words.length === 2 && !(words[0] ?? "").includes("=");
  if (!bare && words.length !== 1) return errorLines([`Only one option follows delete.  ${words.length} given.`]);
  const spec = bare ? `${words[0]}=${words[1]}` : (words[0] as string);
  const eq = spec.indexOf("=");
  if (eq < 0) return errorLines(["Proper format is 'delete Partition=p' or 'delete Reservation=r'"]);
  const name = spec.slice(eq + 1);
  try {
    await port.ctl.partition?.({ action: "delete", name, fields: {} });
    return outcome();
  } catch (e) {
    // Slurm formats this prefix into a 64-byte buffer
    // Slurm names the first word ("delete_partition partition: ..." for the two-word form), in a 64-byte buffer
    return outcome("", `${`delete_partition ${words[0] ?? ""}`.slice(0, 63)}: ${messageOf(e)}\n`, true);
  }
}
