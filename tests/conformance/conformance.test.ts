/**
 * @module tests/conformance/conformance.test
 * The differential suite: every group runs on the real Slurm 22.05 oracle and on
 * a Spur cluster of the same shape at once; each scenario must be identical after
 * masks.ts, or be listed (and still differ) in known-differences.ts. Skipped where
 * no real Slurm can be had (not root, no packages and no apt-get).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolve } from "node:path";
import { oracleAvailable, oracleNextJobId, oracleSide, oracleUp, spurUp, type SpurCluster } from "./clusters.ts";
import { explain, runGroup, summarise, table, writeSummary, type RunState, type ScenarioResult } from "./runner.ts";
import { capIds } from "./scenario.ts";
import { GROUPS } from "./scenarios/index.ts";
import type { Side } from "./side.ts";

const REPORT = process.env.SPUR_CONFORMANCE_REPORT ?? resolve(__dirname, "../../reports/conformance.json");

describe.skipIf(!oracleAvailable())("conformance: real Slurm 22.05 vs Spur", () => {
  let slurm: Side | undefined;
  let spur: SpurCluster | undefined;
  let unavailable: string | undefined;
  const results: ScenarioResult[] = [];
  const runState: RunState = { spurNodeFails: new Set() };
  const started = Date.now();

  beforeAll(async () => {
    unavailable = oracleUp();
    if (unavailable !== undefined) {
      // CI said the oracle is up: then not reaching it is a failure, not a skip
      if (process.env.SPUR_ORACLE_UP === "1") throw new Error(unavailable);
      console.warn(`conformance skipped: ${unavailable}`);
      return;
    }
    slurm = oracleSide();
    spur = await spurUp(oracleNextJobId());
  }, 300_000);

  afterAll(() => {
    spur?.down();
    if (results.length === 0) return;
    const s = summarise(results, (Date.now() - started) / 1000);
    writeSummary(REPORT, s);
    console.log(`${table(results)}\nidentical to real Slurm: ${s.identical}/${s.total} (${s.identical_share}%), known differences ${s.known_differences} (${s.tainted} only by the NODE_FAIL race), differing ${s.differing}, stale ${s.stale}, skipped ${s.skipped}; ${s.seconds} s; ${REPORT}`);
  }, 60_000);

  for (const g of GROUPS) {
    describe(g.name, () => {
      const byId = new Map<string, ScenarioResult>();
      beforeAll(async () => {
        if (!slurm || !spur) return;
        for (const r of await runGroup(g, slurm, spur.side, runState)) {
          byId.set(r.id, r);
          results.push(r);
        }
      }, 300_000);
      for (const id of capIds(g)) {
        it(id, (ctx) => {
          if (unavailable !== undefined) ctx.skip();
          const r = byId.get(id);
          expect(r, `${id} did not run`).toBeDefined();
          if (!r) return;
          if (r.verdict === "skipped") {
            console.warn(`${id} skipped: ${r.mismatch}`);
            ctx.skip();
          }
          expect(r.verdict === "identical" || r.verdict === "known", explain(r)).toBe(true);
        });
      }
    });
  }
});
