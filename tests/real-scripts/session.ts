/**
 * @module tests/real-scripts/session
 * A real-scripts run (docs/real-scripts.md): the differential tester's two sides
 * (tests/differential/session.ts: the shared oracle, never started or stopped when
 * SPUR_ORACLE_UP=1, and a Spur cluster of the same shape), every corpus script and command
 * line run on both at once (a few cases in parallel), compared field by field after the
 * conformance masks, judged against known.ts, and summarised (agreement, per-field table).
 */
import { join } from "node:path";
import { compareObservations, masked, type FieldDiff, type Sides } from "../differential/compare.ts";
import type { Run } from "../differential/session.ts";
import { onlyMine, type CommandCase, type RealCase } from "./corpus.ts";
import { knownReal } from "./known.ts";
import { runCommand, runScript } from "./run-case.ts";

export interface JudgedReal extends FieldDiff {
  known?: string;
}

export interface RealResult {
  kind: RealCase["kind"];
  name: string;
  /** Script file name, or the command line. */
  key: string;
  source: string;
  diffs: JudgedReal[];
  /** For scripts: whether the job record (exit, output, every scontrol field) agrees. */
  recordIdentical: boolean;
  verdict: "identical" | "known" | "new";
}

/** Fields of a script case that make up its job record (the measure). */
const RECORD = /^(exit|stdout|stderr|job(#\d+)?(\..*)?)$/;

function commandDiffs(c: CommandCase, a: Awaited<ReturnType<typeof runCommand>>, b: typeof a, ctx: Sides): FieldDiff[] {
  if (!c.mine) return compareObservations(a, b, ctx);
  const out: FieldDiff[] = [];
  if (a.sub.code !== b.sub.code) out.push({ field: "exit", slurm: String(a.sub.code), spur: String(b.sub.code) });
  for (const s of ["stdout", "stderr"] as const) {
    const x = onlyMine(masked(a.sub[s], ctx.slurm, a.jobId));
    const y = onlyMine(masked(b.sub[s], ctx.spur, b.jobId));
    if (x !== y) out.push({ field: s, slurm: x, spur: y });
  }
  return out;
}

export async function runReal(run: Run, c: RealCase, tag: string): Promise<RealResult> {
  const dirA = join(run.slurmDir, tag);
  const dirB = join(run.spurDir, tag);
  const name = `${run.token}-${tag}`;
  const ctx: Sides = { slurm: { ...run.slurm.ctx, workDir: dirA }, spur: { ...run.spur.side.ctx, workDir: dirB } };
  let diffs: FieldDiff[];
  if (c.kind === "script") {
    const [a, b] = await Promise.all([runScript(run.slurm, c, dirA), runScript(run.spur.side, c, dirB)]);
    diffs = compareObservations(a, b, ctx);
  } else {
    const [a, b] = await Promise.all([runCommand(run.slurm, c, name, dirA), runCommand(run.spur.side, c, name, dirB)]);
    diffs = commandDiffs(c, a, b, ctx);
  }
  const key = c.kind === "script" ? c.name : c.cmd;
  const judged = diffs.map((d): JudgedReal => {
    const k = knownReal(key, d);
    return k ? { ...d, known: k.reason } : d;
  });
  const verdict = judged.length === 0 ? "identical" : judged.every((d) => d.known) ? "known" : "new";
  const recordIdentical = !judged.some((d) => RECORD.test(d.field));
  return { kind: c.kind, name: c.name, key, source: c.source, diffs: judged, recordIdentical, verdict };
}

export async function runAll(run: Run, cases: RealCase[], parallel: number, onResult?: (r: RealResult) => void): Promise<RealResult[]> {
  const out: RealResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < cases.length) {
      const i = next++;
      const c = cases[i] as RealCase;
      const r = await runReal(run, c, `r${i}`);
      onResult?.(r);
      out[i] = r;
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, parallel) }, worker));
  return out;
}

export interface RealReport {
  scripts: { total: number; identical: number; record_identical: number; record_share: number; known: number; new: number };
  commands: { total: number; identical: number; share: number; known: number; new: number };
  /** How often each field differed (script fields by name, "cmd.<field>" for commands). */
  per_field: Record<string, number>;
  differing: { key: string; source: string; verdict: string; diffs: JudgedReal[] }[];
  seconds: number;
}

const pct = (n: number, d: number): number => (d === 0 ? 0 : Math.round((1000 * n) / d) / 10);

export function summarise(results: RealResult[], seconds: number): RealReport {
  const s = results.filter((r) => r.kind === "script");
  const c = results.filter((r) => r.kind === "command");
  const per: Record<string, number> = {};
  for (const r of results) for (const d of r.diffs) {
    const f = `${r.kind === "command" ? "cmd." : ""}${d.field.replace(/#\d+/, "")}`;
    per[f] = (per[f] ?? 0) + 1;
  }
  const count = (xs: RealResult[], v: string) => xs.filter((r) => r.verdict === v).length;
  return {
    scripts: { total: s.length, identical: count(s, "identical"), record_identical: s.filter((r) => r.recordIdentical).length, record_share: pct(s.filter((r) => r.recordIdentical).length, s.length), known: count(s, "known"), new: count(s, "new") },
    commands: { total: c.length, identical: count(c, "identical"), share: pct(count(c, "identical"), c.length), known: count(c, "known"), new: count(c, "new") },
    per_field: Object.fromEntries(Object.entries(per).sort((x, y) => y[1] - x[1])),
    differing: results.filter((r) => r.verdict !== "identical").map((r) => ({ key: r.key, source: r.source, verdict: r.verdict, diffs: r.diffs })),
    seconds,
  };
}

/** One failing case, for a test message. */
export function explainReal(r: RealResult): string {
  const lines = r.diffs.filter((d) => !d.known).map((d) => `  ${d.field}: slurm=${JSON.stringify(d.slurm.slice(0, 300))} spur=${JSON.stringify(d.spur.slice(0, 300))}`);
  return `${r.kind} ${r.key} (${r.source})\n${lines.join("\n")}`;
}
