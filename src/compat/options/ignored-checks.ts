/**
 * @module compat/options/ignored-checks
 * Options Spur accepts and ignores with a warning (support "warn") still have their values
 * checked as Slurm 22.05 checks them: a value Slurm refuses is refused here too, with its
 * message and exit code, instead of being warned about and dropped (found by the
 * differential tester: --mem-bind=bogus, --wait-all-nodes=2).
 */
import { err, ok, type Result } from "../../lib/result.ts";

/** Slurm's exit(-1) for a bad option value. */
const OPTION_EXIT = 255;

/** --mem-bind words Slurm knows (its help lists them); map_mem/mask_mem take a list after ":" or "=". */
const MEM_BIND_WORDS = new Set(["help", "nosort", "sort", "q", "quiet", "v", "verbose", "no", "none", "rank", "local", "p", "prefer"]);

/** An entry of a map_mem/mask_mem list after its first ("1", "0x3", "2*4"). */
const LIST_ENTRY = /^(0x[0-9a-f]+|[0-9]+)(\*[0-9]+)?$/;

/**
 * --mem-bind=[{quiet|verbose},]<type>[,...]: each word known (the entries of a map_mem/mask_mem
 * list continue it), else Slurm's message for the first unknown one.
 */
export function checkMemBind(text: string): Result<void> {
  let inList = false;
  for (const word of text.split(/[,;]/)) {
    const w = word.toLowerCase();
    if (inList && LIST_ENTRY.test(w)) continue;
    inList = /^(map_mem|mask_mem)[:=]./.test(w);
    if (inList || MEM_BIND_WORDS.has(w)) continue;
    return err("BadMemBind", `unrecognized --mem-bind argument "${word}"`, OPTION_EXIT);
  }
  return ok(undefined);
}

/**
 * --wait-all-nodes=0|1 (oracle): not a whole number >= 0 is Slurm's parse_int error (exit 1:
 * "abc", "-1", "1x"); another number is refused as a specification (exit 255: "2").
 */
export function checkWaitAllNodes(text: string): Result<void> {
  if (!/^[+]?[0-9]+$/.test(text)) return err("BadNumber", `Invalid numeric value "${text}" for --wait-all-nodes.`, 1);
  if (Number(text) > 1) return err("BadWaitAllNodes", "Invalid --wait-all-nodes specification", OPTION_EXIT);
  return ok(undefined);
}

/** A whole number (a leading "+" taken) at least `min`, else Slurm's parse_int message naming `option`, exit 1 (oracle: "-1", "5x", and "0" where 1 is the least). */
const wholeNumber = (option: string, min: number) => (text: string): Result<void> =>
  /^[+]?[0-9]+$/.test(text) && Number(text) >= min ? ok(undefined) : err("BadNumber", `Invalid numeric value "${text}" for ${option}.`, 1);

/** The resource limits --propagate names (getrlimit's, with or without RLIMIT_, upper case only: oracle 22.05 refuses "nproc"). */
const RLIMIT_NAMES = new Set(["AS", "CORE", "CPU", "DATA", "FSIZE", "MEMLOCK", "NOFILE", "NPROC", "RSS", "STACK"]);

/**
 * --propagate[=rlimit[,...]]: ALL or NONE alone, else each name a limit's (empty items skipped); the
 * first other name is Slurm's "Bad rlimit name" and the option is refused, exit 1 (oracle: NONE,CPU and
 * ALL,CPU name NONE and ALL; RLIMIT_CPU and CPU,,AS pass).
 */
export function checkPropagate(text: string): Result<void> {
  if (text === "" || text === "ALL" || text === "NONE") return ok(undefined);
  for (const name of text.split(",")) {
    if (name === "" || RLIMIT_NAMES.has(name.startsWith("RLIMIT_") ? name.slice(7) : name)) continue;
    return err("BadPropagate", `Bad rlimit name: ${name}\n--propagate=${text} is not valid.`, 1);
  }
  return ok(undefined);
}

/** --accel-bind: at least one of its letters g, n, v somewhere in the value (oracle 22.05: "q", "xyz" and "" are refused, "bogus!" passes). */
export function checkAccelBind(text: string): Result<void> {
  return /[gnv]/.test(text) ? ok(undefined) : err("BadAccelBind", "Invalid --accel-bind specification", OPTION_EXIT);
}

/** The value checks of ignored options, by long name. */
export const IGNORED_OPTION_CHECKS: Readonly<Record<string, (value: string) => Result<void>>> = {
  // (--mem-bind and --wait-all-nodes are handled since: apply-tuning.ts and apply-node-info.ts use these checks)
  // srun's (oracle 22.05: srun -N1 --OPTION=VALUE true); --resv-ports names itself without its s
  "msg-timeout": wholeNumber("--msg-timeout", 1),
  threads: wholeNumber("--threads", 1),
  "resv-ports": wholeNumber("--resv-port", 0),
  propagate: checkPropagate,
  "accel-bind": checkAccelBind,
};
