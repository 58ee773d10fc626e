/**
 * @module format/sinfo-states
 * sinfo's node-state vocabulary beyond display: the `-t` names (prefixes of
 * long or compact names, Slurm's _node_state_id) and what each selects
 * (_filter_out), and the numeric state word that `-S t` / the default "-t"
 * order compares (base value plus flag bits, as in Slurm's node_state).
 */
import type { Node } from "./sinfo-records.ts";

/** What one `-t` word selects. */
export type StateSel =
  | { kind: "base"; base: string }
  | { kind: "flag"; flag: string }
  | { kind: "drain" | "draining" | "drained" | "allocated" | "idle" | "failing" }
  /** `idle&drain`, `idle+drain`: every part must hold (Slurm 23.02+). */
  | { kind: "and"; all: StateSel[] };

/** Base states in Slurm's enum order with their compact names. */
const BASES: readonly (readonly [long: string, compact: string, value: number])[] = [
  ["UNKNOWN", "UNK", 0], ["DOWN", "DOWN", 1], ["IDLE", "IDLE", 2], ["ALLOCATED", "ALLOC", 3],
  ["ERROR", "ERROR", 4], ["MIXED", "MIX", 5], ["FUTURE", "FUTR", 6],
];

/** Flag bits of the node state word (22.05 values; newer flags appended). */
const FLAG_BITS: Readonly<Record<string, number>> = {
  RESERVED: 0x20, UNDRAIN: 0x40, CLOUD: 0x80, RESUME: 0x100, DRAIN: 0x200, COMPLETING: 0x400,
  NOT_RESPONDING: 0x800, POWERED_DOWN: 0x1000, FAIL: 0x2000, POWERING_UP: 0x4000, MAINT: 0x8000,
  REBOOT_REQUESTED: 0x10000, CANCEL_REBOOT: 0x20000, POWERING_DOWN: 0x40000, DYNAMIC_FUTURE: 0x80000,
  REBOOT_ISSUED: 0x100000, PLANNED: 0x200000, INVALID_REG: 0x400000, POWER_DOWN: 0x800000,
  POWER_UP: 0x1000000, POWER_DRAIN: 0x2000000, DYNAMIC_NORM: 0x4000000, BLOCKED: 0x8000000,
  EXTERNAL: 0x10000000,
};

/** The node's state as one number: the order of sinfo's state sort. */
export function nodeStateWord(node: Node): number {
  const base = BASES.find(([l]) => l === node.state.toUpperCase())?.[2] ?? 0;
  return node.stateFlags.reduce((word, f) => word + (FLAG_BITS[f.toUpperCase()] ?? 0), base);
}

/** Flag words after the base names: [accepted names, selection]. Checked in order. */
const FLAG_WORDS: readonly (readonly [names: readonly string[], sel: StateSel])[] = [
  [["DRAIN"], { kind: "drain" }],
  [["DRAINED"], { kind: "drained" }],
  [["DRAINING", "DRNG"], { kind: "draining" }],
  [["RESV", "RESERVED"], { kind: "flag", flag: "RESERVED" }],
  [["COMPLETING", "COMP"], { kind: "flag", flag: "COMPLETING" }],
  [["NO_RESPOND"], { kind: "flag", flag: "NOT_RESPONDING" }],
  [["POWER_DOWN", "POW_DN"], { kind: "flag", flag: "POWER_DOWN" }],
  [["POWERED_DOWN", "POWERED_DN"], { kind: "flag", flag: "POWERED_DOWN" }],
  [["POWERING_UP"], { kind: "flag", flag: "POWERING_UP" }],
  [["FAIL"], { kind: "flag", flag: "FAIL" }],
  [["MAINT"], { kind: "flag", flag: "MAINT" }],
  [["REBOOT_REQUESTED", "REBOOT"], { kind: "flag", flag: "REBOOT_REQUESTED" }],
  [["PLANNED", "PLND"], { kind: "flag", flag: "PLANNED" }],
  [["CLOUD"], { kind: "flag", flag: "CLOUD" }],
  // the rest of the node flags of states.tsv, each by its long and compact names
  // BOOT (reboot requested) before REBOOT_ISSUED: "boot" is also a prefix of the latter's compact "BOOT^"
  [["BOOT"], { kind: "flag", flag: "REBOOT_REQUESTED" }],
  [["REBOOT_ISSUED", "BOOT^"], { kind: "flag", flag: "REBOOT_ISSUED" }],
  [["FAILING", "FAILG"], { kind: "failing" }],
  [["NOT_RESPONDING"], { kind: "flag", flag: "NOT_RESPONDING" }],
  [["INVALID_REG", "INVAL"], { kind: "flag", flag: "INVALID_REG" }],
  [["BLOCKED", "BLOCK"], { kind: "flag", flag: "BLOCKED" }],
  [["POWERING_DOWN", "POWRING_DN"], { kind: "flag", flag: "POWERING_DOWN" }],
  [["POWER_UP", "POW_UP"], { kind: "flag", flag: "POWER_UP" }],
  [["EXTERNAL", "EXT"], { kind: "flag", flag: "EXTERNAL" }],
  [["CANCEL_REBOOT", "CANC_R"], { kind: "flag", flag: "CANCEL_REBOOT" }],
  [["RESUME", "RESM"], { kind: "flag", flag: "RESUME" }],
  [["DYNAMIC_FUTURE"], { kind: "flag", flag: "DYNAMIC_FUTURE" }],
  [["DYNAMIC_NORM"], { kind: "flag", flag: "DYNAMIC_NORM" }],
  [["UNDRAIN"], { kind: "flag", flag: "UNDRAIN" }],
];

/** `sinfo --helpstate`: every state name `-t` accepts, one per line (our layout; the 22.05 oracle has no such option). */
export function helpStateText(): string {
  const names = [...BASES.filter(([l]) => l !== "ERROR").map(([l]) => l), ...FLAG_WORDS.map(([names]) => names[0] ?? "")];
  return `Node states -t/--states accepts (a prefix is enough; ',' means or, '&' or '+' means and):\n${names.map((n) => `  ${n}`).join("\n")}\n`;
}

/** Slurm matches a word as a case-insensitive prefix of a state name. */
const prefixOf = (word: string, name: string): boolean => name.toLowerCase().startsWith(word.toLowerCase());

function parseWord(word: string): StateSel | undefined {
  for (const [long, compact] of BASES) {
    if (prefixOf(word, compact) || prefixOf(word, long)) {
      if (long === "ALLOCATED") return { kind: "allocated" };
      if (long === "IDLE") return { kind: "idle" };
      return { kind: "base", base: long };
    }
  }
  const hit = FLAG_WORDS.find(([names]) => names.some((n) => prefixOf(word, n)));
  return hit?.[1];
}

/** Every name `-t` accepts, lower case (the list of the error message). */
export const VALID_NODE_STATES = [
  ...BASES.map(([l]) => l),
  ...FLAG_WORDS.map(([names]) => names[0] ?? ""),
]
  .join(",")
  .toLowerCase();

/** Parse `-t a,b`; "all" = every state. Error lines as Slurm prints them. */
export function parseNodeStates(text: string): StateSel[] | "all" | { error: string } {
  if (text.toLowerCase() === "all") return "all";
  const out: StateSel[] = [];
  for (const word of text.split(",").filter((w) => w !== "")) {
    const parts = word.split(/[&+]/).filter((w) => w !== "");
    const sels = parts.map(parseWord);
    const bad = parts[sels.findIndex((x) => x === undefined)];
    if (bad !== undefined || parts.length === 0) {
      return { error: `sinfo: error: Bad state string: "${bad ?? word}"\nsinfo: error: valid states: ${VALID_NODE_STATES}\n` };
    }
    // Inside a combination a base name means the base state itself: idle&drain is an idle node that is draining.
    const asBase = (x: StateSel): StateSel => (x.kind === "idle" ? { kind: "base", base: "IDLE" } : x.kind === "allocated" ? { kind: "base", base: "ALLOCATED" } : x);
    out.push(sels.length === 1 ? (sels[0] as StateSel) : { kind: "and", all: (sels as StateSel[]).map(asBase) });
  }
  return out;
}

const has = (n: Node, flag: string): boolean => n.stateFlags.some((f) => f.toUpperCase() === flag);
const busy = (n: Node): boolean => ["ALLOCATED", "MIXED"].includes(n.state.toUpperCase());

/** Whether a node passes one `-t` word (Slurm's _filter_out). */
export function stateSelects(sel: StateSel, n: Node): boolean {
  switch (sel.kind) {
    case "drain":
      return has(n, "DRAIN");
    case "draining":
      return has(n, "DRAIN") && busy(n);
    case "drained":
      return has(n, "DRAIN") && !busy(n);
    case "failing":
      return has(n, "FAIL") && busy(n);
    case "and":
      return sel.all.every((x) => stateSelects(x, n));
    case "flag":
      return has(n, sel.flag);
    case "allocated":
      return n.allocCpus > 0;
    case "idle":
      return n.state.toUpperCase() === "IDLE" && n.stateFlags.every((f) => f.toUpperCase() === "NOT_RESPONDING");
    case "base":
      return n.state.toUpperCase() === sel.base;
  }
}
