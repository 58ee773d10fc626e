/**
 * @module tests/differential/differential.test
 * The generative differential test (docs/differential.md): a fixed budget of seeds, each a
 * random sbatch submission or query run on the real Slurm 22.05 oracle and on Spur with the
 * same site; a case passes when every field agrees or each difference is listed in
 * known.ts. A failing case prints its seed and its shrunk form. Skipped without an oracle.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oracleAvailable, oracleUp } from "../conformance/clusters.ts";
import { envBudget, PARALLEL, REPORT_PATH, seedsOf, SHRINK_TRIES } from "./options.ts";
import { explain, optionTable, summarise, writeReport } from "./report.ts";
import { endRun, runSeeds, startRun, type CaseResult, type Run } from "./session.ts";

describe.skipIf(!oracleAvailable())("differential: generated cases on real Slurm 22.05 and Spur", () => {
  const budget = envBudget();
  let run: Run | undefined;
  let results: CaseResult[] = [];
  const started = Date.now();

  beforeAll(async () => {
    const down = oracleUp();
    if (down !== undefined) throw new Error(down);
    run = await startRun();
    results = await runSeeds(run, seedsOf(budget), { parallel: PARALLEL, shrinkTries: SHRINK_TRIES });
  }, 1_200_000);

  afterAll(async () => {
    if (run) await endRun(run);
    if (results.length === 0) return;
    const rep = summarise(results, `${budget.first}..${budget.first + budget.count - 1}`, (Date.now() - started) / 1000);
    writeReport(REPORT_PATH, rep);
    console.log(`${optionTable(rep)}\ndifferential: ${rep.cases} cases, ${rep.identical} identical (${rep.identical_share}%), ${rep.known} known, ${rep.new} new; ${rep.seconds} s; ${REPORT_PATH}`);
  }, 120_000);

  it(`seeds ${budget.first}..${budget.first + budget.count - 1}: no new difference from real Slurm`, () => {
    expect(results.length).toBe(budget.count);
    const failing = results.filter((r) => r.verdict === "new");
    expect(failing.length, failing.map(explain).join("\n\n")).toBe(0);
  });
});
