/**
 * @module cli/scancel
 * `scancel`: cancel or signal jobs by id and/or filters, with Slurm's output.
 *
 * Contract with the controller (Controller.Cancel). The CLI sends ONE request:
 * `filter.jobIds` as typed ("17", "17_2", "17_[1-3]", "17.0"), the filter
 * fields (user: name or uid text; states: long names; account/qos lower-case),
 * `signal` (0 = cancel; also sent for `-s KILL`, which Slurm treats as a
 * cancel), `batchOnly` (-b) and `full` (-f). The controller returns one
 * JobResult per target: `jobId` = the id as requested for plain ids (several
 * results may share "17" when it names a whole array), the element id
 * ("17_2") for bracket lists, the display id ("20", "17_1") for filter
 * matches. `error` is empty on success, otherwise exactly Slurm's text with
 * its errno in `errorCode`:
 *   "Invalid job id specified" (2017)                  no such job / bad id
 *   "Job/step already completing or completed" (2021)  the job has ended
 *   "Access/permission denied" (2002)                  not owner/operator
 *   any other Slurm text with its errno (exit = errno & 0xff)
 * A signal sent to a PENDING job cancels it (Slurm's kill RPC does). The CLI
 * adds "scancel: error: Kill job error on job id <id>: " itself and decides
 * what is silent: with plain ids and no -s/filters, 2017/2021 print only
 * under -v and do not fail; otherwise they print as "Invalid job id
 * specified" and exit 1 (exit-codes.md).
 */
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import type { Plain } from "../lib/plain.ts";
import type { JobFilter, JobResult } from "../net/gen/spur/v1/controller_pb.ts";
import { getoptLong, type ArgMode, type OptionRow } from "../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { displayJobId, type Job } from "../compat/format/job-values.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import { signalByName } from "../compat/signals.ts";
import { jobStateFromName } from "../compat/states.ts";

const ERR_INVALID_JOB = 2017;
const ERR_ALREADY_DONE = 2021;
const INVALID_TEXT = "Invalid job id specified";

interface Row extends OptionRow {
  help: string;
  env?: string;
}
const opt = (id: string, short: string, long: string[], arg: ArgMode, help: string, env?: string): Row => ({
  id, long, arg, help, ...(short ? { short } : {}), ...(env ? { env } : {}),
});

/** scancel's options; `env` names the SCANCEL_* variable that presets one. */
const OPTIONS: readonly Row[] = [
  opt("account", "A", ["account"], "required", "act only on jobs charging this account", "SCANCEL_ACCOUNT"),
  opt("batch", "b", ["batch"], "none", "signal only the batch shell of the jobs", "SCANCEL_BATCH"),
  opt("ctld", "", ["ctld"], "none", "send the request to the controller", "SCANCEL_CTLD"),
  opt("full", "f", ["full"], "none", "signal the batch shell and every step", "SCANCEL_FULL"),
  opt("help", "", ["help"], "none", "print this help"),
  opt("hurry", "H", ["hurry"], "none", "skip burst buffer stage out", "SCANCEL_HURRY"),
  opt("interactive", "i", ["interactive"], "none", "ask before acting on each job", "SCANCEL_INTERACTIVE"),
  opt("clusters", "M", ["cluster", "clusters"], "required", "clusters to send the request to"),
  opt("me", "", ["me"], "none", "act only on your own jobs"),
  opt("name", "n", ["jobname", "name"], "required", "act only on jobs with this name", "SCANCEL_NAME"),
  opt("nodelist", "w", ["nodelist"], "required", "act only on jobs using these nodes"),
  opt("partition", "p", ["partition"], "required", "act only on jobs in this partition", "SCANCEL_PARTITION"),
  opt("qos", "q", ["qos"], "required", "act only on jobs with this QOS", "SCANCEL_QOS"),
  opt("quiet", "Q", ["quiet"], "none", "print no error messages"),
  opt("reservation", "R", ["reservation"], "required", "act only on jobs in this reservation"),
  opt("sibling", "", ["sibling"], "required", "remove a federated sibling job"),
  opt("signal", "s", ["signal"], "required", "signal to send (name or number); default: cancel"),
  opt("state", "t", ["state"], "required", "act only on jobs in these states (PENDING, RUNNING, SUSPENDED)", "SCANCEL_STATE"),
  opt("usage", "", ["usage"], "none", "print a short usage line"),
  opt("user", "u", ["user"], "required", "act only on jobs of this user", "SCANCEL_USER"),
  opt("verbose", "v", ["verbose"], "none", "report each job acted on", "SCANCEL_VERBOSE"),
  opt("version", "V", ["version"], "none", "print the version"),
  opt("wckey", "", ["wckey"], "required", "act only on jobs with this wckey", "SCANCEL_WCKEY"),
];

/** Slurm's sig_name2num: "KILL", "sigterm", "9" → number; 0 when unknown. */
export function signalNumber(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  return signalByName(text) ?? 0;
}

/** One scancel job id ("17", "17_2", "17_[1-3]", "17_*", "17+1", "17.0"). */
const JOB_ID = /^([1-9]\d*)(_\[[\d,-]+\]|_\*|_\d+|\+\d+)?(\.\d+)?$/;

/** Split operands at commas outside brackets and check each id. */
export function parseJobIds(operands: readonly string[]): string[] | { bad: string } {
  const ids: string[] = [];
  for (const word of operands) {
    for (const piece of word.split(/,(?![^[]*\])/)) {
      if (!JOB_ID.test(piece)) return { bad: word };
      ids.push(piece);
    }
  }
  return ids;
}

interface Opts {
  filter: Plain<JobFilter>;
  ids: string[];
  signal: number | undefined;
  batch: boolean;
  full: boolean;
  interactive: boolean;
  verbose: number;
  quiet: boolean;
  wckey: string;
  mode?: "help" | "usage" | "version";
}

const TRUE_FALSE: Readonly<Record<string, boolean>> = { true: true, t: true, false: false, f: false };

type Fail = { fail: string };

function setOption(o: Opts, id: string, value: string, invokerUid: number): Fail | undefined {
  const f = o.filter;
  switch (id) {
    case "account": f.account = value.toLowerCase(); break;
    case "batch": o.batch = true; break;
    case "full": o.full = true; break;
    case "interactive": o.interactive = true; break;
    case "me": f.user = String(invokerUid); break;
    case "name": f.name = value; break;
    case "nodelist": f.nodelist = value; break;
    case "partition": f.partition = value; break;
    case "qos": f.qos = value.toLowerCase(); break;
    case "quiet": o.quiet = true; break;
    case "reservation": f.reservation = value; break;
    case "signal": {
      const n = signalNumber(value);
      if (n <= 0) return { fail: `Unknown job signal: ${value}\n` };
      o.signal = n;
      break;
    }
    case "state": {
      const states = value.split(",").map((s) => [s, jobStateFromName(s)] as const);
      const bad = states.find(([, long]) => long === undefined);
      if (bad) return { fail: `Invalid job state specified: ${bad[0]}\nValid job states are PENDING, RUNNING, and SUSPENDED\n` };
      f.states = states.map(([, long]) => long as string);
      break;
    }
    case "user": f.user = value; break;
    case "verbose": o.verbose++; break;
    case "wckey": o.wckey = value; break;
    case "help": case "usage": case "version": o.mode = id; break;
    default: break; // --ctld, --hurry, --sibling, -M: no effect in Spur
  }
  return undefined;
}

/** SCANCEL_* presets, then argv; returns the options or the text to print. */
function parseArgs(argv: readonly string[], port: CliPort): Opts | Fail {
  const o: Opts = {
    filter: { jobIds: [], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" },
    ids: [], signal: undefined, batch: false, full: false, interactive: false, verbose: 0, quiet: false, wckey: "",
  };
  let warnings = "";
  for (const row of OPTIONS.filter((r) => r.env !== undefined)) {
    const value = port.env[row.env as string];
    if (value === undefined) continue;
    const flag = TRUE_FALSE[value.toLowerCase()];
    if (row.arg === "none" && !["ctld", "hurry"].includes(row.id) && flag === undefined) {
      warnings += `scancel: error: Unrecognized ${row.env} value: ${value}\n`;
    } else if (row.arg !== "none" || flag !== false) {
      const problem = setOption(o, row.id, value, port.invoker.uid);
      if (problem) return { fail: problem.fail.replace("Invalid job state specified", "Unrecognized SCANCEL_STATE value") };
    }
  }
  const parsed = getoptLong("scancel", argv, OPTIONS);
  if (parsed.error !== undefined) return { fail: `${parsed.error}\nTry "scancel --help" for more information\n` };
  for (const p of parsed.options) {
    const problem = setOption(o, p.id, p.value ?? "", port.invoker.uid);
    if (problem) return problem;
    if (o.mode === "version") return o;
  }
  const ids = parseJobIds(parsed.positionals);
  if ("bad" in ids) return { fail: `scancel: error: Invalid job id ${ids.bad}\n` };
  o.ids = ids;
  o.filter.jobIds = ids;
  if (warnings !== "") port.write("stderr", warnings);
  return o;
}

const f0 = (o: Opts): boolean => {
  const f = o.filter;
  return !(f.account || f.name || f.nodelist || f.partition || f.qos || f.reservation || f.states.length || f.user || o.wckey);
};

/** Plain ids only: Slurm's quiet "kill by id string" path. */
const isPlainIds = (o: Opts): boolean =>
  f0(o) && !o.batch && !o.interactive && o.signal === undefined && o.ids.every((id) => !id.includes("."));

const isQuietError = (r: Plain<JobResult>): boolean =>
  r.errorCode === ERR_INVALID_JOB || r.errorCode === ERR_ALREADY_DONE ||
  r.error === INVALID_TEXT || r.error === "Job/step already completing or completed";

interface Report {
  stderr: string;
  exitCode: number;
}

/** A step's failure names its job only ("on job step id 94", oracle 22.05 for `scancel 94.7`). */
function errorLine(id: string, error: string): string {
  const dot = id.indexOf(".");
  const what = dot < 0 ? `job id ${id}` : `job step id ${id.slice(0, dot)}`;
  return `scancel: error: Kill job error on ${what}: ${error}\n`;
}

function verboseLine(o: Opts, id: string): string {
  // oracle 22.05: -b says "batch job", -f "full job" (scancel -v --batch N: "Terminating batch job N");
  // a signal given, KILL too, is named ("scancel -v -s KILL N": "Signal 9 to job N"; differential seed 9635)
  const what = id.includes(".") ? "step" : o.batch ? "batch job" : o.full ? "full job" : "job";
  return o.signal === undefined ? `scancel: Terminating ${what} ${id}\n` : `scancel: Signal ${o.signal} to ${what} ${id}\n`;
}

/** Print results in request order: each id's verbose line, then its errors. */
function report(o: Opts, results: Plain<JobResult>[], plain: boolean): Report {
  let stderr = "";
  let exitCode = 0;
  const requested = o.ids.length > 0 ? o.ids : [...new Set(results.map((r) => r.jobId))];
  const printed = new Set<Plain<JobResult>>();
  const printResult = (id: string, r: Plain<JobResult>): void => {
    printed.add(r);
    if (r.error === "") return;
    // A step's failure is never quiet and exits with its errno (225 for 2017), as the oracle's scancel J.S.
    if (isQuietError(r) && !id.includes(".")) {
      if (!plain) {
        stderr += errorLine(id, INVALID_TEXT);
        exitCode = Math.max(exitCode, 1);
      } else if (o.verbose > 0) stderr += errorLine(id, r.error);
      return;
    }
    stderr += errorLine(id, r.error);
    exitCode = Math.max(exitCode, (r.errorCode & 0xff) || 1);
  };
  const filtered = !f0(o);
  for (const id of requested) {
    const own = results.filter((x) => x.jobId === id);
    // with filters, only a job they let through is acted on (oracle: scancel -v J -t RUNNING on a pending J names none)
    if (o.verbose > 0 && (!filtered || own.length > 0)) stderr += verboseLine(o, id);
    for (const r of own) printResult(id, r);
  }
  for (const r of results.filter((x) => !printed.has(x))) printResult(r.jobId, r);
  if (filtered && o.verbose > 0 && !results.some((r) => r.error === "")) stderr += noMatchLine(o);
  return { stderr, exitCode };
}

/**
 * -v with filters that let no active job through (oracle 22.05): the filters given, in
 * alphabetical order of Slurm's names, each followed by a space.
 */
function noMatchLine(o: Opts): string {
  const f = o.filter;
  const given: [string, string][] = [
    ["account", f.account], ["job_name", f.name], ["nodelist", f.nodelist], ["partition", f.partition], ["qos", f.qos],
    ["reservation", f.reservation], ["state", f.states.join(",")], ["user_name", f.user], ["wckey", o.wckey],
  ];
  const text = given.filter(([, v]) => v !== "").map(([k, v]) => `${k}=${v} `).join("");
  return `scancel: error: No active jobs match ALL job filters, including: ${text}\n`;
}

const ACTIVE = new Set(["PENDING", "RUNNING", "SUSPENDED"]);

const hostSet = (expr: string): Set<string> => {
  const names = expandHostlist(expr);
  return new Set(names.ok ? names.value : []);
};

/** Does a job record match one scancel id ("17" = job or whole array, "17_2")? */
function matchesId(j: Job, id: string): boolean {
  const het = /^(\d+)\+(\d+)/.exec(id);
  if (het !== null) return j.hetJobId === Number(het[1]) && (j.hetJobOffset ?? 0) === Number(het[2]);
  const [job = "", task] = (id.split(".")[0] ?? "").split("_");
  if (task === undefined && j.hetJobId !== undefined && j.hetJobId !== 0 && j.hetJobId === Number(job)) return true;
  if (task === undefined || task === "*") return j.jobId === Number(job) || j.arrayJobId === Number(job);
  return j.arrayJobId === Number(job) && displayJobId(j).includes(task.replace(/[[\]]/g, ""));
}

function matchesFilter(j: Job, o: Opts, nodes: Set<string> | undefined): boolean {
  const f = o.filter;
  if (f.account && j.account.toLowerCase() !== f.account) return false;
  if (f.name && j.name !== f.name) return false;
  if (f.partition && j.partition !== f.partition) return false;
  if (f.qos && j.qos.toLowerCase() !== f.qos) return false;
  if (f.reservation && j.reservation !== f.reservation) return false;
  if (o.wckey && j.wckey.replace(/^\*/, "") !== o.wckey) return false;
  if (f.states.length > 0 && !f.states.includes(j.state.toUpperCase())) return false;
  if (f.user && j.user !== f.user && String(j.uid) !== f.user) return false;
  return nodes === undefined || [...hostSet(j.nodelist)].some((n) => nodes.has(n));
}

/** -i: the active jobs the options name, pending ones first (Slurm's order). */
function candidates(jobs: readonly Job[], o: Opts): Job[] {
  const nodes = o.filter.nodelist === "" ? undefined : hostSet(o.filter.nodelist);
  const pending = (j: Job): number => Number(j.state.toUpperCase() === "PENDING");
  return jobs
    .filter((j) => ACTIVE.has(j.state.toUpperCase()))
    .filter((j) => o.ids.length === 0 || o.ids.some((id) => matchesId(j, id)))
    .filter((j) => matchesFilter(j, o, nodes))
    .sort((a, b) => pending(b) - pending(a));
}

/** Ask "Cancel job_id=... [y/n]? " per job; answers come from stdin lines. */
async function confirm(port: CliPort, jobs: Job[]): Promise<string[]> {
  const answers = (await port.readStdin()).split("\n");
  const yes: string[] = [];
  for (const j of jobs) {
    for (;;) {
      port.write("stdout", `Cancel job_id=${displayJobId(j)} name=${j.name} partition=${j.partition} [y/n]? `);
      const a = answers.shift();
      if (a === undefined || /^[nN]/.test(a)) break;
      if (/^[yY]/.test(a)) {
        yes.push(displayJobId(j));
        break;
      }
    }
  }
  return yes;
}

const USAGE = [
  "Usage: scancel [-A account] [--batch] [--full] [--interactive] [-n job_name]",
  "               [-p partition] [-Q] [-q qos] [-R reservation] [-s signal | integer]",
  "               [-t PENDING | RUNNING | SUSPENDED] [--usage] [-u user_name]",
  "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey] [--me]",
  "               [job_id[_array_id][.step_id]]",
  "",
].join("\n");

function help(): string {
  const lines = OPTIONS.map((r) => {
    const names = [r.short ? `-${r.short}` : "", ...r.long.map((l) => `--${l}`)].filter((n) => n !== "").join(", ");
    return `  ${names.padEnd(32)}${r.help}`;
  });
  return `Usage: scancel [OPTIONS] [job_id[_array_id][.step_id]]\n${lines.join("\n")}\n`;
}

const done = (stdout: string, stderr: string, exitCode: number): CliResult => ({ stdout, stderr, exitCode });

/** Run scancel with `argv` (without the program name). */
export async function scancelMain(argv: string[], port: CliPort): Promise<CliResult> {
  const parsed = parseArgs(argv, port);
  if ("fail" in parsed) return done("", parsed.fail, 1);
  const o = parsed;
  // -u names one user, resolved as the options are read (a list is one unknown name)
  if (o.filter.user !== "" && port.userKnown !== undefined && !port.userKnown(o.filter.user)) {
    return done("", `scancel: error: Invalid user name: ${o.filter.user}\n`, 1);
  }
  if (o.mode === "version") return done(`${SLURM_VERSION_LINE}\n`, "", 0);
  if (o.mode === "help") return done(help(), "", 0);
  if (o.mode === "usage") return done(USAGE, "", 0);
  if (o.ids.length === 0 && f0(o)) return done("", "scancel: error: No job identification provided\n", 1);
  const plain = isPlainIds(o);
  let jobIds = o.ids;
  if (o.interactive) {
    jobIds = await confirm(port, candidates((await port.ctl.listJobs({})).jobs, o));
    if (jobIds.length === 0) return done("", "", 0);
  }
  const filter = o.interactive ? { ...o.filter, jobIds, user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" } : o.filter;
  const signal = o.signal === undefined || o.signal === 9 ? 0 : o.signal;
  let results: Plain<JobResult>[];
  try {
    results = (await port.ctl.cancel({ filter, signal, batchOnly: o.batch, full: o.full })).results;
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    const lines = jobIds.length > 0 ? jobIds.map((id) => errorLine(id, message)).join("") : `scancel: error: ${message}\n`;
    return done("", o.quiet ? "" : lines, 1);
  }
  const r = report({ ...o, ids: jobIds }, results, plain);
  return done("", o.quiet ? "" : r.stderr, r.exitCode);
}
