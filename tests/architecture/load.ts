/**
 * @module tests/architecture/load
 * The I/O half of the architecture check: reads src/**\/*.ts and the debt list, and puts
 * the rules together. Everything else in tests/architecture is pure.
 */
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { DebtList, Rules } from "./check.ts";
import * as R from "./rules.ts";

export const REPO = join(import.meta.dirname, "..", "..");
export const DEBT_PATH = join(REPO, "tests", "architecture", "known-debt.json");

export const RULES: Rules = {
  units: R.UNITS,
  allowed: R.ALLOWED,
  lazyOnly: R.LAZY_ONLY,
  pureUnits: R.PURE_UNITS,
  shellFilesInPure: R.SHELL_FILES_IN_PURE,
  impureModules: R.IMPURE_MODULES,
  impureGlobals: R.IMPURE_GLOBALS,
};

/** Every .ts file under `dir` (repository-relative), path -> text. */
export function loadSources(dir = "src"): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const e of readdirSync(join(REPO, rel), { withFileTypes: true })) {
      const p = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".ts")) out.set(p, readFileSync(join(REPO, p), "utf8"));
    }
  };
  walk(dir);
  return out;
}

export function readDebt(): DebtList {
  const j = JSON.parse(readFileSync(DEBT_PATH, "utf8")) as Partial<DebtList>;
  return { backEdges: j.backEdges ?? [], cycles: j.cycles ?? [], impure: j.impure ?? [], eager: j.eager ?? [] };
}

export function writeDebt(found: DebtList): void {
  const body = {
    _note:
      "Known architecture debt (docs/architecture.md). The list may only shrink: a new item fails " +
      "tests/unit/architecture.test.ts, and so does a listed item that is gone. Regenerate with " +
      "`bun scripts/arch-report.ts --write-debt` only after a merge or a fix, and review the diff.",
    ...found,
  };
  writeFileSync(DEBT_PATH, `${JSON.stringify(body, null, 2)}\n`);
}
