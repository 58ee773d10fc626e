/**
 * @module tests/conformance/pin-diffs
 * Maintenance tool: `bun tests/conformance/pin-diffs.ts [reports/conformance.json]`
 * copies the current diff of every pinned known difference from a report into
 * known/pinned-diffs.json (dropping pins of entries no longer pinned or listed)
 * and prints which pins changed, for review in git.
 * New entries still have to be written by hand in known/*.ts, with their reason.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { KNOWN_DIFFERENCES, PINNED_DIFFS_PATH } from "./known-differences.ts";

const reportPath = process.argv[2] ?? resolve(__dirname, "../../reports/conformance.json");
const report = JSON.parse(readFileSync(reportPath, "utf8")) as { scenarios: { id: string; diff?: string[]; tainted?: boolean }[] };
// a scenario the NODE_FAIL race touched does not show its usual diff: never pin from it
const current = new Map(report.scenarios.filter((s) => !s.tainted).map((s) => [s.id, s.diff ?? []]));
const pins = JSON.parse(readFileSync(PINNED_DIFFS_PATH, "utf8")) as Record<string, string[]>;
const unpinned = new Set(KNOWN_DIFFERENCES.filter((k) => k.pinned === false).map((k) => k.id));
for (const id of Object.keys(pins)) if (unpinned.has(id) || !KNOWN_DIFFERENCES.some((k) => k.id === id)) delete pins[id];
for (const k of KNOWN_DIFFERENCES) {
  if (k.pinned === false) continue;
  const now = current.get(k.id);
  if (now === undefined || now.length === 0) continue;
  if ((pins[k.id] ?? []).join("\n") !== now.join("\n")) {
    console.log(`re-pinned ${k.id}`);
    pins[k.id] = now;
  }
}
const sorted = Object.fromEntries(Object.entries(pins).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(PINNED_DIFFS_PATH, `${JSON.stringify(sorted, null, 1)}\n`);
