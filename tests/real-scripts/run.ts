/**
 * @module tests/real-scripts/run
 * Command-line runner: `bun tests/real-scripts/run.ts [--only scripts|commands] [--match RE] [--parallel N] [--commands FILE]`
 * runs the corpus on the oracle and Spur (SPUR_ORACLE_UP=1 uses the running oracle),
 * prints each differing case and the agreement, and writes reports/real-scripts.json
 * (SPUR_REAL_REPORT moves it). Exit 1 when a difference is not listed in known.ts. `--commands FILE`
 * reads command lines from FILE (commands.txt's form) instead of commands.txt: generated lists,
 * e.g. one line per format field, tried on both sides before any joins the corpus.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { oracleUp } from "../conformance/clusters.ts";
import { endRun, startRun } from "../differential/session.ts";
import { loadCommands, loadScripts, type RealCase } from "./corpus.ts";
import { explainReal, runAll, summarise } from "./session.ts";

const arg = (n: string): string | undefined => {
  const i = process.argv.indexOf(n);
  return i < 0 ? undefined : process.argv[i + 1];
};
const only = arg("--only");
const match = arg("--match");
const parallel = Number(arg("--parallel") ?? 3);
const report = process.env.SPUR_REAL_REPORT ?? resolve(__dirname, "../../reports/real-scripts.json");

const commandsFile = arg("--commands");
let cases: RealCase[] = [...(only === "commands" ? [] : loadScripts()), ...(only === "scripts" ? [] : loadCommands(commandsFile === undefined ? undefined : resolve(commandsFile)))];
if (match) cases = cases.filter((c) => new RegExp(match).test(c.kind === "script" ? c.name : c.cmd));

const down = oracleUp();
if (down !== undefined) throw new Error(down);
const t0 = Date.now();
const run = await startRun();
let results;
try {
  results = await runAll(run, cases, parallel, (r) => {
    if (r.verdict !== "identical") console.log(`${r.verdict === "new" ? "NEW  " : "known"} ${explainReal(r)}`);
  });
} finally {
  await endRun(run);
}
const rep = summarise(results, Math.round((Date.now() - t0) / 1000));
mkdirSync(dirname(report), { recursive: true });
writeFileSync(report, `${JSON.stringify(rep, null, 2)}\n`);
console.log(JSON.stringify({ scripts: rep.scripts, commands: rep.commands, per_field: Object.fromEntries(Object.entries(rep.per_field).slice(0, 25)) }, null, 1));
console.log(`real-scripts: ${rep.scripts.record_identical}/${rep.scripts.total} script job records identical (${rep.scripts.record_share}%), ${rep.commands.identical}/${rep.commands.total} command lines identical (${rep.commands.share}%); ${rep.seconds} s; ${report}`);
process.exit(rep.scripts.new + rep.commands.new > 0 ? 1 : 0);
