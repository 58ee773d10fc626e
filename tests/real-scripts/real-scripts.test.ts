/**
 * @module tests/real-scripts/real-scripts.test
 * Real batch scripts and client command lines (issue 15, docs/real-scripts.md): every
 * corpus script submitted with --hold and every command line run on the real Slurm 22.05
 * oracle and on Spur with the same site; a case passes when every field agrees or each
 * difference is listed in known.ts. Skipped without an oracle.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { oracleAvailable, oracleUp } from "../conformance/clusters.ts";
import { endRun, startRun, type Run } from "../differential/session.ts";
import { loadCommands, loadScripts } from "./corpus.ts";
import { explainReal, runAll, summarise, type RealResult } from "./session.ts";

const REPORT = process.env.SPUR_REAL_REPORT ?? resolve(__dirname, "../../reports/real-scripts.json");
const PARALLEL = 3;

describe.skipIf(!oracleAvailable())("real scripts and client command lines on real Slurm 22.05 and Spur", () => {
  const cases = [...loadScripts(), ...loadCommands()];
  let run: Run | undefined;
  let results: RealResult[] = [];
  const started = Date.now();

  beforeAll(async () => {
    const down = oracleUp();
    if (down !== undefined) throw new Error(down);
    run = await startRun();
    results = await runAll(run, cases, PARALLEL);
  }, 900_000);

  afterAll(async () => {
    if (run) await endRun(run);
    if (results.length === 0) return;
    const rep = summarise(results, Math.round((Date.now() - started) / 1000));
    mkdirSync(dirname(REPORT), { recursive: true });
    writeFileSync(REPORT, `${JSON.stringify(rep, null, 2)}\n`);
    console.log(`real-scripts: ${rep.scripts.record_identical}/${rep.scripts.total} script job records identical (${rep.scripts.record_share}%), `
      + `${rep.commands.identical}/${rep.commands.total} command lines identical (${rep.commands.share}%), ${rep.scripts.known + rep.commands.known} known, `
      + `${rep.scripts.new + rep.commands.new} new; ${rep.seconds} s; ${REPORT}`);
  }, 120_000);

  it("every corpus case agrees with real Slurm or differs only as known.ts lists", () => {
    expect(results.length).toBe(cases.length);
    const failing = results.filter((r) => r.verdict === "new");
    expect(failing.length, failing.map(explainReal).join("\n\n")).toBe(0);
  });
});
