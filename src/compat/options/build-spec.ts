/**
 * @module compat/options/build-spec
 * Merged option assignments (script, then environment, then command line) → the job
 * request Plain<JobSpec> plus the command's settings and warnings. Unsupported options warn
 * or fail here, per the table's `spur` column; nothing is dropped silently.
 */
import type { JobSpec } from "../../net/gen/spur/v1/types_pb.ts";
import { assert } from "../../lib/assert.ts";
import type { Plain } from "../../lib/plain.ts";
import { err, ok, type Result, type SpurError } from "../../lib/result.ts";
import { EMPTY_KEPT, noteGiven } from "../given-empty.ts";
import { HANDLERS, settleHint } from "./apply-option.ts";
import { absolutePath, emptySettings, emptySpec, type BuildState, type CmdSettings } from "./build-state.ts";
import type { Assignment, Source } from "./env-input.ts";
import { exportEnvironment } from "./export-env.ts";
import { checkSpecPair, settleExtraNodeTasks } from "./apply-node-info.ts";
import { checkGpuOptions, tasksPerSocketFromGpus } from "./gpu-option-checks.ts";
import { IGNORED_OPTION_CHECKS } from "./ignored-checks.ts";
import { asTestOnly, EMPTY_PARTITION, FATAL, isControllerRejection } from "./messages.ts";
import { GRES_MESSAGE } from "./spec-syntax.ts";
import { nodeListCountError, normaliseAsk } from "../job-layout.ts";
import { compressHostlist, expandHostlist, uniqHostnames } from "../hostlist.ts";
import { isArbitrary } from "../task-layout.ts";
import type { Command } from "./table.ts";

/** Who submits, from where (a subset of the CLI's Invoker). */
export interface SubmitInvoker {
  cwd: string;
  hostname: string;
  /** The submitting process's umask: the job's SLURM_UMASK unless SLURM_UMASK is set. */
  umask?: number;
}

export interface SubmitContext {
  cmd: Command;
  /** Arguments after the program name, as typed (SubmitLine). */
  argv: readonly string[];
  /** The invoker's environment (exported to the job per --export). */
  env: Readonly<Record<string, string | undefined>>;
  invoker: SubmitInvoker;
  /** Epoch seconds. */
  now: number;
}

/** The batch script of an sbatch job. */
export interface BatchScript {
  text: string;
  from: "file" | "stdin" | "wrap";
  /** The path as given on the command line (from = "file"). */
  path?: string;
  /** Command= for a file, when the shell resolved it (compat/options/script-command.ts); else the absolute path. */
  command?: string;
  /** Script arguments ($1 ...). */
  args: readonly string[];
}

export interface Built {
  spec: Plain<JobSpec>;
  settings: CmdSettings;
  warnings: string[];
  /** sbatch -v's "defined options" lines (defined-options.ts), printed after the warnings; absent without -v. */
  defined?: string[];
}

const SOURCE_ORDER: Record<Source, number> = { script: 0, env: 1, cli: 2 };

/** Options in precedence order: a later assignment overrides an earlier one. */
export function byPrecedence(assignments: readonly Assignment[]): Assignment[] {
  return assignments
    .map((a, i) => ({ a, i }))
    .sort((x, y) => SOURCE_ORDER[x.a.source] - SOURCE_ORDER[y.a.source] || x.i - y.i)
    .map((x) => x.a);
}

function applyOne(st: BuildState, a: Assignment): Result<void> {
  const what = a.source === "env" && a.name !== "" ? `${a.origin} (--${a.name})` : a.origin;
  if (a.support === "ignore") return ok(undefined);
  if (a.support === "error") return err("Unsupported", `${what} is not supported by Spur`);
  if (a.support === "warn") {
    const check = a.value === undefined ? undefined : IGNORED_OPTION_CHECKS[a.name];
    const checked = check?.(a.value as string);
    if (checked !== undefined && !checked.ok) return checked;
    const text = `${what} is not supported by Spur and was ignored`;
    if (!st.warnings.includes(text)) st.warnings.push(text);
    return ok(undefined);
  }
  const handler = HANDLERS[a.name];
  assert(handler !== undefined, `no handler for supported option ${a.name}`);
  const done = handler(st, a);
  if (done.ok && EMPTY_KEPT.has(a.name)) {
    const given = noteGiven(st.spec.givenEmpty, a.name, a.value === "" && !a.reset);
    if (given === undefined) delete st.spec.givenEmpty;
    else st.spec.givenEmpty = given;
  }
  return done;
}

const freshState = (ctx: SubmitContext): BuildState => ({
  cmd: ctx.cmd, spec: emptySpec(), settings: emptySettings(), warnings: [], memBy: [],
  now: ctx.now, cwd: ctx.invoker.cwd,
});

/** The command line's options alone, applied to a scratch request: only their own errors count. */
export function cliFirstPass(ctx: SubmitContext, assignments: readonly Assignment[]): Result<void> {
  const scratch = freshState(ctx);
  for (const a of assignments) {
    if (a.source !== "cli") continue;
    const r = applyOne(scratch, a);
    if (!r.ok && !isControllerRejection(r.error)) return r;
  }
  return ok(undefined);
}

/** Slurm: at most one of the memory options on the command line; otherwise the last one set wins. */
function settleMemory(st: BuildState): Result<void> {
  const fromCli = new Set(st.memBy.filter((m) => m.source === "cli").map((m) => m.name));
  if (fromCli.size > 1) return err("MemConflict", "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive.");
  const last = st.memBy[st.memBy.length - 1];
  if (last === undefined) return ok(undefined);
  if (last.name !== "mem") st.spec.memPerNodeMib = undefined;
  if (last.name !== "mem-per-cpu") st.spec.memPerCpuMib = undefined;
  if (last.name !== "mem-per-gpu") st.spec.memPerGpuMib = undefined;
  return ok(undefined);
}

const basename = (path: string): string => path.replace(/\/+$/, "").split("/").pop() ?? path;

function defaultName(ctx: SubmitContext, script: BatchScript | undefined, command: readonly string[], noShell: boolean): string {
  if (script !== undefined) {
    if (script.from === "wrap") return "wrap";
    return script.from === "file" && script.path !== undefined ? basename(script.path) : "sbatch";
  }
  const first = command[0];
  // salloc's allocation is "interactive" even when it runs a command (x-env-salloc), "no-shell" with --no-shell (oracle)
  if (ctx.cmd === "salloc") return noShell ? "no-shell" : "interactive";
  return first === undefined ? ctx.cmd : basename(first);
}

function jobEnvironment(st: BuildState, ctx: SubmitContext): Record<string, string> {
  const { env, getUserEnv } = exportEnvironment(st.exportValue, ctx.env);
  if (st.exportValue !== undefined && env.SLURM_EXPORT_ENV === undefined) env.SLURM_EXPORT_ENV = st.exportValue;
  if (getUserEnv || st.getUserEnv === true) env.SLURM_GET_USER_ENV = "1";
  env.SLURM_SUBMIT_DIR = ctx.invoker.cwd;
  env.SLURM_SUBMIT_HOST = ctx.invoker.hostname;
  env.SLURM_PRIO_PROCESS = "0";
  return { ...env, ...(st.optionEnv ?? {}), ...(st.containerEnv ?? {}) };
}

function finish(st: BuildState, ctx: SubmitContext, script: BatchScript | undefined, command: readonly string[]): void {
  const spec = st.spec;
  // sbatch -J "" keeps the empty name (oracle: JobName= and squeue NAME empty; differential seed 104)
  if (spec.name === "" && !(st.nameGiven === true && ctx.cmd === "sbatch")) spec.name = defaultName(ctx, script, command, st.settings.noShell);
  spec.workDir = st.chdir ?? ctx.invoker.cwd;
  spec.export = st.exportValue ?? "";
  spec.env = jobEnvironment(st, ctx);
  spec.submitLine = [ctx.cmd, ...ctx.argv].join(" ");
  spec.submitHost = ctx.invoker.hostname;
  if (st.umaskSet !== true && ctx.invoker.umask !== undefined) spec.umask = ctx.invoker.umask;
  if (script !== undefined) {
    spec.script = script.text;
    spec.argv = [...script.args];
    spec.command = script.from === "file" && script.path !== undefined ? script.command ?? absolutePath(ctx.invoker.cwd, script.path) : "";
  } else {
    spec.argv = [...command];
    spec.command = command.join(" ");
    spec.interactive = true;
  }
}

/**
 * sbatch/srun/salloc lower a node count above an explicit task count with Slurm's warning
 * (also when srun read it from SLURM_JOB_NUM_NODES inside an allocation: `srun -n1` in a
 * two-node job warns on the oracle) and cap a range at the task count (compat/job-layout.ts).
 */
function settleNodeCount(st: BuildState): void {
  const spec = st.spec;
  if (spec.nodesMin === 0 && spec.nodesMax === 0) return;
  const { shape, warning } = normaliseAsk({
    nodesMin: spec.nodesMin, nodesMax: spec.nodesMax, ntasks: spec.ntasks, cpusPerTask: spec.cpusPerTask,
    ntasksPerNode: spec.ntasksPerNode, overcommit: spec.overcommit, exclusive: spec.exclusive,
  });
  if (warning !== "") st.warnings.push(`Warning: ${warning}`);
  spec.nodesMin = shape.nodesMin;
  spec.nodesMax = shape.nodesMax;
}

/**
 * -w naming more nodes than -N's maximum (the oracle: `-N1 -w n[1-2]`): sbatch and salloc refuse
 * ("invalid number of nodes (-N 2-1)"); srun says so and keeps the first nodes of the list.
 */
function checkNodeList(st: BuildState): Result<void> {
  const spec = st.spec;
  if (spec.nodelist === "" || (spec.nodesMin === 0 && spec.nodesMax === 0)) return ok(undefined);
  const hosts = expandHostlist(spec.nodelist);
  if (!hosts.ok) return ok(undefined);
  const distinct = [...new Set(hosts.value)];
  const refusal = nodeListCountError(spec.nodesMin, spec.nodesMax, distinct.length);
  if (refusal === "") return ok(undefined);
  if (st.cmd !== "srun") return err("NodeCount", refusal, 1);
  if (isArbitrary(spec.distribution)) return ok(undefined);
  const max = spec.nodesMax > 0 ? spec.nodesMax : spec.nodesMin;
  st.warnings.push(`error: Required nodelist includes more nodes than permitted by max-node count (${distinct.length} > ${max}). Eliminating nodes from the nodelist.`);
  spec.nodelist = compressHostlist(distinct.slice(0, max));
  return ok(undefined);
}

/** The GPU count of a "[type:]N" request (undefined when it names none). */
const gpuCount = (text: string): number | undefined => {
  const n = /(?:^|:)([0-9]+)$/.exec(text)?.[1];
  return n === undefined ? undefined : Number(n);
};

/**
 * The option --ntasks-per-gpu may not be given with ("" when none): sbatch, salloc and srun end with a
 * fatal error (oracle 22.05: --gpus-per-task named before --ntasks-per-node when both are there, before
 * --hint's check; differential seed 10403).
 */
export function tasksPerGpuConflict(spec: { ntasksPerGpu: number; gpusPerTask: string; ntasksPerNode: number }): string {
  if (spec.ntasksPerGpu <= 0) return "";
  if (spec.gpusPerTask !== "") return "--gpus-per-task";
  return spec.ntasksPerNode > 0 ? "--ntasks-per-node" : "";
}

/** The checks of the whole request, once every option is read. */
function lateChecks(st: BuildState, cmd: Command): Result<void> {
  // oracle 22.05: -v with -Q, in either order, SBATCH_DEBUG too, is refused, exit 1
  if (cmd === "sbatch" && st.settings.verbose > 0 && st.settings.quiet) return err("VerboseQuiet", "don't specify both --verbose (-v) and --quiet (-Q)", 1);
  const perGpu = tasksPerGpuConflict(st.spec);
  if (perGpu !== "") return err(FATAL, `${perGpu} is mutually exclusive with --ntasks-per-gpu and SLURM_NTASKS_PER_GPU`, 1);
  const hinted = settleHint(st);
  if (!hinted.ok) return hinted;
  // Slurm checks this on the allocation request, after every source of options is read, unless
  // the count is 0 (oracle: --gpus-per-socket=0 alone is submitted; differential seed 13415);
  // then the GRES error, as the other GPU checks (oracle: differential seed 40)
  if (st.spec.gpusPerSocket && gpuCount(st.spec.gpusPerSocket) !== 0 && !st.spec.socketsPerNode) return err("GpusPerSocket", `--gpus-per-socket option requires --sockets-per-node specification\n${GRES_MESSAGE}`, 1);
  // -B's task count is the job's before the GPU checks count tasks (oracle 22.05: --gpus-per-task=1 -B 1:4 is
  // submitted with NumTasks=4, gres/gpu=4; differential seed 10699)
  settleExtraNodeTasks(st);
  // seen on the oracle for sbatch (a batch job's request); srun may take its tasks from an allocation
  if (cmd === "sbatch") {
    const gpu = checkGpuOptions(st.spec);
    if (!gpu.ok) return gpu;
    const perSocket = tasksPerSocketFromGpus(st.spec);
    if (perSocket !== undefined) st.spec.ntasksPerSocket = perSocket;
  }
  if (cmd === "sbatch") settleListedNodeTasks(st);
  settleNodeCount(st);
  return checkNodeList(st);
}

/**
 * sbatch -w naming more nodes than -n's tasks, without -N (oracle 22.05): Slurm's warning, the node
 * count set to the task count (NumNodes=2-2) and the list cut to its first nodes in hostlist order
 * (`-w n3,n1,n2 -n2` is ReqNodeList=n[1-2]).
 */
function settleListedNodeTasks(st: BuildState): void {
  const spec = st.spec;
  if (spec.nodelist === "" || spec.nodesMin > 0 || spec.nodesMax > 0 || spec.ntasks <= 0) return;
  const listed = expandHostlist(spec.nodelist);
  if (!listed.ok) return;
  const sorted = uniqHostnames(listed.value);
  if (spec.ntasks >= sorted.length) return;
  st.warnings.push(`Warning: can't run ${spec.ntasks} processes on ${sorted.length} nodes, setting nnodes to ${spec.ntasks}`);
  spec.nodesMin = spec.ntasks;
  spec.nodesMax = spec.ntasks;
  spec.nodelist = compressHostlist(sorted.slice(0, spec.ntasks));
}

/**
 * Fold the assignments (any order: they are sorted by precedence here) into a job request.
 * `script` is given for sbatch, `command` for srun/salloc.
 */
export function buildSpec(
  ctx: SubmitContext,
  assignments: readonly Assignment[],
  script?: BatchScript,
  command: readonly string[] = [],
): Result<Built> {
  const st = freshState(ctx);
  const testOnly = assignments.some((a) => a.name === "test-only" && !a.reset);
  const refused = (e: SpurError): Result<Built> => ({ ok: false, error: testOnly ? asTestOnly(e) : e });
  // sbatch reads its command line once before the script (oracle: --mem=bogus is reported before
  // an #SBATCH --time=bogus or SBATCH_TIMELIMIT=bogus; salloc and srun report the variable first)
  if (ctx.cmd === "sbatch") {
    const first = cliFirstPass(ctx, assignments);
    if (!first.ok) return refused(first.error);
  }
  // a check that stands for the controller's answer waits for the client's own checks (oracle 22.05:
  // --array=abc --mem-bind=bogus names --mem-bind, exit 255; differential seed 13339)
  let controllerAnswer: SpurError | undefined;
  for (const a of byPrecedence(assignments)) {
    const r = applyOne(st, a);
    if (r.ok) continue;
    if (!isControllerRejection(r.error)) return refused(r.error);
    controllerAnswer ??= r.error;
  }
  const specPair = checkSpecPair(assignments);
  if (!specPair.ok) return specPair;
  const mem = settleMemory(st);
  if (!mem.ok) return mem;
  // Slurm has printed its lines about the options read (the AllowSpecResourcesUsage errors) by the
  // time these checks refuse: they stay (oracle: --hint=bogus -S 4 prints both; differential seed 12488)
  const late = lateChecks(st, ctx.cmd);
  if (!late.ok) return { ok: false, error: { ...late.error, warningsBefore: [...st.warnings] } };
  // -p "" (oracle: "invalid partition specified: (null)", then the controller's reason; differential seed 93),
  // after the client's checks as well (oracle: -p '' --hint=bogus names --hint)
  if (st.partitionGiven === true && st.spec.partition === "") {
    return refused({ code: EMPTY_PARTITION, message: "invalid partition specified: (null)\nInvalid partition name specified" });
  }
  if (controllerAnswer !== undefined) return refused(controllerAnswer);
  finish(st, ctx, script, command);
  assert(st.spec.workDir.startsWith("/"), "work dir is absolute");
  return ok({ spec: st.spec, settings: st.settings, warnings: st.warnings });
}
