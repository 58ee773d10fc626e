/**
 * @module compat/options/table-salloc
 * salloc-only options and salloc env-only inputs. Generated once from the Slurm fact table
 * /work/shared/slurm-surface/salloc-options.tsv (columns kept verbatim) plus
 * Spur's own `spur` column (ok | warn | error | ignore, see row-types.ts). Edit by hand from now on.
 */
import type { SallocRow } from "./row-types.ts";

// prettier-ignore
export const SALLOC_ROWS: readonly SallocRow[] = [
  { long: "--bell", short: "", hasArg: "none", argKind: "none", syntax: "--bell", validFor: "", sallocEnv: "SALLOC_BELL", description: "Ring the terminal bell when the allocation is granted.", spur: "ok" },
  { long: "--no-bell", short: "", hasArg: "none", argKind: "none", syntax: "--no-bell", validFor: "", sallocEnv: "SALLOC_NO_BELL", description: "Never ring the terminal bell on allocation.", spur: "ok" },
  { long: "--immediate", short: "-I", hasArg: "optional", argKind: "opt:int(seconds)", syntax: "-I, --immediate[=<seconds>]", validFor: "srun", sallocEnv: "SALLOC_IMMEDIATE", description: "Give up if no allocation within seconds (default 1).", spur: "ok" },
  { long: "--kill-command", short: "-K", hasArg: "optional", argKind: "opt:string(signal)", syntax: "-K, --kill-command[=signal]", validFor: "", sallocEnv: "SALLOC_KILL_CMD", description: "Signal sent to the salloc command when allocation ends.", spur: "ok" },
  { long: "--no-shell", short: "", hasArg: "none", argKind: "none", syntax: "--no-shell", validFor: "", sallocEnv: "", description: "Exit right after allocating, without running a command.", spur: "ok" },
  { long: "--x11", short: "", hasArg: "optional", argKind: "opt:enum(all|first|last)", syntax: "--x11[={all|first|last}]", validFor: "srun", sallocEnv: "", description: "Forward X11 to all, first or last node (build-dependent).", spur: "error" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SALLOC_DEBUG", description: "Env form of -v/--verbose for salloc.", spur: "ok" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SALLOC_REQ_SWITCH", description: "Env-only count part of --switches for salloc.", spur: "warn" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SALLOC_WAIT4SWITCH", description: "Env-only max-time part of --switches for salloc.", spur: "warn" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SALLOC_POWER", description: "Still read although the --power option was removed.", spur: "ignore" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SLURM_EXIT_ERROR", description: "Exit code salloc uses for Slurm errors (default 1).", spur: "ok" },
  { long: "(env only)", short: "", hasArg: "(env)", argKind: "", syntax: "", validFor: "", sallocEnv: "SLURM_EXIT_IMMEDIATE", description: "Exit code when --immediate times out (default 1).", spur: "ok" },
];
