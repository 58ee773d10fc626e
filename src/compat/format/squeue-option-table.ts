/**
 * @module format/squeue-option-table
 * squeue's options as data (Slurm 22.05's set; --helpformat did not exist
 * yet, golden 117): names, argument mode and help text. One table drives
 * getopt, --help and --usage.
 */
import type { OptionRow } from "./getopt.ts";

export interface SqueueOptionRow extends OptionRow {
  help: string;
  /** Shown in --help as "-x, --name=<help arg>". */
  argName?: string;
}

const row = (
  id: string,
  long: string[],
  short: string | undefined,
  arg: OptionRow["arg"],
  help: string,
  argName?: string,
): SqueueOptionRow => ({
  id, long, ...(short === undefined ? {} : { short }), arg, help, ...(argName === undefined ? {} : { argName }),
});

/** Every squeue option of Slurm 22.05 (--helpformat did not exist yet: golden 117). */
export const SQUEUE_OPTIONS: readonly SqueueOptionRow[] = [
  row("accounts", ["accounts"], "A", "required", "only jobs charged to these accounts", "account(s)"),
  row("accounts", [], "U", "required", ""),
  row("all", ["all"], "a", "none", "include jobs in hidden partitions"),
  row("array", ["array"], "r", "none", "one line per job array index"),
  row("array-unique", ["array-unique"], undefined, "none", "one line per unique pending array index"),
  row("Format", ["Format"], "O", "required", "field list (name[:[.]width[suffix]],...)", "fields"),
  row("format", ["format"], "o", "required", "format string (%[.][size]letter...)", "format"),
  row("federation", ["federation"], undefined, "none", "show jobs of the whole federation"),
  row("help", ["help"], undefined, "none", "print this help and exit"),
  row("hide", ["hide"], undefined, "none", "omit jobs in hidden partitions"),
  row("iterate", ["iterate"], "i", "required", "repeat every N seconds", "seconds"),
  row("jobs", ["jobs"], "j", "optional", "only these job ids (17, 17_2, ...)", "job(s)"),
  row("json", ["json"], undefined, "optional", "print the jobs as JSON (data_parser v0.0.45; =v0.0.42..44, or =v0.0.38 for 22.05's shape)", "data_parser"),
  row("local", ["local"], undefined, "none", "only jobs of the local cluster"),
  row("long", ["long"], "l", "none", "long report, with a date line"),
  row("licenses", ["licenses"], "L", "required", "only jobs using these licenses", "license(s)"),
  row("clusters", ["cluster", "clusters"], "M", "required", "cluster(s) to ask", "cluster(s)"),
  row("me", ["me"], undefined, "none", "only my jobs"),
  row("name", ["name"], "n", "required", "only jobs with these names", "name(s)"),
  row("noconvert", ["noconvert"], undefined, "none", "print sizes without unit conversion"),
  row("nodelist", ["node", "nodes", "nodelist"], "w", "required", "only jobs on these nodes", "hostlist"),
  row("noheader", ["noheader"], "h", "none", "no header line"),
  row("only-job-state", ["only-job-state"], undefined, "none", "only each job's id and state (Slurm 24.05+)"),
  row("partitions", ["partitions"], "p", "required", "only jobs in these partitions", "partition(s)"),
  row("priority", ["priority"], "P", "none", "one line per partition of multi-partition jobs"),
  row("qos", ["qos"], "q", "required", "only jobs with these QOS", "qos(s)"),
  row("reservation", ["reservation"], "R", "required", "only jobs in this reservation", "name"),
  row("sibling", ["sib", "sibling"], undefined, "none", "show federation sibling jobs"),
  row("sort", ["sort"], "S", "required", "sort keys, e.g. P,t,-p", "fields"),
  row("start", ["start"], undefined, "none", "expected start times of pending jobs"),
  row("steps", ["steps"], "s", "optional", "job steps instead of jobs", "step(s)"),
  row("states", ["states"], "t", "required", "only jobs in these states ('all' for every state)", "state(s)"),
  row("usage", ["usage"], undefined, "none", "print a short usage summary and exit"),
  row("users", ["user", "users"], "u", "required", "only jobs of these users", "user(s)"),
  row("verbose", ["verbose"], "v", "none", "print the options used"),
  row("version", ["version"], "V", "none", "print the version and exit"),
];

/** --help text, generated from the option table. */
export function squeueHelp(): string {
  const lines = ["Usage: squeue [OPTIONS]"];
  for (const r of SQUEUE_OPTIONS) {
    if (r.help === "") continue;
    const short = r.short === undefined ? "    " : `-${r.short}, `;
    const long = r.long[r.long.length - 1] ?? r.id;
    const arg = r.argName === undefined ? "" : r.arg === "optional" ? `[=${r.argName}]` : `=${r.argName}`;
    lines.push(`  ${short}--${long}${arg}`.padEnd(34) + r.help);
  }
  lines.push("", "Help options:", "  --help                          show this help message");
  lines.push("  --usage                         display a brief summary of squeue options");
  return `${lines.join("\n")}\n`;
}

/** --usage text. */
export const SQUEUE_USAGE =
  "Usage: squeue [-A account] [--clusters names] [-i seconds] [--job jobid]\n" +
  "              [-n name] [-o format] [-O fields] [-p partitions] [--qos qos]\n" +
  "              [--reservation reservation] [--sort fields] [--start]\n" +
  "              [--step step_id] [-t states] [-u user_name] [--usage]\n" +
  "              [-L licenses] [-w nodes] [--federation] [--local] [--sibling]\n" +
  "              [--json] [--me] [-ahjlrsv]\n";
