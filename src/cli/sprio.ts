/**
 * @module cli/sprio
 * `sprio`: the factors of pending jobs' priorities, as the controller's last
 * scheduling pass computed them (so they add up to what squeue %Q shows).
 * Default formats follow Slurm's: a factor's column appears only when its
 * weight is non-zero; -l adds user, account, QOS name and nice; -n prints the
 * normalised factors; -w prints the weights; -o takes a format of its letters.
 */
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import { type ColumnDef, parseLetterFormat, renderLine } from "../compat/format/format-spec.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import type { JobPriorityFactors, PriorityFactorsResponse, PriorityWeights } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "noheader", short: "h", long: ["noheader"], arg: "none" },
  { id: "jobs", short: "j", long: ["jobs"], arg: "optional" },
  { id: "long", short: "l", long: ["long"], arg: "none" },
  { id: "norm", short: "n", long: ["norm"], arg: "none" },
  { id: "format", short: "o", long: ["format"], arg: "required" },
  { id: "partition", short: "p", long: ["partition"], arg: "required" },
  { id: "user", short: "u", long: ["user"], arg: "required" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "weights", short: "w", long: ["weights"], arg: "none" },
  { id: "help", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
];

const USAGE = "Usage: sprio [-j jid[s]] [-u user_name[s]] [-o format] [-p partitions]\n     [--usage] [-h] [-l] [-n] [-v] [-w]\n";
const HELP = `${USAGE}
  -h, --noheader                  no headers on output
  -j, --jobs                      comma separated list of jobs to view, default is all
  -l, --long                      long report
  -n, --norm                      display normalized values
  -o, --format=format             format specification
  -p, --partition=partition_name  comma separated list of partitions to view
  -u, --user=user_name            comma separated list of users to view
  -v, --verbose                   display more about the specified job
  -V, --version                   display version information
  -w, --weights                   display the configured weights

Help options:
  --help                          show this help message
  --usage                         display a brief summary of sprio options
`;

type Row = { kind: "job"; job: Plain<JobPriorityFactors> } | { kind: "weights"; w: Plain<PriorityWeights> };

interface Params {
  header: boolean;
  long: boolean;
  norm: boolean;
  weights: boolean;
  format: string | undefined;
  jobs: number[];
  users: string[];
  partitions: string[];
}

const norm = (x: number): string => x.toFixed(7);
const int = (x: number): string => String(Math.round(x));

/** One factor column: weighted (upper letter) or normalised (lower letter). */
function factor(header: string, f: (j: Plain<JobPriorityFactors>) => number, weight: (w: Plain<PriorityWeights>) => number, normalised: boolean): ColumnDef<Row> {
  return {
    header,
    value: (r) => {
      if (r.kind === "weights") return String(weight(r.w));
      const w = (r.job as Plain<JobPriorityFactors> & { _w?: Plain<PriorityWeights> })._w;
      return normalised ? norm(f(r.job)) : int(f(r.job) * (w === undefined ? 0 : weight(w)));
    },
  };
}

const tresText = (r: Row, normalised: boolean): string => {
  if (r.kind === "weights") return Object.entries(r.w.tres).map(([k, v]) => `${k.toUpperCase()}=${v}`).join(",");
  const w = (r.job as Plain<JobPriorityFactors> & { _w?: Plain<PriorityWeights> })._w;
  return Object.entries(r.job.tres)
    .map(([k, v]) => `${k}=${normalised ? v.toFixed(2) : Math.round(v * (w?.tres[k] ?? 0))}`)
    .join(",");
};

const jobCell = (f: (j: Plain<JobPriorityFactors>) => string): ColumnDef<Row> => ({ header: "", value: (r) => (r.kind === "job" ? f(r.job) : "") });

const COLUMNS: Record<string, ColumnDef<Row>> = {
  i: { header: "JOBID", value: (r) => (r.kind === "job" ? String(r.job.jobId) : "Weights") },
  r: { ...jobCell((j) => j.partition), header: "PARTITION" },
  u: { ...jobCell((j) => j.user), header: "USER" },
  o: { ...jobCell((j) => j.account), header: "ACCOUNT" },
  n: { ...jobCell((j) => j.qos), header: "QOSNAME" },
  // the job's federation cluster: none outside a federation (oracle 22.05: (null))
  c: { ...jobCell(() => "(null)"), header: "CLUSTER" },
  Y: { ...jobCell((j) => String(j.priority)), header: "PRIORITY" },
  // the priority as a fraction of the largest (oracle 22.05: 11625 is 0.00000270665623)
  y: { ...jobCell((j) => (j.priority / 0xffffffff).toFixed(14)), header: "PRIORITY" },
  S: { header: "SITE", value: (r) => (r.kind === "job" ? String(r.job.admin) : "1") },
  A: factor("AGE", (j) => j.age, (w) => w.age, false),
  a: factor("AGE", (j) => j.age, (w) => w.age, true),
  B: factor("ASSOC", (j) => j.assoc, (w) => w.assoc, false),
  b: factor("ASSOC", (j) => j.assoc, (w) => w.assoc, true),
  F: factor("FAIRSHARE", (j) => j.fairshare, (w) => w.fairshare, false),
  f: factor("FAIRSHARE", (j) => j.fairshare, (w) => w.fairshare, true),
  J: factor("JOBSIZE", (j) => j.jobSize, (w) => w.jobSize, false),
  j: factor("JOBSIZE", (j) => j.jobSize, (w) => w.jobSize, true),
  P: factor("PARTITION", (j) => j.partitionFactor, (w) => w.partition, false),
  p: factor("PARTITION", (j) => j.partitionFactor, (w) => w.partition, true),
  Q: factor("QOS", (j) => j.qosFactor, (w) => w.qos, false),
  q: factor("QOS", (j) => j.qosFactor, (w) => w.qos, true),
  N: { ...jobCell((j) => String(j.nice)), header: "NICE" },
  T: { header: "TRES", value: (r) => tresText(r, false) },
  t: { header: "TRES", value: (r) => tresText(r, true) },
};

/**
 * -l's formats are fixed, every factor shown whatever its weight (sprio's documented long format;
 * 22.05 too shows ASSOC and QOS at weight 0, without 26.x's ACCOUNT and QOSNAME columns).
 */
const LONG_FORMAT = "%.15i %9r %.8u %.8o %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10n %.10Q %.11N %.20T";
const LONG_NORMALISED_FORMAT = "%.15i %9r %.8u %.8o %10y %10a %10b %10f %10j %10p %10n %10q %20t";

/**
 * Slurm's default format, keeping only the factors whose weight is set (a USER column with -u);
 * the normalised one is left-justified, 10 wide and without SITE (oracle 22.05: sprio -n, -u).
 * -l's is fixed.
 */
export function defaultFormat(w: Plain<PriorityWeights>, long: boolean, normalised: boolean, users = false): string {
  if (long) return normalised ? LONG_NORMALISED_FORMAT : LONG_FORMAT;
  const parts = ["%.15i", "%9r"];
  if (users) parts.push("%.8u");
  const col = (letter: string): string => (normalised ? `%10${letter.toLowerCase()}` : `%.10${letter}`);
  parts.push(col("Y"));
  if (!normalised) parts.push("%.10S");
  if (w.age) parts.push(col("A"));
  if (w.assoc) parts.push(col("B"));
  if (w.fairshare) parts.push(col("F"));
  if (w.jobSize) parts.push(col("J"));
  if (w.partition) parts.push(col("P"));
  if (w.qos) parts.push(col("Q"));
  if (Object.keys(w.tres).length > 0) parts.push(normalised ? "%20t" : "%20T");
  return parts.join(" ");
}

function parseParams(argv: readonly string[]): Params | CliResult {
  const parsed = getoptLong("sprio", argv, OPTIONS);
  if (parsed.error !== undefined) return { stdout: "", stderr: `${parsed.error}\n${USAGE}`, exitCode: 1 };
  const p: Params = { header: true, long: false, norm: false, weights: false, format: undefined, jobs: [], users: [], partitions: [] };
  for (const o of parsed.options) {
    const v = o.value ?? "";
    switch (o.id) {
      case "help":
        return { stdout: HELP, stderr: "", exitCode: 0 };
      case "usage":
        return { stdout: USAGE, stderr: "", exitCode: 0 };
      case "version":
        return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
      case "noheader":
        p.header = false;
        break;
      case "long":
        p.long = true;
        break;
      case "norm":
        p.norm = true;
        break;
      case "weights":
        p.weights = true;
        break;
      case "format":
        p.format = v;
        break;
      case "jobs": {
        for (const t of v.split(",").filter(Boolean)) {
          if (!/^\d+$/.test(t)) return { stdout: "", stderr: `Invalid job id: ${t}\n`, exitCode: 1 };
          p.jobs.push(Number(t));
        }
        break;
      }
      case "user":
        p.users.push(...v.split(",").filter(Boolean));
        break;
      case "partition":
        p.partitions.push(...v.split(",").filter(Boolean));
        break;
    }
  }
  // oracle 22.05: -j takes an optional argument, so `sprio -j 12` names 12 as a word after the options:
  // with -j given, the first such word is the job list; any other word is refused
  const words = [...parsed.positionals];
  if (parsed.options.some((o) => o.id === "jobs") && words.length > 0) {
    p.jobs = [];
    for (const t of (words.shift() ?? "").split(",").filter(Boolean)) {
      if (!/^\d+$/.test(t)) return { stdout: "", stderr: `Invalid job id: ${t}\n`, exitCode: 1 };
      p.jobs.push(Number(t));
    }
  }
  if (words.length > 0) return { stdout: USAGE, stderr: `sprio: error: Unrecognized option: ${words[0]}\n`, exitCode: 1 };
  return p;
}

const WEIGHT_DEFAULTS: Plain<PriorityWeights> = { age: 0, assoc: 0, fairshare: 0, jobSize: 0, partition: 0, qos: 0, tres: {} };
const FACTOR_DEFAULTS: Omit<Plain<JobPriorityFactors>, "jobId"> = {
  partition: "", user: "", account: "", qos: "", priority: 0, age: 0, assoc: 0, fairshare: 0, jobSize: 0,
  partitionFactor: 0, qosFactor: 0, nice: 0, admin: 0, tres: {},
};

export async function sprioMain(argv: string[], port: CliPort): Promise<CliResult> {
  const p = parseParams(argv);
  if (!("header" in p)) return p;
  if (port.ctl.getPriorityFactors === undefined) return { stdout: "", stderr: "sprio: error: controller does not support sprio\n", exitCode: 1 };
  let resp: Plain<PriorityFactorsResponse>;
  try {
    resp = await port.ctl.getPriorityFactors({ jobIds: p.jobs, users: p.users });
  } catch (e) {
    const text = e instanceof RpcError && e.code === "unavailable" ? "Unable to contact slurm controller (connect failure)" : (e as Error).message;
    return { stdout: "", stderr: `sprio: error: ${text}\n`, exitCode: 1 };
  }
  const weights = { ...WEIGHT_DEFAULTS, ...(resp.weights ?? {}) };
  if ((resp.priorityType ?? "") !== "priority/multifactor") {
    return { stdout: "", stderr: `You are not running a supported priority plugin\n(${resp.priorityType || "priority/basic"}).\nOnly 'priority/multifactor' is supported.\n`, exitCode: 1 };
  }
  const jobs = (resp.jobs ?? [])
    .map((j) => ({ ...FACTOR_DEFAULTS, ...j, _w: weights }))
    .filter((j) => p.partitions.length === 0 || p.partitions.includes(j.partition));
  const parsed = parseLetterFormat(p.format ?? defaultFormat(weights, p.long, p.norm, p.users.length > 0), (l) => (l in COLUMNS ? l : undefined));
  let stderr = parsed.invalid.map((x) => `Invalid job format specification: ${x}\n`).join("");
  const col = (key: string): ColumnDef<Row> => COLUMNS[key] as ColumnDef<Row>;
  // oracle 22.05: -j naming no pending job (a held one included: sprio leaves priority 0 out) prints
  // this line on stdout instead of the header, exit 0; -u alone with none prints the header only
  if (!p.weights && jobs.length === 0 && p.jobs.length > 0) {
    return { stdout: "Unable to find jobs matching user/id(s) specified\n", stderr, exitCode: 0 };
  }
  let stdout = p.header ? renderLine(parsed.items, col, undefined) : "";
  if (p.weights) stdout += renderLine(parsed.items, col, { kind: "weights", w: weights });
  else for (const job of jobs) stdout += renderLine(parsed.items, col, { kind: "job", job });
  return { stdout, stderr, exitCode: 0 };
}
