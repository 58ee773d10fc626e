/**
 * @module compat/options/apply-settings
 * Handlers of the options that steer the command itself rather than the job: sbatch
 * --parsable/--wait/--wrap, srun -l/--pty/--jobid, salloc --no-shell/--bell, verbosity,
 * SLURM_EXIT_ERROR. They write CmdSettings (see build-state.ts).
 */
import { err, ok, type Result } from "../../lib/result.ts";
import type { BuildState, CmdSettings } from "./build-state.ts";
import type { Assignment } from "./env-input.ts";
import { parseCount, signalNumber } from "./spec-syntax.ts";
import { CPU_BIND_FATAL, cpuBindError } from "./cpu-bind-syntax.ts";
import { ERROR_THEN_FATAL } from "./messages.ts";

type Handler = (st: BuildState, a: Assignment) => Result<void>;
type FlagKeys = { [K in keyof CmdSettings]-?: CmdSettings[K] extends boolean ? K : never }[keyof CmdSettings];

const DONE: Result<void> = ok(undefined);
const OPTION_EXIT = 255;

const setting = (field: FlagKeys): Handler => (st, a) => {
  st.settings[field] = !a.reset;
  return DONE;
};

/** Options that only mean something on the command line: noted and skipped elsewhere. */
const commandLineOnly: Handler = (st, a) => {
  if (a.source !== "cli") st.warnings.push(`${a.origin} is ignored when given in a batch script`);
  return DONE;
};

/**
 * -Q/--quiet counts on sbatch's command line only: in a #SBATCH line or as SBATCH_QUIET the
 * "Submitted batch job" line is still printed (Slurm 22.05, oracle; differential seed 1056).
 */
function quiet(st: BuildState, a: Assignment): Result<void> {
  if (st.cmd === "sbatch" && a.source !== "cli") return DONE;
  st.settings.quiet = !a.reset;
  return DONE;
}

/** -v counts from sbatch's command line and SBATCH_DEBUG, not from a #SBATCH line (oracle 22.05: no "defined options" list; differential seed 10014). */
function verbose(st: BuildState, a: Assignment): Result<void> {
  if (st.cmd === "sbatch" && a.source === "script") return DONE;
  if (a.reset) st.settings.verbose = 0;
  else if (a.source === "env" && /^[0-9]+$/.test(a.value ?? "")) st.settings.verbose = Number(a.value);
  else st.settings.verbose++;
  return DONE;
}

function wait(st: BuildState, a: Assignment): Result<void> {
  if (st.cmd !== "srun") {
    st.settings.wait = !a.reset;
    return DONE;
  }
  const r = parseCount(a.value ?? "", "--wait", false);
  if (!r.ok) return r;
  st.settings.waitSec = r.value;
  return DONE;
}

const exitCode = (field: "exitError" | "exitImmediate"): Handler => (st, a) => {
  const r = parseCount(a.value ?? "", a.origin, false);
  if (!r.ok) return r;
  if (r.value === 0) st.warnings.push(`${a.origin} has zero value`);
  else st.settings[field] = r.value;
  return DONE;
};

function jobId(st: BuildState, a: Assignment): Result<void> {
  const r = parseCount(a.value ?? "", "--jobid");
  if (!r.ok) return r;
  st.settings.jobId = r.value;
  return DONE;
}

/** srun --het-group=N: the component of a heterogeneous allocation the step runs in (one index; lists are refused). */
function hetGroup(st: BuildState, a: Assignment): Result<void> {
  const value = a.value ?? "";
  if (/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(value) && !/^\d+$/.test(value)) return err("Unsupported", `${a.origin} with more than one component is not supported by Spur`);
  // (oracle 22.05: the range parser's own line comes first)
  if (!/^\d+$/.test(value)) return err("BadHetGroup", `_parse_single_range: Invalid range: \`${value}'\nInvalid --het-group value: ${value}`);
  st.settings.hetGroup = Number(value);
  return DONE;
}

/** srun -r/--relative=N (N from 0). */
function relative(st: BuildState, a: Assignment): Result<void> {
  const r = parseCount(a.value ?? "", "--relative", false);
  if (!r.ok) return r;
  st.settings.relative = r.value;
  return DONE;
}

function pty(st: BuildState, a: Assignment): Result<void> {
  st.settings.pty = !a.reset;
  if (a.value === undefined) return DONE;
  const r = parseCount(a.value, "--pty", false);
  if (!r.ok) return r;
  st.settings.ptyFd = r.value;
  return DONE;
}

function killOnBadExit(st: BuildState, a: Assignment): Result<void> {
  const r = a.value === undefined ? ok(1) : parseCount(a.value, "--kill-on-bad-exit", false);
  if (!r.ok) return r;
  st.settings.killOnBadExit = r.value;
  return DONE;
}

function killCommand(st: BuildState, a: Assignment): Result<void> {
  const num = a.value === undefined ? 15 : signalNumber(a.value);
  if (num === undefined) return err("BadKillCommand", "Invalid --kill-command specification", OPTION_EXIT);
  st.settings.killCommandSignal = num;
  return DONE;
}

const text = (field: "clusters" | "mpi" | "allocNodelist" | "cpuBind" | "taskProlog" | "taskEpilog" | "srunProlog" | "srunEpilog"): Handler => (st, a) => {
  st.settings[field] = a.value ?? "";
  return DONE;
};

/** srun checks --cpu-bind (and SLURM_CPU_BIND) before it asks for an allocation (oracle: --cpu-bind=bogus allocates nothing). */
function cpuBind(st: BuildState, a: Assignment): Result<void> {
  const bad = cpuBindError(a.value ?? "");
  if (bad !== undefined) return err(ERROR_THEN_FATAL, `${bad}\n${CPU_BIND_FATAL}`, 1);
  return text("cpuBind")(st, a);
}

function wrap(st: BuildState, a: Assignment): Result<void> {
  if (a.source !== "cli") return commandLineOnly(st, a);
  st.settings.wrap = a.value ?? "";
  return DONE;
}

const bell = (on: boolean): Handler => (st) => {
  st.settings.bell = on;
  return DONE;
};

/** --help/--usage/--version act only on the command line (sbatch-flow earlyAction); elsewhere Slurm 22.05 skips them silently (oracle, differential seeds 116/149/254). */
const actionOnly: Handler = () => DONE;

export const CLI_HANDLERS: Readonly<Record<string, Handler>> = {
  help: actionOnly, usage: actionOnly, version: actionOnly, wrap,
  parsable: setting("parsable"), quiet, "test-only": setting("testOnly"),
  "ignore-pbs": setting("ignorePbs"), verbose, wait,
  clusters: text("clusters"), cluster: text("clusters"),
  "exit-error": exitCode("exitError"), "exit-immediate": exitCode("exitImmediate"),
  // srun
  label: setting("label"), pty, unbuffered: setting("unbuffered"), jobid: jobId, "het-group": hetGroup, "pack-group": hetGroup,
  "alloc-nodelist": text("allocNodelist"), "multi-prog": setting("multiProg"),
  "kill-on-bad-exit": killOnBadExit, "disable-status": setting("disableStatus"), exact: setting("exact"),
  overlap: setting("overlap"), interactive: setting("interactive"), whole: setting("whole"), "preserve-env": setting("preserveEnv"),
  "quit-on-interrupt": setting("quitOnInterrupt"), mpi: text("mpi"), "cpu-bind": cpuBind, cpu_bind: cpuBind,
  "task-prolog": text("taskProlog"), "task-epilog": text("taskEpilog"), prolog: text("srunProlog"), epilog: text("srunEpilog"),
  relative, bcast: (st, a) => {
    st.settings.bcast = a.value ?? "";
    return DONE;
  },
  // salloc
  bell: bell(true), "no-bell": bell(false), "no-shell": setting("noShell"), "kill-command": killCommand,
};
