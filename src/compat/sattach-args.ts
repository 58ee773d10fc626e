/**
 * @module compat/sattach-args
 * sattach's command line, as Slurm 22.05's sattach reads it (oracle): options,
 * then exactly one JOB.STEP ("too many parameters" for none or several,
 * "Failed to parse stepid from command line options" for a word without a
 * step), each refusal with the usage line on stdout and exit 1; plus the
 * `--layout` text. Pure: the shell (roles/cli/sattach.ts) does the I/O.
 */
import { getoptLong, type OptionRow } from "./format/getopt.ts";

export interface SattachParams {
  jobId: number;
  stepId: number;
  label: boolean;
  layout: boolean;
  quiet: boolean;
  /** Only this task's stdout / stderr is shown; its stdin only this task gets (-1 = all). */
  outputFilter: number;
  errorFilter: number;
  inputFilter: number;
}

export type SattachArgs = { kind: "run"; params: SattachParams } | { kind: "exit"; stdout: string; stderr: string; exitCode: number };

const USAGE = "Usage: sattach [options] <jobid.stepid>\n";
const HELP = `${USAGE}  --error-filter=N     show only task N's stderr
  --input-filter=N     send stdin only to task N
  --output-filter=N    show only task N's stdout
  -l, --label          prefix each line with its task number
  --layout             print the step's task layout and exit
  --pty                (not supported by Spur)
  -Q, --quiet          quiet mode
  -v, --verbose        verbose mode
  -V, --version        print the version

Help options:
  -h, --help           show this help message
  -u, --usage          display brief usage message
`;

const OPTIONS: readonly OptionRow[] = [
  { id: "error-filter", long: ["error-filter"], arg: "required" },
  { id: "input-filter", long: ["input-filter"], arg: "required" },
  { id: "output-filter", long: ["output-filter"], arg: "required" },
  { id: "label", short: "l", long: ["label"], arg: "none" },
  { id: "layout", long: ["layout"], arg: "none" },
  { id: "pty", long: ["pty"], arg: "none" },
  { id: "quiet", short: "Q", long: ["quiet"], arg: "none" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", short: "h", long: ["help"], arg: "none" },
  { id: "usage", short: "u", long: ["usage"], arg: "none" },
];

/** sattach's arguments (without the program name); `version` is what -V prints. */
export function parseSattachArgs(argv: readonly string[], version: string): SattachArgs {
  const parsed = getoptLong("sattach", argv, OPTIONS);
  const p: SattachParams = { jobId: 0, stepId: 0, label: false, layout: false, quiet: false, outputFilter: -1, errorFilter: -1, inputFilter: -1 };
  const task = (v: string | undefined) => (/^\d+$/.test(v ?? "") ? Number(v) : -1);
  for (const o of parsed.options) {
    if (o.id === "version") return { kind: "exit", stdout: `${version}\n`, stderr: "", exitCode: 0 };
    if (o.id === "help") return { kind: "exit", stdout: HELP, stderr: "", exitCode: 0 };
    if (o.id === "usage") return { kind: "exit", stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "label") p.label = true;
    else if (o.id === "layout") p.layout = true;
    else if (o.id === "quiet") p.quiet = true;
    else if (o.id === "output-filter") p.outputFilter = task(o.value);
    else if (o.id === "error-filter") p.errorFilter = task(o.value);
    else if (o.id === "input-filter") p.inputFilter = task(o.value);
  }
  if (parsed.error !== undefined) return { kind: "exit", stdout: "", stderr: `${parsed.error}\nTry "sattach --help" for more information\n`, exitCode: 1 };
  const refuse = (why: string): SattachArgs => ({ kind: "exit", stdout: USAGE, stderr: `sattach: error: ${why}\n`, exitCode: 1 });
  if (parsed.positionals.length !== 1) return refuse("too many parameters");
  const m = /^(\d+)\.(\d+)$/.exec(parsed.positionals[0] ?? "");
  if (m === null) return refuse("Failed to parse stepid from command line options");
  return { kind: "run", params: { ...p, jobId: Number(m[1]), stepId: Number(m[2]) } };
}

/** `--layout`: the step's tasks per node, as sattach prints them (oracle: 3 tasks over n[1-2]). */
export function layoutText(nodelist: string, nodes: ReadonlyArray<{ name: string; taskIds: readonly number[] }>): string {
  const ntasks = nodes.reduce((n, x) => n + x.taskIds.length, 0);
  const lines = nodes.map((x, i) => `\tNode ${i} (${x.name}), ${x.taskIds.length} task(s): ${x.taskIds.map((t) => `${t} `).join("")}\n`);
  return `Job step layout:\n\t${ntasks} tasks, ${nodes.length} nodes (${nodelist})\n\n${lines.join("")}`;
}
