/**
 * @module scripts/arch-report
 * Prints the architecture figures the closing notes quote before/after: import cycles
 * (strongly connected components of more than one file, over static value and type-only
 * imports; lazy `await import` excluded) and the files in them, folder back-edges (file
 * imports that break the layering of tests/architecture/rules.ts, summed per folder pair),
 * impure uses in pure folders, and the 10 longest functions.
 *
 *   bun scripts/arch-report.ts               figures
 *   bun scripts/arch-report.ts --json        the same as JSON
 *   bun scripts/arch-report.ts --write-debt  rewrite tests/architecture/known-debt.json from today's code
 *
 * Function length is a rough scan (tests/architecture/graph.ts functionLengths): a line that
 * starts a `function name` or `const name = (...) =>` / `function` opens a function, and it
 * ends where the brace depth (comments and strings blanked) falls back; lines from the
 * opening line to the closing brace, blank and comment lines included. Methods and
 * anonymous callbacks count toward the named function that holds them.
 */
import { backEdgeFolders, check, compareDebt } from "../tests/architecture/check.ts";
import { buildGraph, cycles, functionLengths } from "../tests/architecture/graph.ts";
import { RULES, loadSources, readDebt, writeDebt } from "../tests/architecture/load.ts";

const sources = loadSources("src");
const graph = buildGraph(sources);
const found = check(graph, sources, RULES);

if (process.argv.includes("--write-debt")) {
  writeDebt(found);
  console.log(
    `wrote tests/architecture/known-debt.json: ${found.backEdges.length} back-edges, ${found.cycles.length} cycles, ` +
      `${found.impure.length} impure uses, ${found.eager.length} eager edges`,
  );
  process.exit(0);
}

const cycleFiles = found.cycles.reduce((n, c) => n + c.split(", ").length, 0);
const folders = backEdgeFolders(found, RULES.units);
const longest = [...sources]
  .flatMap(([f, t]) => functionLengths(f, t))
  .sort((a, b) => b.lines - a.lines || a.file.localeCompare(b.file))
  .slice(0, 10);
const typeEdges = graph.edges.filter((e) => !e.external && e.kind === "type").length;
const valueEdges = graph.edges.filter((e) => !e.external && e.kind === "value").length;
const lazyEdges = graph.edges.filter((e) => !e.external && e.kind === "dynamic").length;
const diff = compareDebt(found, readDebt());

if (process.argv.includes("--json")) {
  console.log(JSON.stringify({ files: graph.files.length, cycles: found.cycles.length, cycleFiles, backEdges: found.backEdges.length, backEdgeFolders: Object.fromEntries(folders), impure: found.impure.length, eager: found.eager.length, longest, debt: diff }, null, 2));
  process.exit(0);
}

const out: string[] = [];
out.push(`files: ${graph.files.length} in src/; internal imports: ${valueEdges} value, ${typeEdges} type-only, ${lazyEdges} lazy`);
const runtime = cycles(graph, true);
out.push(`import cycles: ${found.cycles.length} (files in them: ${cycleFiles}); counting value imports only: ${runtime.length} (files: ${runtime.flat().length})`);
for (const c of found.cycles) {
  const files = c.split(", ");
  out.push(`  ${files.length} files: ${files.length > 6 ? `${files.slice(0, 6).join(", ")}, ...` : c}`);
}
out.push(`folder back-edges: ${folders.size} folder pairs, ${found.backEdges.length} file imports`);
for (const [k, n] of folders) out.push(`  ${k}  (${n})`);
out.push(`impure uses in pure folders: ${found.impure.length}`);
for (const x of found.impure) out.push(`  ${x}`);
out.push(`eager imports that must be lazy: ${found.eager.length}`);
for (const x of found.eager) out.push(`  ${x}`);
out.push("longest functions (lines, rough brace scan):");
for (const f of longest) out.push(`  ${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);
out.push(`against known-debt.json: ${diff.added.length} new, ${diff.stale.length} stale`);
console.log(out.join("\n"));
