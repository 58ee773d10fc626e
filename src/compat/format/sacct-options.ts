/**
 * @module format/sacct-options
 * sacct's command line as one table (letters and long names of Slurm's
 * getopt_long list, 26.x additions --array/--json/--yaml included) that drives
 * parsing and --help, and the step from parsed options to a SacctQuery: field
 * list, state names, -S/-E times, job ids. Errors are Slurm's lines with the
 * "sacct: error: " / "sacct: fatal: " prefix already applied; exit code 1.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { getoptLong, type ArgMode, type OptionRow } from "./getopt.ts";
import { jobStateFromName } from "../states.ts";
import { parseSacctTime } from "./sacct-time.ts";
import { isBareTimeError } from "../parse-time.ts";
import { BRIEF_FIELDS, DEFAULT_FIELDS, LONG_FIELDS } from "./sacct-fields.ts";

interface SacctOptionRow extends OptionRow {
  help: string;
}

const row = (id: string, short: string, long: string[], arg: ArgMode, help: string): SacctOptionRow =>
  short === "" ? { id, long, arg, help } : { id, short, long, arg, help };

/** Every sacct option; `help` is the one-line description --help prints. */
export const SACCT_OPTIONS: readonly SacctOptionRow[] = [
  row("allusers", "a", ["allusers"], "none", "show the jobs of all users"),
  row("accounts", "A", ["accounts"], "required", "only jobs charged to these accounts"),
  row("array", "", ["array"], "none", "show each task of a pending job array on its own line"),
  row("brief", "b", ["brief"], "none", "show only jobid, state and exitcode"),
  row("completion", "c", ["completion"], "none", "use job completion data instead of accounting"),
  row("constraints", "C", ["constraints"], "required", "only jobs that requested these features"),
  row("delimiter", "", ["delimiter"], "required", "field separator for -p/-P (default '|')"),
  row("duplicates", "D", ["duplicates"], "none", "also show jobs whose id was reused"),
  row("helpformat", "e", ["helpformat", "help-fields"], "none", "list the fields --format accepts"),
  row("endtime", "E", ["endtime"], "required", "only jobs eligible before this time"),
  row("federation", "", ["federation"], "none", "report jobs of the whole federation"),
  row("file", "f", ["file"], "required", "read data from this file (filetxt plugin only)"),
  row("flags", "F", ["flags"], "required", "only jobs with these scheduling flags"),
  row("gid", "g", ["gid", "group"], "required", "only jobs of these groups"),
  row("help", "h", ["help"], "none", "print this help"),
  row("json", "", ["json"], "optional", "print the records as JSON (data_parser v0.0.45; =v0.0.42..44, or =v0.0.38 for 22.05's shape)"),
  row("local", "", ["local"], "none", "report only jobs of the local cluster"),
  row("name", "", ["name"], "required", "only jobs with these names"),
  row("nnodes", "i", ["nnodes"], "required", "only jobs that ran on this many nodes (min[-max])"),
  row("ncpus", "I", ["ncpus"], "required", "only jobs that ran on this many cpus (min[-max])"),
  row("jobs", "j", ["jobs"], "required", "only these jobs or steps: job[_task][.step],..."),
  row("timelimit-min", "k", ["timelimit-min"], "required", "only jobs with at least this time limit"),
  row("timelimit-max", "K", ["timelimit-max"], "required", "with -k: only jobs with at most this limit"),
  row("long", "l", ["long"], "none", "show the long field list"),
  row("allclusters", "L", ["allclusters"], "none", "report jobs of all clusters"),
  row("clusters", "M", ["cluster", "clusters"], "required", "report jobs of these clusters"),
  row("nodelist", "N", ["nodelist"], "required", "only jobs that ran on any of these nodes"),
  row("noconvert", "", ["noconvert"], "none", "do not convert units (2048M stays 2048M)"),
  row("units", "", ["units"], "required", "print sizes in this unit: K, M, G, T or P"),
  row("noheader", "n", ["noheader"], "none", "do not print a header"),
  row("format", "o", ["fields", "format"], "required", "comma-separated fields, name%width"),
  row("parsable", "p", ["parsable"], "none", "'|'-separated output with a trailing '|'"),
  row("parsable2", "P", ["parsable2"], "none", "'|'-separated output without a trailing '|'"),
  row("qos", "q", ["qos"], "required", "only jobs with these QOS"),
  row("partition", "r", ["partition"], "required", "only jobs in these partitions"),
  row("reason", "R", ["reason"], "required", "only jobs pending for these reasons"),
  row("state", "s", ["state"], "required", "only jobs in these states during the window"),
  row("starttime", "S", ["starttime"], "required", "only jobs eligible after this time"),
  row("truncate", "T", ["truncate"], "none", "clip start and end times to the window"),
  row("allocations", "X", ["allocations"], "none", "show the allocations, not their steps"),
  row("allocations", "t", [], "none", "old spelling of -X"),
  row("user", "u", ["uid", "user"], "required", "only jobs of these users (-1: all)"),
  row("usage", "U", ["usage"], "none", "print a short usage line"),
  row("verbose", "v", ["verbose"], "none", "report the selection criteria"),
  row("version", "V", ["version"], "none", "print the version"),
  row("wckeys", "W", ["wckeys"], "required", "only jobs with these wckeys"),
  row("whole-hetjob", "", ["whole-hetjob"], "optional", "all components of a heterogeneous job (yes|no)"),
  row("associations", "x", ["associations"], "required", "only jobs of these association ids"),
  row("yaml", "", ["yaml"], "optional", "print the records as YAML"),
];

export type SacctMode = "list" | "help" | "helpformat" | "usage" | "version" | "json";

/** What the invocation asks for, with lists split and times resolved. */
export interface SacctQuery {
  mode: SacctMode;
  /** --json=v0.0.4x: that data_parser shape (spurrestd's serializers); absent = the newest; v0.0.38 = 22.05's dbv0.0.38 text. */
  jsonVersion?: string;
  fieldList: string;
  allUsers: boolean;
  users: string[];
  accounts: string[];
  jobIds: string[];
  names: string[];
  partitions: string[];
  qos: string[];
  /** Long state names (PENDING, CANCELLED, ...). */
  states: string[];
  nodelist: string;
  /** Epoch seconds; undefined when not given. */
  start: number | undefined;
  end: number | undefined;
  noSteps: boolean;
  expandArrays: boolean;
  parsable: 0 | 1 | 2;
  delimiter: string;
  header: boolean;
  /** --units: sizes printed in this unit (K, M, G, T or P); absent = sacct's own reduction. */
  units?: string;
  /** -M: the clusters whose jobs are wanted, lower-cased ("all" or -L: every one); absent = the local one. */
  clusters?: string[];
}

const splitList = (v: string | undefined): string[] =>
  (v ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");

const JOB_STEP_ID = /^\d+(_(\d+|\*|\[[\d,\-%:]+\])|\+\d+)?(\.(\d+|batch|extern|interactive))?$/;

function parseStates(text: string): Result<string[]> {
  const names = splitList(text);
  const out: string[] = [];
  for (const [i, name] of names.entries()) {
    const long = jobStateFromName(name);
    const shown = i === names.length - 1 ? `'${name}'` : name;
    if (long === undefined) return err("BadState", `sacct: fatal: unrecognized job state value ${shown}`, 1);
    out.push(long);
  }
  return ok(out);
}

function emptyQuery(): SacctQuery {
  return {
    mode: "list", fieldList: "", allUsers: false, users: [], accounts: [], jobIds: [], names: [],
    partitions: [], qos: [], states: [], nodelist: "", start: undefined, end: undefined,
    noSteps: false, expandArrays: false, parsable: 0, delimiter: "|", header: true,
  };
}

interface Lists {
  formats: string[];
  brief: boolean;
  long: boolean;
}

/** Apply one parsed option; returns an error line or undefined. */
function apply(q: SacctQuery, lists: Lists, id: string, value: string, now: number): string | undefined {
  const time = (): number | string => {
    const t = parseSacctTime(value, now);
    if (t.ok) return t.value;
    return isBareTimeError(t.error.message) ? t.error.message : `sacct: error: ${t.error.message}`;
  };
  switch (id) {
    case "allusers": q.allUsers = true; break;
    case "clusters": q.clusters = splitList(value).map((c) => c.toLowerCase()); break;
    case "allclusters": q.clusters = ["all"]; break;
    case "accounts": q.accounts.push(...splitList(value)); break;
    case "array": q.expandArrays = true; break;
    case "brief": lists.brief = true; break;
    case "delimiter": q.delimiter = value; break;
    case "helpformat": if (q.mode === "list") q.mode = "helpformat"; break;
    case "help": q.mode = "help"; break;
    case "usage": q.mode = "usage"; break;
    case "json": if (q.mode === "list") q.mode = "json"; if (value !== undefined && value !== "") q.jsonVersion = value; break;
    case "name": q.names.push(...splitList(value)); break;
    case "jobs": {
      const ids = splitList(value);
      const bad = ids.find((j) => !JOB_STEP_ID.test(j));
      if (bad !== undefined) return `sacct: fatal: Bad job/step specified: ${bad}`;
      q.jobIds.push(...ids);
      break;
    }
    case "long": lists.long = true; break;
    case "nodelist": q.nodelist = value; break;
    case "noheader": q.header = false; break;
    case "format": lists.formats.push(value); break;
    case "parsable": q.parsable = 1; break;
    case "parsable2": q.parsable = 2; break;
    case "qos": q.qos.push(...splitList(value).map((s) => s.toLowerCase())); break;
    case "partition": q.partitions.push(...splitList(value)); break;
    case "state": {
      const states = parseStates(value);
      if (!states.ok) return states.error.message;
      q.states.push(...states.value);
      break;
    }
    case "starttime":
    case "endtime": {
      const t = time();
      if (typeof t === "string") return t;
      if (id === "starttime") q.start = t;
      else q.end = t;
      break;
    }
    case "allocations": q.noSteps = true; break;
    case "units": {
      // oracle (22.05): any case; anything else is refused with these two lines, exit 1
      const unit = value.toUpperCase();
      if (!/^[KMGTP]$/.test(unit)) return `sacct: error: Invalid unit type '${value}'. Possible options are 'KMGTP'\nsacct: fatal: Invalid unit type`;
      q.units = unit;
      break;
    }
    case "user":
      if (value === "-1") q.allUsers = true;
      else q.users.push(...splitList(value));
      break;
    default: break; // accepted for compatibility; no effect on Spur's records
  }
  return undefined;
}

/** Parse sacct's argv. `env` supplies SACCT_FORMAT; `now` resolves -S/-E. */
export function parseSacctArgs(argv: readonly string[], env: Record<string, string | undefined>, now: number): Result<SacctQuery> {
  const parsed = getoptLong("sacct", argv, SACCT_OPTIONS);
  if (parsed.error !== undefined) return err("BadOption", parsed.error, 1);
  const q = emptyQuery();
  const lists: Lists = { formats: [], brief: false, long: false };
  for (const o of parsed.options) {
    if (o.id === "version") return ok({ ...q, mode: "version" });
    const problem = apply(q, lists, o.id, o.value ?? "", now);
    if (problem !== undefined) return err("BadOption", problem, 1);
  }
  if (parsed.positionals.length > 0) {
    const lines = ["sacct: error: Unknown arguments:", ...parsed.positionals.map((p) => `sacct: error:  ${p}`)];
    return err("BadOption", lines.join("\n"), 1);
  }
  const chosen = [...lists.formats];
  if (lists.brief) chosen.push(BRIEF_FIELDS);
  if (lists.long) chosen.push(LONG_FIELDS);
  q.fieldList = chosen.length > 0 ? chosen.join(",") : (env["SACCT_FORMAT"] ?? DEFAULT_FIELDS);
  return ok(q);
}

/** `sacct --help`: usage line and one line per option, from the table. */
export function sacctHelp(): string {
  const lines = SACCT_OPTIONS.filter((o) => o.long.length > 0).map((o) => {
    const names = [o.short ? `-${o.short}` : "", ...o.long.map((l) => `--${l}`)].filter((n) => n !== "");
    return `     ${names.join(", ").padEnd(32)} ${o.help}`;
  });
  return `sacct [<OPTION>]\n    Valid <OPTION> values are:\n${lines.join("\n")}\n`;
}

export const SACCT_USAGE = "Usage: sacct [options]\n\tUse --help for help\n";
