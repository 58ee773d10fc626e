/**
 * @module compat/options/sbatch-flow
 * The pure steps of sbatch between "argv parsed" and "request sent", and the texts it
 * prints afterwards: help/usage/version, the job request from script + environment +
 * command line, "Submitted batch job N", the --test-only line, and --wait's exit status.
 */
import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";
import type { SubmitResponse } from "../../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import { ok, type Result } from "../../lib/result.ts";
import { formatIsoTime } from "../format-time.ts";
import { buildSpec, cliFirstPass, type BatchScript, type Built, type SubmitContext } from "./build-spec.ts";
import type { CmdSettings } from "./build-state.ts";
import { envAssignments, fromParsed } from "./env-input.ts";
import { helpText, usageText, versionText } from "./help.ts";
import type { ParsedOption } from "./parse-args.ts";
import { checkScript, parseDirectiveBlocks, parseDirectives, scanDirectives } from "./script-directives.ts";
import { componentRequests } from "./het-components.ts";
import { definedOptions } from "./defined-options.ts";
import type { Command } from "./table.ts";

/** stdout text of --help/--usage/--version when one was given (the first one wins). */
export function earlyAction(cmd: Command, options: readonly ParsedOption[]): string | undefined {
  for (const o of options) {
    if (o.def.name === "help") return helpText(cmd);
    if (o.def.name === "usage") return usageText(cmd);
    if (o.def.name === "version") return versionText();
  }
  return undefined;
}

/**
 * The refusal of an option before --help/--usage/--version on the command line: sbatch reads its
 * options in order and acts on those when it reaches them, so a bad value before one is reported
 * instead (oracle 22.05: `--ntasks-per-socket=2x --usage` and `--mem=abc --help` are refused, exit 1
 * and 255; `--usage --ntasks-per-socket=2x` prints the usage; differential seed 10302).
 */
export function refusedBeforeEarly(ctx: SubmitContext, options: readonly ParsedOption[]): Result<void> {
  const at = options.findIndex((o) => EARLY.has(o.def.name));
  return at <= 0 ? ok(undefined) : cliFirstPass(ctx, fromParsed(options.slice(0, at), "cli"));
}

const EARLY = new Set(["help", "usage", "version"]);

/** The value of the last occurrence of an option on the command line. */
export const lastValue = (options: readonly ParsedOption[], name: string): string | undefined =>
  options.filter((o) => o.def.name === name).pop()?.value;

/**
 * Script checks, then #SBATCH lines, input variables and the command line (in that order
 * of precedence, lowest first) folded into the job request.
 */
export function sbatchRequest(ctx: SubmitContext, cli: readonly ParsedOption[], script: BatchScript): Result<Built> {
  const checked = checkScript(script.text);
  if (!checked.ok) return checked;
  const directives = scanDirectives(script.text);
  const fromScript = parseDirectives(directives);
  if (!fromScript.ok) return fromScript;
  const assignments = [
    ...fromParsed(fromScript.value, "script"),
    ...envAssignments("sbatch", ctx.env),
    ...fromParsed(cli, "cli"),
  ];
  const built = buildSpec(ctx, assignments, script);
  if (!built.ok) return built;
  const defined = definedOptions("sbatch", assignments, { cwd: ctx.invoker.cwd, now: ctx.now, verbose: built.value.settings.verbose });
  if (defined.length > 0) built.value.defined = defined;
  if (directives.pbs && !built.value.settings.ignorePbs) {
    built.value.warnings.unshift("#PBS directives are not supported by Spur and were ignored");
  }
  return ok(built.value);
}

/**
 * sbatch's requests, one per heterogeneous job component (one for an ordinary job): the
 * script's `#SBATCH hetjob` blocks and the command line's ":"-separated parts pair up by index.
 */
export function sbatchRequests(ctx: SubmitContext, cli: readonly (readonly ParsedOption[])[], script: BatchScript): Result<Built[]> {
  const checked = checkScript(script.text);
  if (!checked.ok) return checked;
  const directives = scanDirectives(script.text);
  if (!directives.hetjob && cli.length <= 1) {
    const one = sbatchRequest(ctx, cli[0] ?? [], script);
    return one.ok ? ok([one.value]) : one;
  }
  const blocks = parseDirectiveBlocks(directives);
  if (!blocks.ok) return blocks;
  const built = componentRequests(ctx, blocks.value, cli, script);
  if (!built.ok) return built;
  const first = built.value[0];
  if (first !== undefined && directives.pbs && !first.settings.ignorePbs) {
    first.warnings.unshift("#PBS directives are not supported by Spur and were ignored");
  }
  return built;
}

const firstCluster = (settings: CmdSettings): string | undefined => settings.clusters?.split(",")[0];

/**
 * stdout after a successful submission: -Q prints nothing, --parsable included (oracle 22.05:
 * `sbatch -Q --parsable` prints no id; Slurm's sbatch tests quiet first). With -M, the cluster's
 * own name (`clusterName`, from the controller) rather than the name as typed (oracle: -M ORACLE
 * prints "on cluster oracle").
 */
export function submittedText(jobId: number, settings: CmdSettings, clusterName = ""): string {
  const typed = firstCluster(settings);
  const cluster = typed === undefined ? undefined : clusterName || typed;
  if (settings.quiet) return "";
  if (settings.parsable) return cluster === undefined ? `${jobId}\n` : `${jobId};${cluster}\n`;
  return cluster === undefined ? `Submitted batch job ${jobId}\n` : `Submitted batch job ${jobId} on cluster ${cluster}\n`;
}

/** stderr line of --test-only (golden 037). */
export function testOnlyText(cmd: Command, resp: Plain<SubmitResponse>): string {
  const when = formatIsoTime(resp.startEstimate);
  // a heterogeneous job: every component's CPUs, the union of their nodes, no partition (oracle, 22.05)
  if ((resp.hetComponents ?? 0) > 1) return `${cmd}: Job ${resp.jobId} to start at ${when} using ${resp.cpus} processors on ${resp.nodelist}\n`;
  return `${cmd}: Job ${resp.jobId} to start at ${when} using ${resp.cpus} processors on nodes ${resp.nodelist} in partition ${resp.partition}\n`;
}

const FINISHED = new Set(["COMPLETED", "CANCELLED", "FAILED", "TIMEOUT", "NODE_FAIL", "PREEMPTED",
  "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY"]);

export const isFinished = (job: Plain<JobInfo>): boolean => FINISHED.has(job.state);

/** sbatch --wait's status: the exit code; a job ended by a signal counts as 1; largest over records. */
export function waitExitCode(jobs: readonly Plain<JobInfo>[]): number {
  return jobs.reduce((max, j) => Math.max(max, j.exitSignal > 0 ? 1 : j.exitCode), 0);
}
