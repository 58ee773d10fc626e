/**
 * @module cli/seff
 * `seff [-h] [-v] [-d] JOBID`: the efficiency summary of one job from the controller's
 * accounting records (finished jobs included, with their steps), as Slurm's contributed seff
 * prints it (compat/format/seff.ts). Options as its getopts('hvdf:'): -v prints its version and
 * -h (or not exactly one job id) its usage, both with status 1; an unknown job prints
 * "Job not found." with status 2. -V/--version print the Slurm release line like every
 * Slurm-named command of Spur (seff itself has no -V).
 */
import type { Plain } from "../lib/plain.ts";
import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { SEFF_USAGE, SEFF_VERSION_LINE, seffDebugText, seffFigures, seffText } from "../compat/format/seff.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });

interface SeffArgs {
  flags: Set<string>;
  positionals: string[];
  warnings: string;
}

/** Perl's Getopt::Std over "hvdf:": bundled letters, -f takes a value; stops at the first operand. */
function parseArgs(argv: readonly string[]): SeffArgs {
  const flags = new Set<string>();
  let warnings = "";
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      i += 1;
      break;
    }
    if (arg === "-V" || arg === "--version") flags.add("V");
    else if (arg === "--help") flags.add("h");
    else if (!arg.startsWith("-") || arg === "-") break;
    else {
      for (let k = 1; k < arg.length; k++) {
        const letter = arg[k] ?? "";
        if (letter === "f") {
          if (k === arg.length - 1) i += 1; // its value is the next word
          break;
        }
        if ("hvd".includes(letter)) flags.add(letter);
        else warnings += `Unknown option: ${letter}\n`;
      }
    }
  }
  return { flags, positionals: argv.slice(i), warnings };
}

type Job = Plain<JobInfo>;

/** "17" or "17_3" (an array element); undefined when the text is not a job id. */
function parseJobId(text: string): { jobId: number; taskId?: number } | undefined {
  const m = /^([0-9]+)(?:_([0-9]+))?$/.exec(text);
  if (m === null) return undefined;
  return m[2] === undefined ? { jobId: Number(m[1]) } : { jobId: Number(m[1]), taskId: Number(m[2]) };
}

function pickJob(jobs: readonly Job[], want: { jobId: number; taskId?: number }): Job | undefined {
  if (want.taskId !== undefined) return jobs.find((j) => j.arrayJobId === want.jobId && j.arrayTaskId === want.taskId);
  return jobs.find((j) => j.jobId === want.jobId) ?? jobs.find((j) => j.arrayJobId === want.jobId);
}

/** Run seff with `argv` (without the program name). */
export async function seffMain(argv: string[], port: CliPort): Promise<CliResult> {
  const args = parseArgs(argv);
  if (args.flags.has("V")) return done(`${SLURM_VERSION_LINE}\n`);
  if (args.flags.has("v")) return done(SEFF_VERSION_LINE, args.warnings, 1);
  const only = args.positionals[0];
  if (args.flags.has("h") || args.positionals.length !== 1 || only === undefined) return done(SEFF_USAGE, args.warnings, 1);
  const want = parseJobId(only);
  if (want === undefined) return done("", `${args.warnings}Job not found.\n`, 2);
  let resp;
  try {
    resp = await port.ctl.listJobs({ includeFinished: true, includeSteps: true, jobIds: [want.jobId] });
  } catch (e) {
    const message = e instanceof RpcError || e instanceof Error ? e.message : String(e);
    return done("", `${args.warnings}seff: error: Problem talking to the database: ${message}\n`, 1);
  }
  const job = pickJob(resp.jobs, want);
  if (job === undefined) return done("", `${args.warnings}Job not found.\n`, 2);
  const figures = seffFigures(job, resp.clusterName, Math.floor(port.now()));
  const debug = args.flags.has("d") ? seffDebugText(figures) : "";
  return done(`${debug}${seffText(figures)}`, args.warnings);
}
