/**
 * @module format/scontrol-update
 * The words scontrol accepts and how it abbreviates them: a keyword matches
 * when it starts with what was typed (any case) and at least its minimum
 * length was typed (Slurm's strncasecmp(tag, word, MAX(len, min))). Tables
 * for `update JobId=...` keys and `update NodeName=...`, and job-id lists as
 * scontrol's _is_job_id accepts them ("17", "17_2", "17_[1-3]", "17,18").
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { parseBeginTime } from "../parse-time.ts";

/** A number as strtol reads it: an optional sign and the leading digits; none: 0. */
const leadingInt = (v: string): number => {
  const m = /^\s*([+-]?\d+)/.exec(v);
  return m ? Number(m[1]) : 0;
};

/** Does `typed` name `word` (at least `min` characters, any case)? */
export function keywordMatch(typed: string, word: string, min: number): boolean {
  const t = typed.toLowerCase();
  return t.length >= Math.min(min, word.length) && t.length <= word.length && word.toLowerCase().startsWith(t);
}

/** `update JobId=N` keys in Slurm's test order: [canonical, minimum, aliases...]. */
const JOB_KEYS: readonly (readonly [string, number, ...string[]])[] = [
  ["JobId", 3], ["UserID", 3], ["AdminComment", 6], ["ArrayTaskThrottle", 10], ["Comment", 3], ["DelayBoot", 5],
  ["TimeLimit", 5], ["TimeMin", 5], ["Priority", 2], ["Nice", 2], ["CPUsPerTask", 6], ["NumCPUs", 6],
  ["NumTasks", 8, "ReqProcs"], ["Requeue", 4], ["NumNodes", 8, "ReqNodes"], ["ReqSockets", 4],
  ["ReqCores", 4], ["TasksPerNode", 2], ["ReqThreads", 4], ["MinCPUsNode", 4], ["MinMemoryNode", 10],
  ["MinMemoryCPU", 10], ["MinTmpDiskNode", 5], ["Partition", 2], ["QOS", 2], ["ReservationName", 3],
  ["Name", 2, "JobName"], ["WCKey", 1], ["StdOut", 6], ["Switches", 5], ["wait-for-switch", 5],
  ["OverSubscribe", 2, "Shared"], ["Contiguous", 3], ["CoreSpec", 4], ["ThreadSpec", 4],
  ["ExcNodeList", 3], ["ReqNodeList", 8, "NodeList"], ["Features", 1], ["Gres", 2], ["Account", 1],
  ["BurstBuffer", 1], ["Dependency", 1], ["Licenses", 1], ["StartTime", 2, "EligibleTime", "BeginTime"],
  ["EndTime", 2], ["Deadline", 3], ["Reboot", 3], ["MailUser", 5], ["MailType", 5], ["TresPerNode", 8],
  ["TresBind", 5], ["WorkDir", 2], ["Prefer", 3], ["ClusterFeatures", 8], ["Clusters", 7], ["SiteFactor", 5],
];

/** Keys scontrol reads as a whole number itself, refusing anything else before asking the controller (oracle 22.05). */
const WHOLE_NUMBER_KEYS = new Set([
  "CPUsPerTask", "NumTasks", "Requeue", "ReqSockets", "ReqCores", "TasksPerNode", "ReqThreads", "MinCPUsNode",
  "MinMemoryNode", "MinMemoryCPU", "MinTmpDiskNode",
]);

/** Mail types --mail-type and MailType= take. */
const MAIL_TYPES = new Set(["NONE", "ALL", "BEGIN", "END", "FAIL", "REQUEUE", "STAGE_OUT", "INVALID_DEPEND", "TIME_LIMIT", "TIME_LIMIT_90",
  "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS"]);

/** A time as TimeMin= and DelayBoot= take it (minutes, [D-]HH:MM:SS forms). */
const TIME_TEXT = /^(\d+|\d+:\d+|\d+:\d+:\d+|\d+-\d+|\d+-\d+:\d+|\d+-\d+:\d+:\d+|unlimited|infinite)$/i;

/** A count or a min-max range as node counts are given (k/m multiply by 1024). */
const COUNT_RANGE = /^\d+[km]?(-\d+[km]?)?$/i;

/** What scontrol itself says of a value before any request (undefined: fine). */
function clientCheck(key: string, value: string): string | undefined {
  if (WHOLE_NUMBER_KEYS.has(key) && !/^\d*$/.test(value)) return `scontrol: error: Invalid ${key} value: ${value}`;
  // TimeLimit=+N / -N change the limit by N
  if (key === "TimeLimit" && !TIME_TEXT.test(value.replace(/^[+-]/, ""))) return "scontrol: error: Invalid TimeLimit value";
  if (key === "NumCPUs" && !/^\d+(-\d+)?$/.test(value)) {
    return `scontrol: error: Invalid numeric value "${value}" for NumCPUs.\nscontrol: error: Invalid NumCPUs value: ${value}`;
  }
  if (key === "Priority" && !/^(\d+|top)$/i.test(value)) return `scontrol: error: Invalid Priority value: ${value}`;
  if (key === "Contiguous" && !/^(\d+|y|yes|n|no)$/i.test(value)) return `scontrol: error: Invalid ${key} value: ${value}`;
  if ((key === "TimeMin" || key === "DelayBoot") && !TIME_TEXT.test(value)) return `scontrol: error: Invalid ${key} value`;
  if (key === "MailType" && (value === "" || !value.split(",").every((t) => MAIL_TYPES.has(t.toUpperCase())))) return `Invalid MailType: ${value}`;
  if (key === "Reboot" && !/^(yes|no|1|0)$/i.test(value)) return `scontrol: error: Invalid reboot value: ${value}`;
  return undefined;
}

/** The canonical key an update word names, or undefined when scontrol does not know it. */
export function jobUpdateKey(typed: string): string | undefined {
  for (const [canonical, min, ...aliases] of JOB_KEYS) {
    const minFor = (w: string): number => (w === canonical ? min : Math.min(min, w.length));
    if ([canonical, ...aliases].some((w) => keywordMatch(typed, w, minFor(w)))) return canonical;
  }
  return undefined;
}

export interface JobUpdate {
  jobIds: string[];
  fields: Record<string, string>;
  /** UserID= as given (with JobName=, whose jobs are meant; with JobId=, checked and otherwise unused). */
  userId?: string;
  /** What scontrol said of values it dropped (Deadline=abc), printed before the request is made. */
  warnings: string[];
  /**
   * Set when scontrol gives the whole update up without failing (a node count it cannot read:
   * Slurm says so and exits 0, sending nothing): the text it says.
   */
  abandoned?: string;
}

const unsupported = (arg: string): Result<never> =>
  err("BadUpdate", `Update of this parameter is not supported: ${arg}\nRequest aborted`, 1);

/**
 * `update JobId=17 TimeLimit=10 Partition=gpu` (also `Key Value` pairs, bare `Nice` and `ResetAccrueTime`).
 * `now` reads Deadline= as scontrol does (a value it cannot read is dropped with its complaint);
 * `userKnown` checks UserID= (unset: any).
 */
export function parseJobUpdate(args: readonly string[], now = 0, userKnown: (u: string) => boolean = () => true): Result<JobUpdate> {
  const fields: Record<string, string> = {};
  const jobIds: string[] = [];
  const warnings: string[] = [];
  let userId: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    let tag = eq < 0 ? arg : arg.slice(0, eq);
    let value = eq < 0 ? undefined : arg.slice(eq + 1);
    if (tag.endsWith("+")) tag = tag.slice(0, -1);
    // a bare word of its own, before a bare tag takes the next word as its value (oracle: `Res Comment=x` sets the comment)
    if (value === undefined && keywordMatch(tag, "ResetAccrueTime", 3)) {
      fields["ResetAccrueTime"] = "";
      continue;
    }
    let shown = arg;
    if (value === undefined && keywordMatch(tag, "Nice", 2)) value = "100";
    else if (value === undefined && args[i + 1] !== undefined) shown = value = args[++i] as string;
    if (value === undefined) return err("BadUpdate", `Invalid input: ${arg}\nRequest aborted`, 1);
    const key = jobUpdateKey(tag);
    if (key === undefined) return unsupported(shown);
    const refused = clientCheck(key, value);
    if (refused !== undefined) return err("BadUpdate", refused, 1);
    if (key === "Deadline" || key === "StartTime") {
      const t = parseBeginTime(value, now, key);
      if (!t.ok) {
        // parse_time's complaint, when it has one (nothing to read is dropped without a word)
        const said = t.error.message.split("\n")[0] as string;
        if (said.startsWith("Invalid time specification")) warnings.push(said);
        continue;
      }
    }
    if (key === "NumNodes" && !COUNT_RANGE.test(value)) {
      return ok({ jobIds: [], fields: {}, warnings, abandoned: `scontrol: error: Invalid numeric value "${value}" for requested node count.` });
    }
    // read as strtol reads them: leading digits, else 0 (oracle: Nice=7abc sets 7, Nice=bogus 0)
    if (key === "Nice" || key === "ArrayTaskThrottle") value = String(leadingInt(value));
    if (key === "UserID") {
      if (!userKnown(value)) return err("BadUpdate", `Invalid UserID: ${value}\nRequest aborted`, 1);
      userId = value;
    } else if (key === "JobId") jobIds.push(...splitJobIds(value));
    else fields[key] = value;
  }
  if (Object.keys(fields).length === 0) return err("BadUpdate", [...warnings, "No changes specified"].join("\n"), 1);
  return ok({ jobIds, fields, warnings, ...(userId === undefined ? {} : { userId }) });
}

/** Node states `update NodeName=... State=` accepts (Spur's UpdateNodeRequest). */
const NODE_STATES = ["DOWN", "DRAIN", "FAIL", "FUTURE", "RESUME", "IDLE", "UNDRAIN", "POWER_DOWN", "POWER_UP", "NORESP", "CANCEL_REBOOT"];

export interface NodeUpdate {
  nodes: string;
  state: string;
  reason: string;
}

/** `update NodeName=n1 State=DRAIN Reason="disk"`. */
export function parseNodeUpdate(args: readonly string[]): Result<NodeUpdate> {
  const u: NodeUpdate = { nodes: "", state: "", reason: "" };
  for (const arg of args) {
    const eq = arg.indexOf("=");
    const tag = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? "" : arg.slice(eq + 1);
    if (keywordMatch(tag, "NodeName", 3)) u.nodes = value;
    else if (keywordMatch(tag, "Reason", 3)) u.reason = value;
    else if (keywordMatch(tag, "State", 2)) {
      const state = NODE_STATES.find((s) => s === value.toUpperCase());
      if (state === undefined) {
        const valid = "Valid states are: NoResp DRAIN FAIL FUTURE RESUME POWER_DOWN POWER_UP UNDRAIN DOWN IDLE";
        return err("BadUpdate", `Invalid input: ${arg}\nRequest aborted\n${valid}`, 1);
      }
      u.state = state;
    } else return unsupported(arg);
  }
  if (["DOWN", "DRAIN", "FAIL"].includes(u.state) && u.reason === "") {
    return err("BadUpdate", "You must specify a reason when DOWNING or DRAINING a node. Request denied", 1);
  }
  return ok(u);
}

/** Split "17,18_[1-3]" at commas outside brackets. */
export function splitJobIds(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if ((ch === "," || ch === " ") && depth === 0) {
      if (current !== "") out.push(current);
      current = "";
    } else current += ch;
  }
  if (current !== "") out.push(current);
  return out;
}

/** One id as scontrol's _is_job_id accepts it: digits, one "_", brackets. */
export function isJobIdText(text: string): boolean {
  return /^\d+(_(\d+|\[[\d,\-:%]+\]))?$/.test(text) || /^\[[\d,\-]+\](_\d+)?$/.test(text);
}
