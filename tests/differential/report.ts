/**
 * @module tests/differential/report
 * The differential run's figures (reports/differential.json): cases, identical, known and
 * new; agreement per option (a case counts for every option it uses; query cases count for
 * "query:<tool>") and per field (how often each field differed); the failing seeds with
 * their shrunk cases. Also the text printed for a failing case.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { caseOptions } from "./known.ts";
import type { CaseResult } from "./session.ts";

interface Tally {
  cases: number;
  identical: number;
  known: number;
  new: number;
  /** identical / cases, in percent, one decimal. */
  identical_share: number;
}

export interface DifferentialReport extends Tally {
  seeds: string;
  seconds: number;
  per_option: Record<string, Tally>;
  per_field: Record<string, { differ: number; known: number; new: number }>;
  known_reasons: Record<string, number>;
  failures: { seed: number; label: string; diffs: string[]; shrunk?: { label: string; command: string; script?: string; diffs: string[] } }[];
}

const share = (t: Omit<Tally, "identical_share">): number => (t.cases === 0 ? 0 : Math.round((t.identical / t.cases) * 1000) / 10);

function tally(rs: CaseResult[]): Tally {
  const t = { cases: rs.length, identical: 0, known: 0, new: 0 };
  for (const r of rs) t[r.verdict === "identical" ? "identical" : r.verdict === "known" ? "known" : "new"]++;
  return { ...t, identical_share: share(t) };
}

const diffLine = (d: CaseResult["diffs"][number]): string =>
  `${d.known ? "(known) " : ""}${d.field}: slurm ${JSON.stringify(d.slurm)} | spur ${JSON.stringify(d.spur)}`;

export function summarise(results: CaseResult[], seeds: string, seconds: number): DifferentialReport {
  const byOption = new Map<string, CaseResult[]>();
  const fields = new Map<string, { differ: number; known: number; new: number }>();
  const reasons = new Map<string, number>();
  for (const r of results) {
    for (const o of new Set(caseOptions(r.case))) byOption.set(o, [...(byOption.get(o) ?? []), r]);
    for (const d of r.diffs) {
      const key = d.field.replace(/#\d+/g, "");
      const f = fields.get(key) ?? { differ: 0, known: 0, new: 0 };
      f.differ++;
      f[d.known ? "known" : "new"]++;
      fields.set(key, f);
      if (d.known) reasons.set(d.known, (reasons.get(d.known) ?? 0) + 1);
    }
  }
  const perOption = Object.fromEntries([...byOption].sort(([a], [b]) => a.localeCompare(b)).map(([o, rs]) => [o, tally(rs)]));
  return {
    ...tally(results),
    seeds,
    seconds: Math.round(seconds),
    per_option: perOption,
    per_field: Object.fromEntries([...fields].sort(([, a], [, b]) => b.differ - a.differ)),
    known_reasons: Object.fromEntries([...reasons].sort(([, a], [, b]) => b - a)),
    failures: results.filter((r) => r.verdict === "new").map((r) => ({
      seed: r.seed,
      label: r.label,
      diffs: r.diffs.map(diffLine),
      ...(r.shrunk ? { shrunk: { label: r.shrunk.label, command: r.shrunk.command, ...(r.shrunk.script ? { script: r.shrunk.script } : {}), diffs: r.shrunk.diffs.map(diffLine) } } : {}),
    })),
  };
}

/** What a failing case prints: seed, the case, its new differences, the shrunk case. */
export function explain(r: CaseResult): string {
  const lines = [`seed ${r.seed}: ${r.label}`, ...r.diffs.filter((d) => !d.known).map((d) => `  ${diffLine(d)}`)];
  if (r.shrunk) {
    lines.push(`  shrunk (${r.shrunk.tries} tries): ${r.shrunk.label}`, `    $ ${r.shrunk.command}`);
    if (r.shrunk.script) lines.push(...r.shrunk.script.trimEnd().split("\n").map((l) => `    | ${l}`));
    lines.push(...r.shrunk.diffs.filter((d) => !d.known).map((d) => `    ${diffLine(d)}`));
  }
  lines.push(`  replay: SPUR_DIFFERENTIAL_SEED=${r.seed} npm run test:differential   (or: bun tests/differential/soak.ts --seed ${r.seed} --cases 1)`);
  return lines.join("\n");
}

/** The per-option table as text, worst agreement first. */
export function optionTable(rep: DifferentialReport): string {
  const rows = Object.entries(rep.per_option).sort(([, a], [, b]) => a.identical_share - b.identical_share);
  return [`${"option".padEnd(28)} cases identical  known    new  share`, ...rows.map(([o, t]) =>
    `${o.padEnd(28)} ${String(t.cases).padStart(5)} ${String(t.identical).padStart(9)} ${String(t.known).padStart(6)} ${String(t.new).padStart(6)} ${t.identical_share.toFixed(1).padStart(6)}%`)].join("\n");
}

export function writeReport(path: string, rep: DifferentialReport): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(rep, null, 2)}\n`);
}
