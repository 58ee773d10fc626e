/**
 * @module tests/conformance/doc-known
 * Maintenance tool: `bun tests/conformance/doc-known.ts` rewrites the section
 * "Every known difference" of docs/conformance.md from known/*.ts, grouped by
 * the shared cause (known/why.ts) each entry starts with, so the document never
 * lists an entry the suite no longer has.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { KNOWN_DIFFERENCES } from "./known-differences.ts";
import { issueOf, WHY } from "./known/why.ts";

const DOC = resolve(__dirname, "../../docs/conformance.md");
const HEADING = "## Every known difference (tests/conformance/known/*.ts), by cause";

const cell = (s: string): string => s.replace(/\|/g, "\\|");

/** The shared cause an entry's reason starts with, and the rest of its reason. */
function causeOf(why: string): { key: string; rest: string } {
  for (const [key, text] of Object.entries(WHY)) {
    if (why.startsWith(text)) return { key, rest: why.slice(text.length).trim() };
  }
  return { key: "other", rest: why };
}

export function knownSection(): string {
  const groups = new Map<string, string[]>();
  for (const k of KNOWN_DIFFERENCES) {
    const { key, rest } = causeOf(k.why);
    const flags = [k.pinned === false ? "not pinned" : "", k.flaky ? "may come out identical" : ""].filter((f) => f !== "").join(", ");
    const more = [rest, flags ? `(${flags})` : ""].filter((s) => s !== "").join(" ");
    const rows = groups.get(key) ?? [];
    const issue = issueOf(k);
    rows.push(`| \`${k.id}\` | ${issue === undefined ? "22.05 vs 26.x" : `#${issue}`} | ${cell(k.differs)} | ${cell(more)} |`);
    groups.set(key, rows);
  }
  const parts = [HEADING, "", `${KNOWN_DIFFERENCES.length} entries.`];
  for (const [key, rows] of groups) {
    parts.push("", `### ${key}`, "");
    if (key !== "other") parts.push(`${WHY[key as keyof typeof WHY]}.`, "");
    parts.push("| scenario | issue | what differs | more |", "|---|---|---|---|", ...rows);
  }
  return `${parts.join("\n")}\n`;
}

if (import.meta.main) {
  const doc = readFileSync(DOC, "utf8");
  const at = doc.indexOf(HEADING);
  if (at < 0) throw new Error(`no "${HEADING}" in ${DOC}`);
  const next = doc.indexOf("\n## ", at + HEADING.length);
  writeFileSync(DOC, doc.slice(0, at) + knownSection() + (next < 0 ? "" : doc.slice(next + 1)));
  console.log(`rewrote the known-differences section of ${DOC}`);
}
