/**
 * @module tests/conformance/runner
 * Runs a group's steps on both sides at once (each side in order), then compares
 * every scenario's normalised capture and judges it against known-differences.ts:
 * identical, a listed known difference, newly differing, or listed but no longer
 * differing (stale). Also writes the JSON summary.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { KNOWN_DIFFERENCES, type KnownDifference } from "./known-differences.ts";
import { issueOf, WHY } from "./known/why.ts";
import { lineDiff, normalise, type Capture } from "./normalise.ts";
import type { CapStep, Group } from "./scenario.ts";
import { runOn, type Side } from "./side.ts";

export type Verdict = "identical" | "known" | "differing" | "stale" | "skipped";

export interface ScenarioResult {
  id: string;
  group: string;
  cmd: string;
  setup?: string;
  verdict: Verdict;
  diff: string[];
  known?: KnownDifference;
  slurm: Capture;
  spur: Capture;
  /** Why a known entry does not fit (its pinned diff changed), if so. */
  mismatch?: string;
  /** Judged "known" only because a Spur job hit the NODE_FAIL launch race in this group. */
  tainted?: boolean;
}

interface Taken {
  c: Capture;
  vars: Record<string, string>;
  /** The `pre` test failed on this side. */
  unmet?: boolean;
}

async function runSteps(side: Side, g: Group): Promise<Map<string, Taken>> {
  const caps = new Map<string, Taken>();
  for (const step of g.steps) {
    const timeoutMs = (step.timeoutS ?? 60) * 1000;
    if (step.kind === "cap" && step.pre !== undefined && (await runOn(side, step.pre, { timeoutMs })).code !== 0) {
      caps.set(step.id, { c: { code: -1, stdout: "", stderr: "" }, vars: { ...side.vars }, unmet: true });
      continue;
    }
    const opts = step.kind === "cap" && step.stdin !== undefined ? { timeoutMs, stdin: step.stdin } : { timeoutMs };
    const r = await runOn(side, step.cmd, opts);
    if (step.as) side.vars[step.as] = r.stdout.trim();
    if (step.kind === "cap") caps.set(step.id, { c: r, vars: { ...side.vars } });
  }
  return caps;
}

/** A side's context and its saved variables as they were when a scenario ran. */
export interface SideAt {
  ctx: Side["ctx"];
  vars: Record<string, string>;
}

const knownById = new Map(KNOWN_DIFFERENCES.map((k) => [k.id, k]));

/** Judge one scenario from the two captures. */
export function judge(step: CapStep, group: string, sides: { slurm: SideAt; spur: SideAt }, a: Capture, b: Capture): ScenarioResult {
  const how = step.compare ?? "text";
  const ids = step.ids ?? [];
  const diff = lineDiff(normalise(a, sides.slurm.ctx, how, sides.slurm.vars, ids), normalise(b, sides.spur.ctx, how, sides.spur.vars, ids));
  const known = knownById.get(step.id);
  const base = { id: step.id, group, cmd: step.cmd, ...(step.setup ? { setup: step.setup } : {}), diff, slurm: a, spur: b };
  if (diff.length === 0) return { ...base, verdict: known && !known.flaky ? "stale" : "identical", ...(known ? { known } : {}) };
  if (!known) return { ...base, verdict: "differing" };
  if (known.diff && known.diff.join("\n") !== diff.join("\n")) {
    return { ...base, verdict: "differing", known, mismatch: "the diff is not the one listed in known-differences.ts" };
  }
  return { ...base, verdict: "known", known };
}

/**
 * Raw ids of the jobs that ended NODE_FAIL on a side since `since` (nothing here
 * ever fails a node; on Spur it is the launch race listed as WHY.nodeFailRace).
 */
async function nodeFailIds(side: Side, since: string): Promise<string[]> {
  const cmd = `sacct -n -X -P -S ${since} -E now -o JobIDRaw,State 2>/dev/null | awk -F'|' '$2 ~ /NODE_FAIL/ {print $1}'`;
  const r = await runOn(side, cmd, { timeoutMs: 20_000 });
  return r.stdout.split("\n").filter((x) => /^\d+$/.test(x));
}

const NOW = "date +%Y-%m-%dT%H:%M:%S";

/** What the groups of one run share: the Spur jobs that hit the NODE_FAIL race so far. */
export interface RunState {
  spurNodeFails: Set<string>;
}

/** Did the race touch this scenario: in its group, or a job it shows, or a NODE_FAIL only Spur prints? */
function raceTouched(r: ScenarioResult, inGroup: boolean, st: RunState): boolean {
  if (inGroup) return true;
  const raw = `${r.spur.stdout}\n${r.spur.stderr}`;
  if ([...st.spurNodeFails].some((id) => new RegExp(`(?<!\\d)${id}(?!\\d)`).test(raw))) return true;
  return r.diff.some((l) => l.startsWith("+") && l.includes("NODE_FAIL")) && !r.diff.some((l) => l.startsWith("-") && l.includes("NODE_FAIL"));
}

/**
 * Run `g` on both sides concurrently and judge each scenario. A scenario that
 * newly differs where a Spur job hit the NODE_FAIL launch race (in this group,
 * or a job it shows) is reported as that known bug ("tainted") instead of failing.
 */
export async function runGroup(g: Group, slurm: Side, spur: Side, st: RunState = { spurNodeFails: new Set() }): Promise<ScenarioResult[]> {
  const since = (await runOn(spur, NOW)).stdout.trim();
  const [a, b] = await Promise.all([runSteps(slurm, g), runSteps(spur, g)]);
  const [failsA, failsB] = await Promise.all([nodeFailIds(slurm, since), nodeFailIds(spur, since)]);
  const inGroup = failsB.length > 0 && failsA.length === 0;
  for (const id of failsB) st.spurNodeFails.add(id);
  const out: ScenarioResult[] = [];
  for (const step of g.steps) {
    if (step.kind !== "cap") continue;
    const ca = a.get(step.id) as Taken;
    const cb = b.get(step.id) as Taken;
    if (ca.unmet || cb.unmet) {
      const where = ca.unmet ? "real Slurm" : "Spur";
      out.push({ id: step.id, group: g.name, cmd: step.cmd, verdict: "skipped", diff: [], slurm: ca.c, spur: cb.c, mismatch: `precondition not met on ${where}: ${step.preWhy ?? step.pre}` });
      continue;
    }
    const r = judge(step, g.name, { slurm: { ctx: slurm.ctx, vars: ca.vars }, spur: { ctx: spur.ctx, vars: cb.vars } }, ca.c, cb.c);
    if (r.verdict !== "differing" || !raceTouched(r, inGroup, st)) {
      out.push(r);
      continue;
    }
    const known = { id: step.id, differs: `Spur job(s) ${[...st.spurNodeFails].join(",")} ended NODE_FAIL`, why: WHY.nodeFailRace };
    out.push({ ...r, verdict: "known", known, tainted: true });
  }
  return out;
}

/** Human-readable failure text for one scenario. */
export function explain(r: ScenarioResult): string {
  const head = `${r.id}: ${r.cmd}${r.setup ? `\n  setup: ${r.setup}` : ""}`;
  if (r.verdict === "stale") return `${head}\n  listed in known-differences.ts but now identical: remove the entry`;
  const why = r.mismatch ? `\n  ${r.mismatch}` : "";
  return `${head}${why}\n  diff (- real Slurm, + Spur):\n${r.diff.map((l) => `    ${l}`).join("\n")}`;
}

export interface Summary {
  total: number;
  identical: number;
  known_differences: number;
  differing: number;
  stale: number;
  skipped: number;
  /** Of known_differences: judged known only because of the NODE_FAIL launch race. */
  tainted: number;
  identical_share: number;
  seconds: number;
  scenarios: { id: string; group: string; verdict: Verdict; cmd: string; why?: string; issue?: number; diff?: string[]; tainted?: boolean }[];
}

export function summarise(results: ScenarioResult[], seconds: number): Summary {
  const count = (v: Verdict) => results.filter((r) => r.verdict === v).length;
  const compared = results.filter((r) => r.verdict !== "skipped");
  const total = compared.length;
  return {
    total,
    identical: count("identical"),
    known_differences: count("known"),
    differing: count("differing"),
    stale: count("stale"),
    skipped: count("skipped"),
    tainted: results.filter((r) => r.tainted).length,
    identical_share: total === 0 ? 0 : Math.round((count("identical") / total) * 1000) / 10,
    seconds: Math.round(seconds),
    scenarios: results.map((r) => ({
      id: r.id,
      group: r.group,
      verdict: r.verdict,
      cmd: r.cmd,
      ...(r.known ? { why: r.known.why } : r.mismatch ? { why: r.mismatch } : {}),
      ...(r.known && issueOf(r.known) !== undefined ? { issue: issueOf(r.known) } : {}),
      ...(r.tainted ? { tainted: true } : {}),
      ...(r.diff.length > 0 ? { diff: r.diff } : {}),
    })),
  };
}

/** Per-group table printed at the end of the run. */
export function table(results: ScenarioResult[]): string {
  const groups = [...new Set(results.map((r) => r.group))];
  const rows = groups.map((g) => {
    const rs = results.filter((r) => r.group === g);
    const n = (v: Verdict) => rs.filter((r) => r.verdict === v).length;
    return `${g.padEnd(40)} ${String(rs.length).padStart(5)} ${String(n("identical")).padStart(9)} ${String(n("known")).padStart(6)} ${String(n("differing") + n("stale")).padStart(9)}`;
  });
  return [`${"group".padEnd(40)} ${"total".padStart(5)} ${"identical".padStart(9)} ${"known".padStart(6)} ${"differing".padStart(9)}`, ...rows].join("\n");
}

export function writeSummary(path: string, s: Summary): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(s, null, 2)}\n`);
}
