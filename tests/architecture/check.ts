/**
 * @module tests/architecture/check
 * The rules of tests/architecture/rules.ts applied to an import graph: forbidden folder
 * edges (file by file), import cycles, eager edges that must be lazy, and impure code in a
 * pure unit. Pure; findings are plain strings so the checked-in debt list can name them.
 */
import { type Graph, codeOnly, cycles, unitOf } from "./graph.ts";

export interface Rules {
  units: readonly string[];
  allowed: Record<string, readonly string[]>;
  lazyOnly: readonly { from: string; to: string }[];
  pureUnits: readonly string[];
  shellFilesInPure: Record<string, string>;
  impureModules: readonly string[];
  impureGlobals: readonly { name: string; re: RegExp }[];
}

export interface Findings {
  /** "src/a.ts -> src/b.ts" for each file import whose folder edge is not allowed. */
  backEdges: string[];
  /** Each import cycle (strongly connected component of > 1 file), its files joined by ", ". */
  cycles: string[];
  /** "src/a.ts: node:fs" for each impure module or global used in a pure unit. */
  impure: string[];
  /** "src/main.ts -> src/roles/x.ts" for a static import where only a lazy one is allowed. */
  eager: string[];
}

export type DebtList = Findings;

export function check(graph: Graph, sources: ReadonlyMap<string, string>, rules: Rules): Findings {
  const backEdges = new Set<string>();
  const eager = new Set<string>();
  const impure = new Set<string>();
  const isPure = (f: string) => rules.pureUnits.includes(unitOf(f, rules.units)) && !(f in rules.shellFilesInPure);
  for (const e of graph.edges) {
    if (e.external) {
      if (isPure(e.from) && rules.impureModules.includes(e.to) && e.kind !== "type") impure.add(`${e.from}: ${e.to}`);
      continue;
    }
    const a = unitOf(e.from, rules.units);
    const b = unitOf(e.to, rules.units);
    if (a === b) continue;
    if (!(rules.allowed[a] ?? []).includes(b)) backEdges.add(`${e.from} -> ${e.to}`);
    else if (e.kind !== "dynamic" && rules.lazyOnly.some((l) => l.from === a && l.to === b)) eager.add(`${e.from} -> ${e.to}`);
  }
  for (const f of graph.files) {
    if (!isPure(f)) continue;
    const code = codeOnly(sources.get(f) ?? "");
    for (const g of rules.impureGlobals) if (g.re.test(code)) impure.add(`${f}: ${g.name}`);
  }
  return {
    backEdges: [...backEdges].sort(),
    cycles: cycles(graph).map((c) => c.join(", ")),
    impure: [...impure].sort(),
    eager: [...eager].sort(),
  };
}

export interface DebtDiff {
  /** Found but not in the debt list: a new violation. */
  added: string[];
  /** In the debt list but no longer found: paid, so remove it from the list. */
  stale: string[];
}

/** Compares findings with the checked-in debt list; both directions must be empty. */
export function compareDebt(found: Findings, debt: DebtList): DebtDiff {
  const added: string[] = [];
  const stale: string[] = [];
  for (const key of ["backEdges", "cycles", "impure", "eager"] as const) {
    const have = new Set(found[key]);
    const listed = new Set(debt[key] ?? []);
    for (const x of have) if (!listed.has(x)) added.push(`${key}: ${x}`);
    for (const x of listed) if (!have.has(x)) stale.push(`${key}: ${x}`);
  }
  return { added, stale };
}

/** Folder-level summary of the back-edges: "unit -> unit" with how many file imports. */
export function backEdgeFolders(found: Findings, units: readonly string[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const be of found.backEdges) {
    const [a = "", b = ""] = be.split(" -> ");
    const key = `${unitOf(a, units)} -> ${unitOf(b, units)}`;
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return new Map([...out].sort((x, y) => x[0].localeCompare(y[0])));
}
