/**
 * @module tests/differential/soak
 * More seeds than CI runs: `bun tests/differential/soak.ts --cases N [--seed FIRST] [--parallel K] [--no-shrink] [--no-build]`.
 * Needs the oracle up (SPUR_ORACLE_UP=1 says it is; otherwise clusters.ts brings it up) and
 * builds dist/spur first. Writes reports/differential.json (or SPUR_DIFFERENTIAL_REPORT),
 * prints the per-option table and each failing seed; exit 1 if any case newly differs.
 */
import { spawnSync } from "node:child_process";
import { oracleUp } from "../conformance/clusters.ts";
import { CI_FIRST_SEED, PARALLEL, REPORT_PATH, seedsOf, SHRINK_TRIES } from "./options.ts";
import { explain, optionTable, summarise, writeReport } from "./report.ts";
import { endRun, runSeeds, startRun } from "./session.ts";

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? undefined : process.argv[i + 1];
}

const count = Number(arg("cases") ?? 200);
const first = Number(arg("seed") ?? CI_FIRST_SEED);
const parallel = Number(arg("parallel") ?? PARALLEL);
const shrinkTries = process.argv.includes("--no-shrink") ? 0 : SHRINK_TRIES;

// --no-build: run the dist/spur already there (e.g. another commit's binary, for before/after figures)
if (!process.argv.includes("--no-build")) {
  const build = spawnSync(process.execPath, ["scripts/build-binary.ts"], { stdio: "inherit", cwd: `${__dirname}/../..` });
  if (build.status !== 0) throw new Error("building dist/spur failed");
}
const down = oracleUp();
if (down !== undefined) throw new Error(down);
const started = Date.now();
const run = await startRun();
let done = 0;
try {
  const results = await runSeeds(run, seedsOf({ first, count }), {
    parallel,
    shrinkTries,
    onResult: (r) => {
      done++;
      if (r.verdict === "new") console.log(`\n${explain(r)}`);
      else if (done % 10 === 0) console.log(`${done}/${count} cases`);
    },
  });
  const rep = summarise(results, `${first}..${first + count - 1}`, (Date.now() - started) / 1000);
  writeReport(REPORT_PATH, rep);
  console.log(`${optionTable(rep)}\n\nper field (differ / new):\n${Object.entries(rep.per_field).slice(0, 40).map(([f, t]) => `  ${f}: ${t.differ} / ${t.new}`).join("\n")}`);
  console.log(`\ndifferential: ${rep.cases} cases (seeds ${rep.seeds}), ${rep.identical} identical (${rep.identical_share}%), ${rep.known} known, ${rep.new} new; ${rep.seconds} s; ${REPORT_PATH}`);
  process.exitCode = rep.new > 0 ? 1 : 0;
} finally {
  await endRun(run);
}
