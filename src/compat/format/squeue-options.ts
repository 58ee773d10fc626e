/**
 * @module format/squeue-options
 * The fold of squeue's options (table in squeue-option-table.ts) and the
 * SQUEUE_* variables into SqueueParams, with Slurm 22.05's checks and error
 * wording; --help/--usage/--version end the command early.
 */
import { expandHostlist } from "../hostlist.ts";
import { jobStateFromName } from "../states.ts";
import { getoptLong } from "./getopt.ts";
import { SQUEUE_OPTIONS, SQUEUE_USAGE, squeueHelp } from "./squeue-option-table.ts";
import type { JobIdSel } from "./squeue-select.ts";

/** What the command line and environment asked for. */
export interface SqueueParams {
  /** -i: seconds between listings (0: once). */
  iterate: number;
  all: boolean;
  array: boolean;
  noHeader: boolean;
  long: boolean;
  start: boolean;
  steps: boolean;
  stepList?: string[];
  json: boolean;
  /** --json=VERSION: v0.0.42..45 (spurrestd's serializers) or v0.0.38 (22.05's text); absent = the newest. */
  jsonVersion?: string;
  priority: boolean;
  verbose: number;
  format?: string;
  formatLong?: string;
  sort?: string;
  jobsFlag: boolean;
  jobs?: JobIdSel[];
  accounts?: string[];
  names?: string[];
  partitions?: string[];
  qos?: string[];
  states?: string[] | "all";
  statesText?: string;
  users?: string[];
  nodes?: string[];
  reservation?: string;
  licenses?: string[];
}

/** How the command ends before talking to the controller. */
export interface EarlyExit {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export type ParseOutcome = { ok: true; params: SqueueParams; stderr: string } | { ok: false; exit: EarlyExit };

const list = (text: string): string[] => text.split(",").filter((s) => s !== "");
const fail = (stderr: string, stdout = ""): ParseOutcome => ({ ok: false, exit: { stdout, stderr, exitCode: 1 } });
const done = (stdout: string): ParseOutcome => ({ ok: false, exit: { stdout, stderr: "", exitCode: 0 } });

/** `-j` list: "17", "17_2", "17+1"; a non-positive id is an error. */
function parseJobList(text: string): JobIdSel[] | string {
  const out: JobIdSel[] = [];
  for (const item of list(text)) {
    const m = /^\s*(\d+)(?:_(\d+))?/.exec(item);
    const jobId = m?.[1] === undefined ? 0 : Number(m[1]);
    if (jobId <= 0) return `squeue: error: Invalid job id: ${item}\n`;
    // "17+1" names heterogeneous job 17 as a whole (oracle, 22.05: `squeue -j 442+1` lists 442+0 and 442+1)
    out.push(m?.[2] === undefined ? { jobId } : { jobId, taskId: Number(m[2]) });
  }
  return out;
}

const VALID_STATES =
  "PENDING,RUNNING,SUSPENDED,COMPLETED,CANCELLED,FAILED,TIMEOUT,NODE_FAIL,PREEMPTED," +
  "BOOT_FAIL,DEADLINE,OUT_OF_MEMORY,COMPLETING,CONFIGURING,RESIZING,REVOKED,SPECIAL_EXIT";

/** `-t` list → long names, or the two error lines Slurm prints. */
export function parseStates(text: string): string[] | "all" | string {
  if (text.toLowerCase() === "all") return "all";
  const out: string[] = [];
  for (const item of list(text)) {
    const name = jobStateFromName(item);
    if (name === undefined) {
      return `squeue: error: Invalid job state specified: ${item}\nsqueue: error: Valid job states include: ${VALID_STATES}\n\n`;
    }
    out.push(name);
  }
  return out;
}

type Apply = (p: SqueueParams, value: string | undefined, ctx: ApplyCtx) => string | undefined;

interface ApplyCtx {
  /** --me selects this uid. */
  uid: number;
  overrideFormatEnv: boolean;
}

const v = (value: string | undefined): string => value ?? "";

/** What each option does to the params; a returned string is an error to print. */
const APPLY: Readonly<Record<string, Apply>> = {
  accounts: (p, x) => void (p.accounts = list(v(x))),
  all: (p) => void (p.all = true),
  array: (p) => void (p.array = true),
  Format: (p, x, c) => {
    if (p.format !== undefined) return "squeue: error: -O (--Format) is incompatible with -o (--format)\n";
    p.formatLong = v(x);
    c.overrideFormatEnv = true;
    return undefined;
  },
  format: (p, x, c) => {
    if (p.formatLong !== undefined) return "squeue: error: -o (--format) is incompatible with -O (--Format)\n";
    p.format = v(x);
    c.overrideFormatEnv = true;
    return undefined;
  },
  hide: (p) => void (p.all = false),
  iterate: (p, x) => {
    p.iterate = Number.parseInt(v(x), 10);
    return p.iterate > 0 ? undefined : `squeue: error: --iterate=${v(x)}\n\n`;
  },
  jobs: (p, x) => {
    p.jobsFlag = true;
    if (x === undefined) return undefined;
    const jobs = parseJobList(x);
    if (typeof jobs === "string") return jobs;
    p.jobs = jobs;
    return undefined;
  },
  json: (p, x) => {
    p.json = true;
    if (x !== undefined) p.jsonVersion = x;
    return undefined;
  },
  long: (p, _x, c) => {
    p.long = true;
    c.overrideFormatEnv = true;
  },
  licenses: (p, x) => void (p.licenses = list(v(x))),
  me: (p, _x, c) => void (p.users = [String(c.uid)]),
  name: (p, x) => void (p.names = list(v(x))),
  nodelist: (p, x) => {
    const names = expandHostlist(v(x));
    if (!names.ok) return `squeue: error: '${v(x)}' invalid entry for --nodelist\n`;
    p.nodes = names.value;
    return undefined;
  },
  noheader: (p) => void (p.noHeader = true),
  // The job id and state only, in the lightweight listing's fixed format (default-formats.tsv).
  "only-job-state": (p, _x, c) => {
    p.format = "%.18i %.2t";
    c.overrideFormatEnv = true;
  },
  partitions: (p, x) => {
    p.partitions = list(v(x));
    p.all = true;
  },
  priority: (p) => void (p.priority = true),
  qos: (p, x) => void (p.qos = list(v(x))),
  reservation: (p, x) => void (p.reservation = v(x)),
  sort: (p, x) => void (p.sort = v(x)),
  start: (p, _x, c) => {
    p.start = true;
    c.overrideFormatEnv = true;
  },
  steps: (p, x, c) => {
    p.steps = true;
    if (x !== undefined) p.stepList = list(x);
    c.overrideFormatEnv = true;
  },
  states: (p, x) => {
    const states = parseStates(v(x));
    if (typeof states === "string" && states !== "all") return states;
    p.states = states;
    p.statesText = v(x);
    return undefined;
  },
  users: (p, x) => void (p.users = list(v(x))),
  verbose: (p) => void p.verbose++,
};

const ENV_FLAGS: readonly [string, (p: SqueueParams) => void][] = [
  ["SQUEUE_ALL", (p) => void (p.all = true)],
  ["SQUEUE_ARRAY", (p) => void (p.array = true)],
  ["SQUEUE_PRIORITY", (p) => void (p.priority = true)],
];

export const SQUEUE_TRY = 'Try "squeue --help" for more information\n';

/** Fold argv and SQUEUE_* into params, or the early exit (help, version, errors). */
export function parseSqueueArgs(
  argv: readonly string[],
  env: Record<string, string | undefined>,
  uid: number,
  versionLine: string,
): ParseOutcome {
  const p: SqueueParams = {
    iterate: 0, all: false, array: false, noHeader: false, long: false, start: false, steps: false,
    json: false, priority: false, verbose: 0, jobsFlag: false,
  };
  for (const [name, set] of ENV_FLAGS) if (env[name] !== undefined) set(p);
  if (env.SQUEUE_SORT !== undefined) p.sort = env.SQUEUE_SORT;
  const parsed = getoptLong("squeue", argv, SQUEUE_OPTIONS);
  const ctx: ApplyCtx = { uid, overrideFormatEnv: false };
  for (const opt of parsed.options) {
    if (opt.id === "help") return done(squeueHelp());
    if (opt.id === "usage") return done(SQUEUE_USAGE);
    if (opt.id === "version") return done(`${versionLine}\n`);
    const error = APPLY[opt.id]?.(p, opt.value, ctx);
    if (error !== undefined) return fail(error);
  }
  if (parsed.error !== undefined) return fail(`${parsed.error}\n${SQUEUE_TRY}`);
  return finishParams(p, parsed.positionals, env, ctx);
}

function finishParams(p: SqueueParams, positionals: string[], env: Record<string, string | undefined>, ctx: ApplyCtx): ParseOutcome {
  if (p.long && p.format !== undefined) {
    return fail("squeue: fatal: Options -o(--format) and -l(--long) are mutually exclusive. Please remove one and retry.\n");
  }
  if (!ctx.overrideFormatEnv) {
    if (env.SQUEUE_FORMAT !== undefined) p.format = env.SQUEUE_FORMAT;
    else if (env.SQUEUE_FORMAT2 !== undefined) p.formatLong = env.SQUEUE_FORMAT2;
  }
  const rest = [...positionals];
  if (rest.length > 0 && (p.jobsFlag || p.steps)) {
    const first = rest.shift() ?? "";
    if (p.jobsFlag) {
      const jobs = parseJobList(first);
      if (typeof jobs === "string") return fail(jobs);
      p.jobs = jobs;
    } else p.stepList = list(first);
  }
  if (rest.length > 0) return fail(`squeue: error: Unrecognized option: ${rest[0]}\n`, SQUEUE_USAGE);
  if (p.jobsFlag && p.steps && p.jobs === undefined) return fail("squeue: error: Incompatible options --jobs and --steps\n");
  return applyEnvFilters(p, env);
}

function applyEnvFilters(p: SqueueParams, env: Record<string, string | undefined>): ParseOutcome {
  if (p.accounts === undefined && env.SQUEUE_ACCOUNT !== undefined) p.accounts = list(env.SQUEUE_ACCOUNT);
  if (p.names === undefined && env.SQUEUE_NAMES !== undefined) p.names = list(env.SQUEUE_NAMES);
  if (p.licenses === undefined && env.SQUEUE_LICENSES !== undefined) p.licenses = list(env.SQUEUE_LICENSES);
  if (p.partitions === undefined && env.SQUEUE_PARTITION !== undefined) {
    p.partitions = list(env.SQUEUE_PARTITION);
    p.all = true;
  }
  if (p.qos === undefined && env.SQUEUE_QOS !== undefined) p.qos = list(env.SQUEUE_QOS);
  if (p.states === undefined && env.SQUEUE_STATES !== undefined) {
    const states = parseStates(env.SQUEUE_STATES);
    if (typeof states === "string" && states !== "all") return fail(states);
    p.states = states;
    p.statesText = env.SQUEUE_STATES;
  }
  if (p.users === undefined && env.SQUEUE_USERS !== undefined) p.users = list(env.SQUEUE_USERS);
  if (p.start && !p.steps) {
    p.format ??= "%.18i %.9P %.8j %.8u %.2t %.19S %.6D %20Y %R";
    p.sort ??= "S";
    if (p.states === undefined) {
      p.states = ["PENDING"];
      p.statesText = "PD";
    }
  }
  return { ok: true, params: p, stderr: "" };
}
