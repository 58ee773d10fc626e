/**
 * @module tests/differential/generator
 * One seed -> one case, deterministically (src/lib/rng.ts): an sbatch submission made of a
 * random subset of the option table's sbatch options (src/compat/options), each with a value
 * from its grammar (grammar.ts), spelled as getopt accepts it (--opt=v, --opt v, -o v, -ov,
 * unique prefixes) and placed on the command line, as an #SBATCH line (among comments, blank
 * lines, maybe after the first command, where it no longer counts) or as an SBATCH_* variable;
 * submitted with --hold, --test-only or plainly, with or without --parsable. A fifth of the
 * seeds make a query case instead (queries.ts). Any seed replays the same case.
 */
import { createRng, type Rng } from "../../src/lib/rng.ts";
import { optionsFor, type OptionDef } from "../../src/compat/options/table.ts";
import { drawValue, grammarFor, type Form } from "./grammar.ts";
import { generateQuery, type QueryCase } from "./queries.ts";

export type Placement = "cli" | "directive" | "env";
export type Spelling = "long=" | "long-space" | "short" | "short-attached" | "abbrev";
export type Mode = "hold" | "test-only" | "plain";

export interface OptionUse {
  /** Long name without dashes. */
  name: string;
  /** undefined: a flag, or an optional argument left out. */
  value?: string;
  form: Form;
  placement: Placement;
  spelling: Spelling;
  /** For placement "env": the variable. */
  envVar?: string;
  /** For placement "directive": a trailing "# comment" on the line. */
  trailingComment?: boolean;
}

/** Lines of the script around the directives: "D" is the next directive, "command" the first command. */
export type LayoutToken = "D" | "comment" | "blank" | "command";

export interface SubmitCase {
  kind: "sbatch";
  seed: number;
  mode: Mode;
  /** The generated options (mode flags included: hold, test-only, parsable), in command-line order. */
  options: OptionUse[];
  /** --wrap instead of a script file (then no directives). */
  wrap: boolean;
  layout: LayoutToken[];
}

export type Case = SubmitCase | QueryCase;

/**
 * Options never generated, with why: they would block, touch what is not ours on the
 * shared oracle, or are what the case's mode sets itself.
 */
export const NEVER: Record<string, string> = {
  hold: "set by the case's mode",
  "test-only": "set by the case's mode",
  parsable: "set by the case's mode",
  wrap: "the case chooses --wrap or a script file itself",
  wait: "blocks until the job ends, and a held job never ends",
  jobid: "would take job ids on the shared oracle",
  help: "prints the whole --help text (22.05's and 26.x's option lists differ everywhere)",
  autocomplete: "a shell-completion helper, not a submission",
};

/** sbatch options 22.05 (the oracle) does not know: 26.x rows and pyxis's SPANK options. Drawn rarely. */
export const ORACLE_LACKS = new Set([
  "consolidate-segments", "container-id", "external", "mem-update", "oom-kill-step", "resources", "resv-ports",
  "runtime", "segment", "spread-segments", "stepmgr", "tres-bind", "tres-per-task",
]);
export const isPyxis = (name: string): boolean => name.startsWith("container-") || name.startsWith("no-container-");

/** The shortest prefix of `name` that names only its getopt key in the sbatch table. */
export function uniquePrefix(name: string): string {
  const defs = optionsFor("sbatch");
  const self = defs.find((d) => d.name === name);
  for (let n = 1; n <= name.length; n++) {
    const p = name.slice(0, n);
    const keys = new Set(defs.filter((d) => d.name.startsWith(p)).map((d) => d.key));
    if (keys.size === 1 && keys.has(self?.key ?? name)) return p;
  }
  return name;
}

function weight(d: OptionDef): number {
  if (ORACLE_LACKS.has(d.name) || isPyxis(d.name)) return 0.1;
  return d.support === "ok" ? 1 : 0.4;
}

/** Draw `count` distinct options by weight. */
function pickOptions(rng: Rng, count: number): OptionDef[] {
  const pool = optionsFor("sbatch").filter((d) => NEVER[d.name] === undefined);
  const out: OptionDef[] = [];
  while (out.length < count) {
    const free = pool.filter((d) => !out.includes(d) && !(out.some((o) => o.name === "job-name") && d.name === "chdir") && !(out.some((o) => o.name === "chdir") && d.name === "job-name"));
    const total = free.reduce((s, d) => s + weight(d), 0);
    let r = rng.next() * total;
    const d = free.find((x) => (r -= weight(x)) < 0) ?? (free[free.length - 1] as OptionDef);
    out.push(d);
  }
  return out;
}

function spellingFor(rng: Rng, d: OptionDef, value: string | undefined): Spelling {
  const forms: Spelling[] = ["long=", "long=", "abbrev"];
  const attachedOnly = d.hasArg === "optional" || value === "";
  if (d.hasArg === "required" && !attachedOnly) forms.push("long-space");
  // an empty optional argument exists only as --opt= (-k alone is the option without one)
  if (d.short !== "" && !(d.hasArg === "optional" && value === "")) forms.push("short", ...(d.hasArg === "required" && value !== "" ? (["short-attached"] as Spelling[]) : []));
  return rng.pick(forms);
}

/** One option's use: its value, spelling and placement. */
export function useOption(rng: Rng, d: OptionDef, placements: readonly Placement[]): OptionUse {
  let value: string | undefined;
  let form: Form = "valid";
  if (d.hasArg === "required" || (d.hasArg === "optional" && rng.next() < 0.5)) {
    const drawn = drawValue(rng, grammarFor(d.name, d.argKind));
    value = drawn.value;
    form = drawn.form;
  }
  const canEnv = d.envVars.length > 0 && !(d.hasArg === "optional" && value === undefined);
  const where = placements.filter((p) => p !== "env" || canEnv);
  const placement: Placement = where.length > 0 ? rng.pick(where) : "cli";
  const use: OptionUse = { name: d.name, form, placement, spelling: spellingFor(rng, d, value) };
  if (value !== undefined) use.value = value;
  if (placement === "env") use.envVar = rng.pick(d.envVars);
  if (placement === "directive" && rng.next() < 0.2) use.trailingComment = true;
  return use;
}

function layoutFor(rng: Rng, directives: number): LayoutToken[] {
  const out: LayoutToken[] = [];
  let commandPlaced = false;
  for (let i = 0; i < directives; i++) {
    while (rng.next() < 0.25) out.push(rng.pick(["comment", "blank"] as const));
    // the first-command rule: a directive after the first command is not read
    if (!commandPlaced && i > 0 && rng.next() < 0.1) {
      out.push("command");
      commandPlaced = true;
    }
    out.push("D");
  }
  if (!commandPlaced) out.push("command");
  return out;
}

/** The case of one seed. */
export function generateCase(seed: number): Case {
  const rng = createRng(seed);
  if (rng.next() < 0.2) return generateQuery(seed, rng);
  const mode: Mode = rng.pick(["hold", "hold", "hold", "hold", "test-only", "test-only", "test-only", "plain"] as const);
  const wrap = rng.next() < 0.25;
  const placements: Placement[] = wrap ? ["cli", "cli", "env"] : ["cli", "cli", "directive", "directive", "env"];
  const count = 1 + Math.floor(-Math.log(1 - rng.next() * 0.95) * 1.2);
  const defs = pickOptions(rng, Math.min(count, 5));
  const table = new Map(optionsFor("sbatch").map((d) => [d.name, d]));
  const modeFlags = [...(mode === "plain" ? [] : [mode]), ...(rng.next() < 0.3 ? ["parsable"] : [])];
  const uses = [...defs, ...modeFlags.map((n) => table.get(n) as OptionDef)].map((d) => useOption(rng, d, placements));
  // command-line order is random too (getopt takes options in any order)
  const options = uses.map((u) => ({ u, k: rng.next() })).sort((a, b) => a.k - b.k).map((x) => x.u);
  const directives = options.filter((o) => o.placement === "directive").length;
  return { kind: "sbatch", seed, mode, options, wrap, layout: layoutFor(rng, directives) };
}

/** A short label of the case for reports: `sbatch hold: --time(cli,long=) ...`. */
export function caseLabel(c: Case): string {
  if (c.kind === "query") return `${c.tool}: ${c.words.join(" ")}`;
  const opts = c.options.map((o) => `--${o.name}${o.value !== undefined ? `=${o.value}` : ""}[${o.placement}]`);
  return `sbatch ${c.mode}${c.wrap ? " wrap" : ""}: ${opts.join(" ")}`;
}
