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
import { componentRequests, HET_COMPONENTS_MAX, HET_SEPARATOR, splitComponents } from "./het-components.ts";
import { parseArgs, type ParsedOption } from "./parse-args.ts";
import { earlyAction } from "./sbatch-flow.ts";
import type { Command } from "./table.ts";

export interface InteractiveContext {
  invoker: SubmitInvoker;
  /** Epoch seconds (for --begin/--deadline). */
  now: number;
}

/** The start of the warning for -n below the -N an allocation's variables gave (compat/job-layout.ts). */
export const NODES_LOWERED = "Warning: can't run ";

/** What to do: print a text and exit (help/usage/version), or run `command` under `spec`. */
export type Interactive =
  | { kind: "exit"; stdout: string; exitCode: number }
  | ({
      kind: "run"; command: string[];
      /** salloc A : B and srun A : B: the components after the first */ het?: Built["spec"][];
      /** srun A : B: each later component's own command (het[i]'s is hetCommands[i]) */ hetCommands?: string[][];
    } & Built);

type Env = Readonly<Record<string, string | undefined>>;

/** Without a context: the working directory and host name from the environment. */
const contextFromEnv = (env: Env): InteractiveContext => ({
  invoker: { cwd: env.PWD ?? "/", hostname: env.HOSTNAME ?? "localhost" },
  now: 0,
});

function parseInteractive(cmd: Command, argv: readonly string[], env: Env, ctx: InteractiveContext): Result<Interactive> {
  const split: Result<{ components: ParsedOption[][]; operands: string[]; commands?: string[][] }> =
    cmd === "srun" ? splitSrunComponents(argv) : splitComponents(cmd, argv);
  if (!split.ok) return split;
  const early = earlyAction(cmd, split.value.components.flat());
  if (early !== undefined) return ok({ kind: "exit", stdout: early, exitCode: 0 });
  const command = split.value.operands;
  const components = split.value.components;
  const commands = split.value.commands ?? [];
  if (cmd === "srun" && commands.some((c) => c.length === 0)) return err("Fatal", "No command given to execute.");
  const submit = { cmd, argv, env, invoker: ctx.invoker, now: ctx.now };
  if (components.length > 1) {
    // a heterogeneous allocation or step: one request per component, the first one's settings act on salloc/srun
    const built = componentRequests(submit, [], components, undefined, command);
    if (!built.ok) return built;
    const [first, ...rest] = built.value;
    if (first === undefined) return err("Fatal", "no job request");
    const hetCommands = commands.length > 1 ? { hetCommands: commands.slice(1).map((c) => [...c]) } : {};
    rest.forEach((b, i) => {
      const own = commands[i + 1];
      if (own !== undefined) b.spec.argv = [...own];
    });
    // srun: a later component's node count is its het group's, not the leader's SLURM_NNODES (oracle: one warning)
    const later = rest.flatMap((b) => (cmd === "srun" ? b.warnings.filter((w) => !w.startsWith(NODES_LOWERED)) : b.warnings));
    return ok({ kind: "run", command: [...command], ...first, het: rest.map((b) => b.spec), ...hetCommands, warnings: [...first.warnings, ...later] });
  }
  const assignments = [...envAssignments(cmd, env), ...fromParsed(components[0] ?? [], "cli")];
  const built = buildSpec(submit, assignments, undefined, command);
  if (!built.ok) return built;
  return ok({ kind: "run", command: [...command], ...built.value });
}

/**
 * srun A : B (a heterogeneous step): each component is srun's options then its own command, the
 * components separated by a lone ":" argument (as Slurm's srun splits its argv: a ":" meant for
 * the command cannot be passed). `operands` is the first component's command.
 */
function splitSrunComponents(argv: readonly string[]): Result<{ components: ParsedOption[][]; operands: string[]; commands: string[][] }> {
  const components: ParsedOption[][] = [];
  const commands: string[][] = [];
  let rest = argv;
  for (;;) {
    const parsed = parseArgs("srun", rest);
    if (!parsed.ok) return parsed;
    components.push(parsed.value.options);
    const at = parsed.value.operands.indexOf(HET_SEPARATOR);
    const last = at < 0 || components.length >= HET_COMPONENTS_MAX;
    commands.push(last ? parsed.value.operands : parsed.value.operands.slice(0, at));
    if (last) return ok({ components, operands: commands[0] ?? [], commands });
    rest = parsed.value.operands.slice(at + 1);
  }
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
