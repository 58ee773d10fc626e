/**
 * @module cli/sreport
 * `sreport [-t fmt] [-p|-P] [-n] [-M cluster] [--tres=LIST] REPORT [conditions]`: cluster
 * Utilization, AccountUtilizationByUser, UserUtilizationByAccount; user TopUsage; job
 * SizesByAccount, SizesByAccountAndWckey; reservation Utilization. Built from the controller's
 * job records, nodes, account tree and reservations (compat/format/sreport*.ts do the
 * arithmetic and layout). Options may come before or after the report words, as sreport's
 * getopt permutes them. An unknown report answers as sreport does; an unknown condition is
 * reported and the report printed, with status 1.
 */
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseTimeFormat, type Style, type TimeFormat } from "../compat/format/sreport.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";
import { reportKind, runReport } from "./sreport-run.ts";

const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });

export interface Parsed {
  words: string[];
  /** --tres= as typed ("" when not given). */
  tres: string;
  /** -M/--cluster: the clusters asked for (empty: the local one). */
  clusters: string[];
  style: Style;
  stderr: string;
  version: boolean;
}

/** Options anywhere on the line; everything else is the command and its conditions. */
export function parseOptions(argv: readonly string[]): Parsed {
  const style: Style = { parsable: "none", header: true, format: "mins" };
  const words: string[] = [];
  const clusters: string[] = [];
  let stderr = "";
  let version = false;
  let tres = "";
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
    else if (arg === "-T" || arg === "--tres") tres = argv[++i] ?? "";
    else if (arg.startsWith("--tres=")) tres = arg.slice("--tres=".length);
    else if (arg.startsWith("-T")) tres = arg.slice(2);
    else words.push(arg);
  }
  return { words, tres, clusters, style, stderr, version };
}

/** Run sreport with `argv` (without the program name). */
export async function sreportMain(argv: string[], port: CliPort): Promise<CliResult> {
  const p = parseOptions(argv);
  if (p.version) return done(`${SLURM_VERSION_LINE}\n`);
  const [noun, report, ...rest] = p.words;
  const kind = reportKind(noun, report);
  if (typeof kind !== "string") return done("", `${p.stderr}${kind.error}`, 1);
  try {
    return await runReport(kind, rest, { tres: p.tres, clusters: p.clusters, style: p.style, stderr: p.stderr }, port);
  } catch (e) {
    const message = e instanceof RpcError || e instanceof Error ? e.message : String(e);
    return done("", `${p.stderr}sreport: error: Problem talking to the database: ${message}\n`, 1);
  }
}
