/**
 * @module tests/differential/session
 * A differential run: brings up the sides (tests/conformance/clusters.ts: the oracle, never
 * started or stopped when SPUR_ORACLE_UP=1, and a Spur cluster of the same shape), runs
 * cases by seed on both at once (a few cases in parallel), judges each difference against
 * known.ts, shrinks failing cases, and at the end cancels any job of this run still queued
 * on either side (found by the run's unique name prefix or directory; nothing else).
 */
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { cleanEnv, runOn, type Side } from "../conformance/side.ts";
import { ORACLE_RUN, oracleNextJobId, spurUp, type SpurCluster } from "../conformance/clusters.ts";
import { caseLabel, generateCase, type Case } from "./generator.ts";
import { compareObservations, RACY_WHEN_RUNNABLE, type FieldDiff, type Observation } from "./compare.ts";
import { knownFor } from "./known.ts";
import { render } from "./render.ts";
import { runCase } from "./run-case.ts";
import { shrink } from "./shrink.ts";

export type CaseVerdict = "identical" | "known" | "new";

export interface JudgedDiff extends FieldDiff {
  known?: string;
}

export interface CaseResult {
  seed: number;
  case: Case;
  label: string;
  verdict: CaseVerdict;
  diffs: JudgedDiff[];
  /** For a new difference: the smallest case that still shows one, and its diffs. */
  shrunk?: { case: Case; label: string; command: string; script?: string; diffs: JudgedDiff[]; tries: number };
}

export interface Run {
  slurm: Side;
  spur: SpurCluster;
  /** Unique to this run: job names start with it, directories are named by it. */
  token: string;
  slurmDir: string;
  spurDir: string;
}

/** The oracle as a side, in a directory of its own under $ORACLE_RUN/jobs (the scenario suite's is left alone). */
function oracleSide(token: string): { side: Side; dir: string } {
  const dir = join(ORACLE_RUN, "jobs", "differential", token);
  mkdirSync(dir, { recursive: true });
  const side: Side = {
    name: "slurm",
    ctx: { workDir: dir, stateDir: ORACLE_RUN, confPaths: [join(ORACLE_RUN, "etc", "slurm.conf"), "/etc/slurm/slurm.conf"] },
    env: cleanEnv({ PATH: "/usr/bin:/bin:/usr/sbin:/sbin" }),
    vars: {},
  };
  return { side, dir };
}

export async function startRun(): Promise<Run> {
  const token = `dt${Date.now().toString(36)}`;
  const o = oracleSide(token);
  const spur = await spurUp(oracleNextJobId());
  const spurDir = join(spur.side.ctx.workDir, token);
  mkdirSync(spurDir, { recursive: true });
  return { slurm: o.side, spur, token, slurmDir: o.dir, spurDir };
}

/** Cancel this run's leftover jobs (by name prefix or directory) on both sides, then stop Spur. */
export async function endRun(run: Run): Promise<void> {
  const mine = `squeue -h -a -o '%i|%j|%Z' | awk -F'|' '$2 ~ /^${run.token}/ || $3 ~ /${run.token}/ {print $1}' | sed 's/_.*//' | sort -u`;
  for (const side of [run.slurm, run.spur.side]) {
    await runOn(side, `ids=$(${mine}); [ -z "$ids" ] || scancel $ids`, { timeoutMs: 30_000 });
  }
  run.spur.down();
  if (process.env.SPUR_DIFFERENTIAL_KEEP !== "1") rmSync(run.slurmDir, { recursive: true, force: true });
}

/** Run one case on both sides at once and compare. */
export async function observe(run: Run, c: Case, tag: string): Promise<{ a: Observation; b: Observation; diffs: JudgedDiff[] }> {
  const name = `${run.token}-${tag}`;
  const [a, b] = await Promise.all([
    runCase(run.slurm, c, name, join(run.slurmDir, tag)),
    runCase(run.spur.side, c, name, join(run.spurDir, tag)),
  ]);
  const ctx = { slurm: { ...run.slurm.ctx, workDir: join(run.slurmDir, tag) }, spur: { ...run.spur.side.ctx, workDir: join(run.spurDir, tag) } };
  const skip = c.kind === "sbatch" && c.mode === "plain" ? RACY_WHEN_RUNNABLE : undefined;
  const diffs = compareObservations(a, b, ctx, skip).map((d): JudgedDiff => {
    const k = knownFor(c, d);
    return k ? { ...d, known: k.reason } : d;
  });
  return { a, b, diffs };
}

const verdictOf = (diffs: JudgedDiff[]): CaseVerdict => (diffs.length === 0 ? "identical" : diffs.every((d) => d.known) ? "known" : "new");

/** One seed, shrunk when it shows a new difference (unless `shrinkTries` is 0). */
export async function runSeed(run: Run, seed: number, shrinkTries: number): Promise<CaseResult> {
  const c = generateCase(seed);
  const { diffs } = await observe(run, c, `s${seed}`);
  const result: CaseResult = { seed, case: c, label: caseLabel(c), verdict: verdictOf(diffs), diffs };
  if (result.verdict !== "new" || shrinkTries === 0) return result;
  let n = 0;
  let last = diffs;
  const s = await shrink(c, async (v) => {
    const r = await observe(run, v, `s${seed}-k${++n}`);
    if (verdictOf(r.diffs) !== "new") return false;
    last = r.diffs;
    return true;
  }, shrinkTries);
  const r = render(s.case, `${run.token}-s${seed}`);
  result.shrunk = { case: s.case, label: caseLabel(s.case), command: r.cmd, ...(r.script ? { script: r.script } : {}), diffs: s.case === c ? diffs : last, tries: s.tries };
  return result;
}

/** Run seeds with `parallel` cases at a time; results in seed order. */
export async function runSeeds(run: Run, seeds: number[], opts: { parallel: number; shrinkTries: number; onResult?: (r: CaseResult) => void }): Promise<CaseResult[]> {
  const out: CaseResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < seeds.length) {
      const seed = seeds[next++] as number;
      const r = await runSeed(run, seed, opts.shrinkTries);
      opts.onResult?.(r);
      out.push(r);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.parallel) }, worker));
  return out.sort((x, y) => x.seed - y.seed);
}
