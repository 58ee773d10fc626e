/**
 * @module cli/sreport
 * `sreport [-t fmt] [-p|-P] [-n] [-M cluster] cluster utilization|user topusage [start=] [end=]
 * [users=] [accounts=] [topcount=]`:
 * the two everyday accounting reports, from the controller's job records and node CPU counts
 * (compat/format/sreport.ts does the arithmetic and layout). Options may come before or after
 * the report words, as sreport's getopt permutes them. Other reports answer as sreport does for
 * an unknown one; an unknown condition is reported and the report printed, with status 1.
 */
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseSacctTime } from "../compat/format/sacct-time.ts";
import {
  clusterUsage,
  clusterUtilizationText,
  parseTimeFormat,
  reportWindow,
  userTopText,
  userUsage,
  type Style,
  type TimeFormat,
} from "../compat/format/sreport.ts";
import { isoTimeText } from "../compat/format/time-memo.ts";
import { type CliPort, type CliResult, RpcError } from "./io.ts";

const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });

const CLUSTER_REPORTS = 'Valid cluster reports are, "AccountUtilizationByUser", "UserUtilizationByAccount", "UserUtilizationByWckey", "Utilization", and "WCKeyUtilizationByUser"\n';
const USER_REPORTS = 'Valid user reports are, "Top"\n';

interface Parsed {
  words: string[];
  /** -M/--cluster: the clusters asked for (empty: the local one). */
  clusters: string[];
  style: Style;
  stderr: string;
  version: boolean;
}

/** Options anywhere on the line; everything else is the command and its conditions. */
function parseOptions(argv: readonly string[]): Parsed {
  const style: Style = { parsable: "none", header: true, format: "mins" };
  const words: string[] = [];
  const clusters: string[] = [];
  let stderr = "";
  let version = false;
  const setFormat = (text: string): void => {
    const f: TimeFormat | undefined = parseTimeFormat(text);
    if (f === undefined) stderr += `unknown time format ${text}`;
    else style.format = f;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "-p" || arg === "--parsable") style.parsable = "trailing";
    else if (arg === "-P" || arg === "--parsable2") style.parsable = "plain";
    else if (arg === "-n" || arg === "--noheader") style.header = false;
    else if (arg === "-V" || arg === "--version") version = true;
    else if (arg === "-a" || arg === "--all_clusters") continue;
    else if (arg === "-M" || arg === "--cluster") clusters.push(...(argv[++i] ?? "").split(","));
    else if (arg.startsWith("--cluster=")) clusters.push(...arg.slice("--cluster=".length).split(","));
    else if (arg === "-t") setFormat(argv[++i] ?? "");
    else if (arg.startsWith("-t")) setFormat(arg.slice(2));
    else if (arg.startsWith("--time_format=")) setFormat(arg.slice("--time_format=".length));
    else words.push(arg);
  }
  return { words, clusters, style, stderr, version };
}

interface Conditions {
  start?: number;
  end?: number;
  top: number;
  users: string[];
  accounts: string[];
  clusters: string[];
  stderr: string;
}

/** A condition name matches when what was typed is a prefix of it, at least `min` letters. */
const isKey = (key: string, name: string, min: number): boolean => key.length >= min && name.startsWith(key);

const listOf = (value: string): string[] => value.split(",").filter((v) => v !== "");

/**
 * The report's conditions, named by prefix and case-insensitive: Start=, End= (times as sacct's
 * -S/-E), Clusters=; for user reports Users= (also a bare word), Accounts=/Acct= and TopCount=;
 * for cluster reports a bare word names a cluster.
 */
function parseConditions(words: readonly string[], now: number, userReport: boolean): Conditions {
  const c: Conditions = { top: 10, users: [], accounts: [], clusters: [], stderr: "" };
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
    if (eq < 0 && isKey(key, "all_clusters", 1)) continue;
    if (eq < 0) (userReport ? c.users : c.clusters).push(...listOf(value));
    else if (userReport && isKey(key, "users", 1)) c.users.push(...listOf(value));
    else if (userReport && (isKey(key, "accounts", 2) || isKey(key, "acct", 4))) c.accounts.push(...listOf(value));
    else if (isKey(key, "clusters", 1)) c.clusters.push(...listOf(value));
    else if (isKey(key, "end", 1)) {
      const t = time();
      if (t !== undefined) c.end = t;
    } else if (isKey(key, "start", 1)) {
      const t = time();
      if (t !== undefined) c.start = t;
    } else if (userReport && isKey(key, "topcount", 1)) {
      c.top = Math.max(0, Number.parseInt(value, 10) || 0);
    } else c.stderr += ` Unknown condition: ${word}\nUse keyword set to modify value\n`;
  }
  return c;
}

/** The first comma field of each user's GECOS in /etc/passwd (sreport's Proper Name). */
async function properNames(port: CliPort): Promise<(user: string) => string> {
  const text = (await port.readFile("/etc/passwd")) ?? "";
  const names = new Map<string, string>();
  for (const line of text.split("\n")) {
    const fields = line.split(":");
    if (fields.length >= 5) names.set(fields[0] ?? "", (fields[4] ?? "").split(",")[0] ?? "");
  }
  return (user) => names.get(user) ?? "";
}

const matches = (word: string | undefined, name: string, min: number): boolean =>
  word !== undefined && word.length >= min && name.startsWith(word.toLowerCase());

/** Run sreport with `argv` (without the program name). */
export async function sreportMain(argv: string[], port: CliPort): Promise<CliResult> {
  const p = parseOptions(argv);
  if (p.version) return done(`${SLURM_VERSION_LINE}\n`);
  const [noun, report, ...rest] = p.words;
  const isCluster = matches(noun, "cluster", 1);
  const isUser = matches(noun, "user", 1);
  if (!isCluster && !isUser) return done("", `${p.stderr}Invalid keyword: ${noun ?? ""}\n`, 1);
  if (report === undefined) return done("", `${p.stderr}too few arguments for keyword:${noun}\n`, 1);
  const known = isCluster ? matches(report, "utilization", 2) : matches(report, "topusage", 1);
  if (!known) return done("", `${p.stderr}Not valid report ${report}\n${isCluster ? CLUSTER_REPORTS : USER_REPORTS}`, 1);
  const now = Math.floor(port.now());
  const cond = parseConditions(rest, now, isUser);
  const w = reportWindow(cond.start, cond.end, now);
  let jobs, nodes;
  try {
    [jobs, nodes] = await Promise.all([port.ctl.listJobs({ includeFinished: true, windowStart: w.start, windowEnd: w.end }), port.ctl.listNodes()]);
  } catch (e) {
    const message = e instanceof RpcError || e instanceof Error ? e.message : String(e);
    return done("", `${p.stderr}sreport: error: Problem talking to the database: ${message}\n`, 1);
  }
  const cpus = nodes.nodes.reduce((sum, n) => sum + n.cpus, 0);
  const usage = clusterUsage(jobs.clusterName, jobs.jobs, cpus, w, now);
  // Spur keeps one cluster's records: another cluster's report is empty
  const asked = [...p.clusters, ...cond.clusters].filter((name) => name !== "");
  const ours = asked.length === 0 || asked.includes(jobs.clusterName);
  const timeText = (t: number): string => isoTimeText(t);
  const stderr = `${p.stderr}${cond.stderr}`;
  const status = cond.stderr === "" ? 0 : 1;
  if (isCluster) return done(clusterUtilizationText(ours ? [usage] : [], w, p.style, timeText), stderr, status);
  const names = await properNames(port);
  const selected = jobs.jobs.filter(
    (j) => (cond.users.length === 0 || cond.users.includes(j.user)) && (cond.accounts.length === 0 || cond.accounts.includes(j.account)),
  );
  const users = ours ? userUsage(selected, w, now) : [];
  return done(userTopText(usage, users, cond.top, w, p.style, names, timeText), stderr, status);
}
