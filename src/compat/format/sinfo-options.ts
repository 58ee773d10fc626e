/**
 * @module format/sinfo-options
 * sinfo's command line as data: the option rows (driving getopt, --help and
 * --usage), the SINFO_* variables, and the choice of built-in format (default,
 * -l, -N, -N -l, -s, -R, -R -l). `%#X` marks Slurm's data-sized columns.
 */
import { expandHostlist } from "../hostlist.ts";
import { getoptLong, type OptionRow } from "./getopt.ts";
import { helpStateText, parseNodeStates, type StateSel } from "./sinfo-states.ts";

interface SinfoOptionRow extends OptionRow {
  help: string;
  argName?: string;
}

const row = (
  id: string,
  long: string[],
  short: string | undefined,
  arg: OptionRow["arg"],
  help: string,
  argName?: string,
): SinfoOptionRow => ({
  id, long, ...(short === undefined ? {} : { short }), arg, help, ...(argName === undefined ? {} : { argName }),
});

/** Every sinfo option of Slurm 22.05. */
export const SINFO_OPTIONS: readonly SinfoOptionRow[] = [
  row("all", ["all"], "a", "none", "show all partitions (including hidden ones)"),
  row("dead", ["dead"], "d", "none", "only non-responding nodes"),
  row("exact", ["exact"], "e", "none", "group nodes only when sizes are equal"),
  row("federation", ["federation"], undefined, "none", "show the whole federation"),
  row("help", ["help"], undefined, "none", "print this help and exit"),
  row("helpstate", ["helpstate"], undefined, "none", "list the node states --states accepts and exit"),
  row("hide", ["hide"], undefined, "none", "omit hidden partitions"),
  row("iterate", ["iterate"], "i", "required", "repeat every N seconds", "seconds"),
  row("json", ["json"], undefined, "optional", "print the listing as JSON (data_parser v0.0.45; =v0.0.42..44 or =v0.0.38 for 22.05's shape)", "data_parser"),
  row("local", ["local"], undefined, "none", "only the local cluster"),
  row("long", ["long"], "l", "none", "long report, with a date line"),
  row("clusters", ["cluster", "clusters"], "M", "required", "cluster(s) to ask", "cluster(s)"),
  row("nodes", ["nodes"], "n", "required", "only these nodes", "hostlist"),
  row("noconvert", ["noconvert"], undefined, "none", "print sizes without unit conversion"),
  row("noheader", ["noheader"], "h", "none", "no header line"),
  row("Node", ["Node"], "N", "none", "one line per node"),
  row("format", ["format"], "o", "required", "format string (%[.][size]letter...)", "format"),
  row("Format", ["Format"], "O", "required", "field list (name[:[.]width[suffix]],...)", "fields"),
  row("partition", ["partition"], "p", "required", "only these partitions", "partition(s)"),
  row("responding", ["responding"], "r", "none", "only responding nodes"),
  row("list-reasons", ["list-reasons"], "R", "none", "why nodes are down, drained or failing"),
  row("summarize", ["summarize"], "s", "none", "one line per partition with node counts"),
  row("sort", ["sort"], "S", "required", "sort keys, e.g. #P,-t", "fields"),
  row("states", ["states"], "t", "required", "only nodes in these states", "state(s)"),
  row("reservation", ["reservation"], "T", "none", "show reservations"),
  row("usage", ["usage"], undefined, "none", "print a short usage summary and exit"),
  row("verbose", ["verbose"], "v", "none", "print the options used"),
  row("version", ["version"], "V", "none", "print the version and exit"),
];

export function sinfoHelp(): string {
  const lines = ["Usage: sinfo [OPTIONS]"];
  for (const r of SINFO_OPTIONS) {
    const short = r.short === undefined ? "    " : `-${r.short}, `;
    const arg = r.argName === undefined ? "" : `=${r.argName}`;
    lines.push(`  ${short}--${r.long[r.long.length - 1] ?? r.id}${arg}`.padEnd(34) + r.help);
  }
  lines.push("", "Help options:", "  --help                          show this help message");
  lines.push("  --usage                         display brief usage message");
  return `${lines.join("\n")}\n`;
}

export const SINFO_USAGE =
  "Usage: sinfo [-adelNRrsTv] [-i seconds] [-t states] [-p partition] [-n nodes]\n" +
  "             [-S fields] [-o format] [-O Format] [--federation] [--local] [--json]\n";

export const SINFO_TRY = 'Try "sinfo --help" for more information\n';

export interface SinfoParams {
  all: boolean;
  dead: boolean;
  exact: boolean;
  noHeader: boolean;
  iterate: number;
  long: boolean;
  nodeFlag: boolean;
  responding: boolean;
  listReasons: boolean;
  summarize: boolean;
  reservation: boolean;
  json: boolean;
  /** --json=v0.0.4x: the data_parser shape (spurrestd's serializers); absent = 22.05's v0.0.38 text. */
  jsonVersion?: string;
  verbose: number;
  /** The -o/-O text as given, or the built-in format chosen. */
  format: string;
  longForm: boolean;
  /** The format is built in: `%#X` widths come from the data. */
  builtIn: boolean;
  nodes?: string[];
  nodesText?: string;
  partitions?: string[];
  sort?: string;
  states?: StateSel[] | "all";
  statesText?: string;
}

export type SinfoOutcome = { ok: true; params: SinfoParams } | { ok: false; exit: { stdout: string; stderr: string; exitCode: number } };

const fail = (stderr: string): SinfoOutcome => ({ ok: false, exit: { stdout: "", stderr, exitCode: 1 } });
const done = (stdout: string): SinfoOutcome => ({ ok: false, exit: { stdout, stderr: "", exitCode: 0 } });
const list = (text: string): string[] => text.split(",").filter((s) => s !== "");

interface Flags {
  aSet: boolean;
  pSet: boolean;
  format?: string;
}

type Apply = (p: SinfoParams, value: string, flags: Flags) => string | undefined;

const APPLY: Readonly<Record<string, Apply>> = {
  all: (p, _v, f) => {
    f.aSet = true;
    delete p.partitions;
    p.all = true;
    return undefined;
  },
  dead: (p) => void (p.dead = true),
  exact: (p) => void (p.exact = true),
  noheader: (p) => void (p.noHeader = true),
  iterate: (p, v) => {
    p.iterate = Number.parseInt(v, 10) || 0;
    return p.iterate > 0 ? undefined : `sinfo: error: Error: invalid entry for --iterate=${v}\n`;
  },
  json: (p, v) => {
    p.json = true;
    if (v !== "") p.jsonVersion = v;
    return undefined;
  },
  long: (p) => void (p.long = true),
  nodes: (p, v) => {
    const names = expandHostlist(v);
    if (!names.ok) return `sinfo: error: '${v}' invalid entry for --nodes\n`;
    p.nodes = names.value;
    p.nodesText = v;
    return undefined;
  },
  Node: (p) => void (p.nodeFlag = true),
  format: (_p, v, f) => void (f.format = v),
  Format: (p, v, f) => {
    f.format = v;
    p.longForm = true;
  },
  partition: (p, v, f) => {
    f.pSet = true;
    p.partitions = list(v);
    p.all = true;
  },
  responding: (p) => void (p.responding = true),
  "list-reasons": (p) => void (p.listReasons = true),
  summarize: (p) => void (p.summarize = true),
  sort: (p, v) => void (p.sort = v),
  states: (p, v) => {
    const states = parseNodeStates(v);
    if (typeof states === "object" && "error" in states) return states.error;
    p.states = states;
    p.statesText = v;
    return undefined;
  },
  reservation: (p) => void (p.reservation = true),
  verbose: (p) => void p.verbose++,
};

function builtInFormat(p: SinfoParams, env: Record<string, string | undefined>): [string, boolean] {
  if (p.summarize) return ["%#P %.5a %.10l %.16F %N", true];
  if (p.nodeFlag) {
    return [p.long ? "%#N %.6D %.#P %.11T %4c %.8z %.6m %.8d %.6w %.8f %20E" : "%#N %.6D %.#P %6t", true];
  }
  if (p.listReasons) return [p.long ? "%20E %12U %19H %6t %N" : "%20E %9u %19H %N", false];
  if (env.SINFO_FORMAT !== undefined) return [env.SINFO_FORMAT, false];
  // -l: the 26.x format with the RESERVATION column (22.05 had no %i).
  return [p.long ? "%#P %.5a %.10l %.10s %.4r %.8h %.10g %.6D %.11T %.11i %N" : "%#P %.5a %.10l %.6D %.6t %N", true];
}

/** Fold argv and SINFO_* into params, or the early exit (help, version, errors). */
export function parseSinfoArgs(argv: readonly string[], env: Record<string, string | undefined>, versionLine: string): SinfoOutcome {
  const p: SinfoParams = {
    all: false, dead: false, exact: false, noHeader: false, iterate: 0, long: false, nodeFlag: false,
    responding: false, listReasons: false, summarize: false, reservation: false, json: false, verbose: 0,
    format: "", longForm: false, builtIn: false,
  };
  if (env.SINFO_ALL !== undefined) p.all = true;
  if (env.SINFO_PARTITION !== undefined) {
    p.partitions = list(env.SINFO_PARTITION);
    if (p.all) {
      return fail("sinfo: error: Conflicting options, SINFO_ALL and SINFO_PARTITION, specified. Please choose one or the other.\n");
    }
    p.all = true;
  }
  if (env.SINFO_SORT !== undefined) p.sort = env.SINFO_SORT;
  const parsed = getoptLong("sinfo", argv, SINFO_OPTIONS);
  const flags: Flags = { aSet: false, pSet: false };
  for (const opt of parsed.options) {
    if (opt.id === "help") return done(sinfoHelp());
    if (opt.id === "usage") return done(SINFO_USAGE);
    if (opt.id === "helpstate") return done(helpStateText());
    if (opt.id === "version") return done(`${versionLine}\n`);
    const error = APPLY[opt.id]?.(p, opt.value ?? "", flags);
    if (error !== undefined) return fail(error);
  }
  if (parsed.error !== undefined) return fail(`${parsed.error}\n${SINFO_TRY}`);
  if (flags.aSet && flags.pSet) return fail("sinfo: error: Conflicting options, -a and -p, specified. Please choose one or the other.\n");
  if (flags.format !== undefined) p.format = flags.format;
  else [p.format, p.builtIn] = builtInFormat(p, env);
  if (p.listReasons && p.states === undefined) {
    p.states = parseNodeStates("down,fail,drain") as StateSel[];
    p.statesText = "down,fail,drain";
  }
  return { ok: true, params: p };
}
