/**
 * @module compat/options/het-components
 * Heterogeneous jobs on the submit side: the command line split at ":" into one option list
 * per component, and sbatch's per-component requests. Component i is built from what
 * component i-1 had (only the options Slurm carries over; resource and placement options
 * start afresh, Slurm's `reset_each_pass`), then its own #SBATCH block (`#SBATCH hetjob` /
 * `packjob` separate the blocks), then the input variables, then its own command-line part.
 */
import { ok, type Result } from "../../lib/result.ts";
import { buildSpec, type BatchScript, type Built, type SubmitContext } from "./build-spec.ts";
import { envAssignments, fromParsed, type Assignment } from "./env-input.ts";
import { parseArgs, type ParsedArgs, type ParsedOption } from "./parse-args.ts";
import type { Command } from "./table.ts";

/** The separator between components on the command line. */
export const HET_SEPARATOR = ":";

/** The most components one job may have (bounds the loop; Slurm has no lower limit of its own). */
export const HET_COMPONENTS_MAX = 128;

/**
 * Options that carry over from one component to the next (heterogeneous_jobs.html's list, as
 * far as Spur has them, checked on the 22.05 oracle: -J -A -t --time-min --comment --mem -x
 * --nice --begin -d --requeue -o -q carry over; -p -N -n -c --ntasks-per-node --gres --gpus
 * --mem-per-cpu --exclusive -w --mincpus do not); every other option is reset for each component.
 */
export const PROPAGATED_OPTIONS: ReadonlySet<string> = new Set([
  "account", "acctg-freq", "begin", "clusters", "cluster", "comment", "deadline", "delay-boot", "mem",
  "dependency", "error", "export", "export-file", "exclude", "get-user-env", "gid", "hold", "ignore-pbs", "immediate",
  "input", "job-name", "kill-on-invalid-dep", "mail-type", "mail-user", "mcs-label", "no-requeue", "nice", "no-kill",
  "open-mode", "output", "parsable", "priority", "profile", "propagate", "qos", "quiet", "reboot", "reservation",
  "requeue", "signal", "time", "test-only", "time-min", "uid", "verbose", "wait", "wait-all-nodes", "wckey", "chdir",
]);

export interface SplitArgs {
  /** One option list per component, in order (at least one). */
  components: ParsedOption[][];
  /** The operands after the last component (script and its arguments, or the command). */
  operands: string[];
}

/** getopt per component: a lone ":" operand ends one component and starts the next. */
export function splitComponents(cmd: Command, argv: readonly string[]): Result<SplitArgs> {
  const components: ParsedOption[][] = [];
  let rest = argv;
  for (;;) {
    const parsed: Result<ParsedArgs> = parseArgs(cmd, rest);
    if (!parsed.ok) return parsed;
    components.push(parsed.value.options);
    if (parsed.value.operands[0] !== HET_SEPARATOR || components.length >= HET_COMPONENTS_MAX) {
      return ok({ components, operands: parsed.value.operands });
    }
    rest = parsed.value.operands.slice(1);
  }
}

/** The assignments of `previous` that carry over into the next component (placed first: lowest precedence). */
export function carriedOver(previous: readonly Assignment[]): Assignment[] {
  return previous.filter((a) => PROPAGATED_OPTIONS.has(a.name)).map((a) => ({ ...a, source: "script" as const }));
}

/**
 * One request per component. `scriptBlocks[i]` are component i's #SBATCH options, `cli[i]`
 * its command-line options (a command line without ":" is every component's); the job has as
 * many components as the longer of the two lists.
 */
export function componentRequests(
  ctx: SubmitContext,
  scriptBlocks: readonly (readonly ParsedOption[])[],
  cli: readonly (readonly ParsedOption[])[],
  script: BatchScript | undefined,
  command: readonly string[] = [],
): Result<Built[]> {
  const count = Math.max(1, scriptBlocks.length, cli.length);
  const env = envAssignments(ctx.cmd, ctx.env);
  const built: Built[] = [];
  let previous: Assignment[] = [];
  for (let i = 0; i < count; i++) {
    // a command line without ":" applies to every component of the script (oracle: `sbatch -c 2 -p gpu het.sh`)
    const line = cli.length === 1 ? cli[0] : cli[i];
    const own = [...fromParsed(scriptBlocks[i] ?? [], "script"), ...env, ...fromParsed(line ?? [], "cli")];
    const assignments = [...carriedOver(previous), ...own];
    const one = buildSpec(ctx, assignments, script, command);
    if (!one.ok) return one;
    built.push(one.value);
    previous = assignments;
  }
  return ok(built);
}
