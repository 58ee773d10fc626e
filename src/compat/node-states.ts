/**
 * @module node-states
 * Node state display: the one-word long/compact names with a one-character
 * suffix that sinfo prints (%T "drained*", %t "drng", "mix-", "alloc+") and the
 * base+flags form of `scontrol show node` State= ("MIXED+DRAIN"). Facts:
 * shared/slurm-surface/states.tsv; the decision order mirrors Slurm's.
 */
import type { StateLike } from "./states.ts";

/** A long and a compact (upper-case) name. */
type Pair = readonly [long: string, compact: string];

/** Suffix characters, checked in this order; only the first present is shown. */
const SUFFIXES: readonly (readonly [flag: string, ch: string])[] = [
  ["MAINT", "$"], ["REBOOT_ISSUED", "^"], ["REBOOT_REQUESTED", "@"], ["POWERING_UP", "#"],
  ["POWERING_DOWN", "%"], ["POWERED_DOWN", "~"], ["POWER_DOWN", "!"], ["NOT_RESPONDING", "*"],
];

/**
 * States printed when a node has base UNKNOWN and exactly this one flag.
 * DYNAMIC_*, UNDRAIN have no compact form in Slurm; the long name is reused.
 */
const LONE_FLAG_STATES: Readonly<Record<string, Pair>> = {
  CANCEL_REBOOT: ["CANCEL_REBOOT", "CANC_R"],
  CLOUD: ["CLOUD", "CLOUD"],
  POWER_DOWN: ["POWER_DOWN", "POW_DN"],
  POWER_UP: ["POWER_UP", "POW_UP"],
  POWERING_DOWN: ["POWERING_DOWN", "POWRING_DN"],
  POWERED_DOWN: ["POWERED_DOWN", "POWERED_DN"],
  POWERING_UP: ["POWERING_UP", "POWERING_UP"],
  EXTERNAL: ["EXTERNAL", "EXT"],
  DYNAMIC_FUTURE: ["DYNAMIC_FUTURE", "DYNAMIC_FUTURE"],
  DYNAMIC_NORM: ["DYNAMIC_NORM", "DYNAMIC_NORM"],
  UNDRAIN: ["UNDRAIN", "UNDRAIN"],
};

/** Base states: long and compact names (ERROR is unused: one-word form "?"). */
const BASES: Readonly<Record<string, Pair>> = {
  UNKNOWN: ["UNKNOWN", "UNK"], DOWN: ["DOWN", "DOWN"], IDLE: ["IDLE", "IDLE"],
  ALLOCATED: ["ALLOCATED", "ALLOC"], ERROR: ["ERROR", "ERROR"], MIXED: ["MIXED", "MIX"],
  FUTURE: ["FUTURE", "FUTR"],
};

/** Other spellings of flags seen in Slurm sources and REST output. */
const FLAG_ALIASES: Readonly<Record<string, string>> = {
  MAINTENANCE: "MAINT", NO_RESPOND: "NOT_RESPONDING", RES: "RESERVED",
  REBOOT_CANCEL: "CANCEL_REBOOT", INVAL: "INVALID_REG", POWER_SAVE: "POWER_DOWN",
};

interface NodeView {
  base: string;
  flags: Set<string>;
}

function view(node: StateLike): NodeView {
  const flags = new Set(node.stateFlags.map((f) => FLAG_ALIASES[f.toUpperCase()] ?? f.toUpperCase()));
  return { base: node.state.toUpperCase(), flags };
}

const suffixOf = (v: NodeView): string => SUFFIXES.find(([f]) => v.flags.has(f))?.[1] ?? "";
const withSuffix = (p: Pair, s: string): Pair => [p[0] + s, p[1] + s];
const notResp = (v: NodeView): string => (v.flags.has("NOT_RESPONDING") ? "*" : "");

/** The flag-driven special names (maintenance, reboot, drain, fail, lone flags). */
function specialState(v: NodeView): Pair | undefined {
  const has = (f: string): boolean => v.flags.has(f);
  const busy = v.base === "ALLOCATED" || v.base === "MIXED";
  if (has("INVALID_REG")) return ["INVAL", "INVAL"];
  if (has("MAINT") && !has("DRAIN") && !busy && v.base !== "DOWN") {
    return withSuffix(["MAINT", "MAINT"], notResp(v));
  }
  if ((has("REBOOT_REQUESTED") || has("REBOOT_ISSUED")) && !busy) {
    if (has("REBOOT_ISSUED")) return ["REBOOT^", "BOOT^"];
    return withSuffix(["REBOOT", "BOOT"], notResp(v));
  }
  if (has("DRAIN")) {
    const draining = busy || has("COMPLETING");
    return withSuffix(draining ? ["DRAINING", "DRNG"] : ["DRAINED", "DRAIN"], suffixOf(v));
  }
  if (has("FAIL")) {
    const failing = v.base === "ALLOCATED" || has("COMPLETING");
    return withSuffix(failing ? ["FAILING", "FAILG"] : ["FAIL", "FAIL"], notResp(v));
  }
  if (v.base === "UNKNOWN" && v.flags.size === 1) {
    const [only] = v.flags;
    if (only !== undefined && LONE_FLAG_STATES[only]) return LONE_FLAG_STATES[only];
  }
  return undefined;
}

/** Base-state names with their suffix and the +, -, RESERVED/PLANNED variants. */
function baseState(v: NodeView): Pair {
  const has = (f: string): boolean => v.flags.has(f);
  const suffix = suffixOf(v);
  const plain = BASES[v.base];
  if (v.base === "DOWN") return withSuffix(plain as Pair, suffix);
  if (v.base === "ALLOCATED") {
    return withSuffix(plain as Pair, suffix || (has("COMPLETING") ? "+" : ""));
  }
  if (has("COMPLETING")) return withSuffix(["COMPLETING", "COMP"], suffix);
  if (v.base === "IDLE") {
    if (suffix) return withSuffix(plain as Pair, suffix);
    if (has("RESERVED")) return ["RESERVED", "RESV"];
    if (has("BLOCKED")) return ["BLOCKED", "BLOCK"];
    if (has("PLANNED")) return ["PLANNED", "PLND"];
    return plain as Pair;
  }
  if (v.base === "MIXED") return withSuffix(plain as Pair, suffix || (has("PLANNED") ? "-" : ""));
  if (v.base === "FUTURE") return withSuffix(plain as Pair, suffix);
  if (has("RESUME")) return ["RESUME", "RESM"];
  if (v.base === "UNKNOWN") return withSuffix(plain as Pair, notResp(v));
  return ["?", "?"]; // ERROR and unknown bases, as Slurm
}

/** Upper-case long and compact names, e.g. ["DRAINING*", "DRNG*"]. */
export function nodeStateStrings(node: StateLike): Pair {
  const v = view(node);
  return specialState(v) ?? baseState(v);
}

/** sinfo %T (StateLong): "idle", "allocated", "mixed-", "drained*", "reboot^". */
export const nodeStateLong = (node: StateLike): string => nodeStateStrings(node)[0].toLowerCase();

/** sinfo %t (StateCompact): "idle", "alloc", "mix", "drng", "plnd", "idle~". */
export const nodeStateCompact = (node: StateLike): string => nodeStateStrings(node)[1].toLowerCase();

/**
 * Flag names in the order Slurm appends them to the base name ("+FLAG").
 * The last three are newer than the list this order was taken from; their
 * position is a guess.
 */
const COMPLETE_FLAG_ORDER: readonly (readonly [flag: string, name: string])[] = [
  ["CLOUD", "CLOUD"], ["COMPLETING", "COMPLETING"], ["DRAIN", "DRAIN"],
  ["DYNAMIC_FUTURE", "DYNAMIC_FUTURE"], ["DYNAMIC_NORM", "DYNAMIC_NORM"],
  ["INVALID_REG", "INVALID_REG"], ["FAIL", "FAIL"], ["MAINT", "MAINTENANCE"],
  ["POWER_DOWN", "POWER_DOWN"], ["POWER_UP", "POWER_UP"], ["POWERED_DOWN", "POWERED_DOWN"],
  ["REBOOT_REQUESTED", "REBOOT_REQUESTED"], ["REBOOT_ISSUED", "REBOOT_ISSUED"],
  ["RESERVED", "RESERVED"], ["RESUME", "RESUME"], ["NOT_RESPONDING", "NOT_RESPONDING"],
  ["PLANNED", "PLANNED"], ["POWERING_UP", "POWERING_UP"], ["POWERING_DOWN", "POWERING_DOWN"],
  ["BLOCKED", "BLOCKED"], ["EXTERNAL", "EXTERNAL"], ["UNDRAIN", "UNDRAIN"],
];

/**
 * Base plus every flag, upper case: "IDLE", "MIXED+DRAIN",
 * "DOWN+DRAIN+NOT_RESPONDING", "IDLE+CLOUD+POWERED_DOWN". Unlisted flags are
 * appended at the end in the order given.
 */
export function nodeStateComplete(node: StateLike): string {
  const v = view(node);
  const base = BASES[v.base]?.[0] ?? "?";
  const known = COMPLETE_FLAG_ORDER.filter(([f]) => v.flags.has(f)).map(([, n]) => n);
  const listed = new Set(COMPLETE_FLAG_ORDER.map(([f]) => f));
  const other = [...v.flags].filter((f) => !listed.has(f));
  return [base, ...known, ...other].join("+");
}

/** `scontrol show node` State= (goldens 017-019, 066: "IDLE", "ALLOCATED"). */
export const nodeStateScontrol = nodeStateComplete;

/** sinfo StateComplete (-O): the complete form in lower case ("idle+drain"). */
export const nodeStateSinfoComplete = (node: StateLike): string => nodeStateComplete(node).toLowerCase();
