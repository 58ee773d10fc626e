/**
 * @module compat/options/interactive-args
 * srun and salloc front ends over the same table: argv + environment (SLURM_ and SRUN_ or
 * SALLOC_* inputs; command line wins) → the allocation request (JobSpec with interactive =
 * true, argv = the command) and the command's own settings (-l, --pty, --jobid, --no-shell ...).
 * The srun/salloc shells do the I/O; --help/--usage/--version come back as text to print.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { buildSpec, type Built, type SubmitInvoker } from "./build-spec.ts";
import { envAssignments, fromParsed } from "./env-input.ts";
import { componentRequests, splitComponents } from "./het-components.ts";
import { earlyAction } from "./sbatch-flow.ts";
import type { Command } from "./table.ts";

export interface InteractiveContext {
  invoker: SubmitInvoker;
  /** Epoch seconds (for --begin/--deadline). */
  now: number;
}

/** What to do: print a text and exit (help/usage/version), or run `command` under `spec`. */
export type Interactive =
  | { kind: "exit"; stdout: string; exitCode: number }
  | ({ kind: "run"; command: string[]; /** salloc A : B: the components after the first */ het?: Built["spec"][] } & Built);

type Env = Readonly<Record<string, string | undefined>>;

/** Without a context: the working directory and host name from the environment. */
const contextFromEnv = (env: Env): InteractiveContext => ({
  invoker: { cwd: env.PWD ?? "/", hostname: env.HOSTNAME ?? "localhost" },
  now: 0,
});

function parseInteractive(cmd: Command, argv: readonly string[], env: Env, ctx: InteractiveContext): Result<Interactive> {
  const split = splitComponents(cmd, argv);
  if (!split.ok) return split;
  const early = earlyAction(cmd, split.value.components.flat());
  if (early !== undefined) return ok({ kind: "exit", stdout: early, exitCode: 0 });
  const command = split.value.operands;
  const components = split.value.components;
  if (cmd === "srun" && components.length > 1) return err("Unsupported", "heterogeneous job steps (srun ... : ...) are not supported by Spur");
  if (cmd === "srun" && command.length === 0) return err("Fatal", "No command given to execute.");
  const submit = { cmd, argv, env, invoker: ctx.invoker, now: ctx.now };
  if (components.length > 1) {
    // salloc's heterogeneous allocation: one request per component, the first one's settings act on salloc
    const built = componentRequests(submit, [], components, undefined, command);
    if (!built.ok) return built;
    const [first, ...rest] = built.value;
    if (first === undefined) return err("Fatal", "no job request");
    return ok({ kind: "run", command: [...command], ...first, het: rest.map((b) => b.spec), warnings: built.value.flatMap((b) => b.warnings) });
  }
  const assignments = [...envAssignments(cmd, env), ...fromParsed(components[0] ?? [], "cli")];
  const built = buildSpec(submit, assignments, undefined, command);
  if (!built.ok) return built;
  return ok({ kind: "run", command: [...command], ...built.value });
}

/**
 * srun's arguments (without the program name). Settings include label (-l), pty, unbuffered,
 * jobId (--jobid / SLURM_JOB_ID: run as a step of that allocation), allocNodelist, waitSec,
 * killOnBadExit, multiProg, exact/overlap/whole, immediateSec; the spec carries ntasks,
 * nodes, cpus-per-task, gres/gpus, time, partition, name (default: the command's basename).
 */
export function parseSrunArgs(argv: readonly string[], env: Env, ctx: InteractiveContext = contextFromEnv(env)): Result<Interactive> {
  return parseInteractive("srun", argv, env, ctx);
}

/** salloc's arguments: the same request; settings add noShell, bell, killCommandSignal, immediateSec. */
export function parseSallocArgs(argv: readonly string[], env: Env, ctx: InteractiveContext = contextFromEnv(env)): Result<Interactive> {
  return parseInteractive("salloc", argv, env, ctx);
}
