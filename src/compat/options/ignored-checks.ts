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

/** The value checks of ignored options, by long name. */
export const IGNORED_OPTION_CHECKS: Readonly<Record<string, (value: string) => Result<void>>> = {
  // (--mem-bind and --wait-all-nodes are handled since: apply-tuning.ts and apply-node-info.ts use these checks)
};
