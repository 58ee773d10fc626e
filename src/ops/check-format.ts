/**
 * @module ops/check-format
 * The two faces of a `spur check` report: text for a person (per script, its verdict and
 * one line per finding, then the summary table) and JSON for tooling (the CheckReport
 * itself, stable field names, one trailing newline).
 */
import type { CheckReport, Finding, ScriptReport, Verdict } from "./check.ts";

const VERDICT_TEXT: Record<Verdict, string> = {
  unchanged: "runs unchanged",
  warnings: "runs with warnings",
  fails: "will not run",
};

const SEVERITY_TEXT: Record<Finding["severity"], string> = { info: "note", warn: "warning", error: "error" };

function findingLine(f: Finding): string {
  const where = f.line === 0 ? "script" : `line ${f.line}`;
  return `  ${where}: ${SEVERITY_TEXT[f.severity]}: ${f.message}\n`;
}

function scriptBlock(s: ScriptReport): string {
  return `${s.path}: ${VERDICT_TEXT[s.verdict]}\n${s.findings.map(findingLine).join("")}`;
}

/** The human-readable report. */
export function formatCheckReport(report: CheckReport): string {
  const { total, unchanged, warnings, fails } = report.summary;
  const rows: [string, number][] = [
    ["run unchanged", unchanged],
    ["run with warnings", warnings],
    ["will not run", fails],
    ["total", total],
  ];
  const width = Math.max(...rows.map(([label]) => label.length));
  const numWidth = Math.max(...rows.map(([, n]) => String(n).length));
  const table = rows.map(([label, n]) => `  ${label.padEnd(width)}  ${String(n).padStart(numWidth)}\n`).join("");
  const blocks = report.scripts.map(scriptBlock).join("");
  return `${blocks}${blocks === "" ? "" : "\n"}Summary (${total} script${total === 1 ? "" : "s"}):\n${table}`;
}

/** The --json form: the report as is. */
export const checkReportJson = (report: CheckReport): string => `${JSON.stringify(report, null, 2)}\n`;
