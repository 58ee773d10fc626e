/**
 * The layering of docs/architecture.md, enforced on today's src/: no forbidden folder edge,
 * no import cycle, no eager import where a lazy one is required and no impure code in a pure
 * folder, except the debt listed in tests/architecture/known-debt.json. The list may only
 * shrink: a new violation fails, and so does a listed one that is gone (remove it). After a
 * merge or a fix: `bun scripts/arch-report.ts --write-debt`, then review the diff.
 * The fixture tests below show each rule catching a planted violation.
 */
import { describe, expect, test } from "vitest";
import { type Rules, check, compareDebt } from "../architecture/check.ts";
import { buildGraph, cycles, extractImports, folderEdges, functionLengths } from "../architecture/graph.ts";
import { RULES, loadSources, readDebt } from "../architecture/load.ts";

describe("src/ against the layering and the debt list", () => {
  const sources = loadSources("src");
  const graph = buildGraph(sources);
  const found = check(graph, sources, RULES);
  const diff = compareDebt(found, readDebt());

  test("every relative import resolves to a file", () => {
    expect(graph.unresolved).toEqual([]);
    expect(graph.files.length).toBeGreaterThan(100); // the scan did read src/
  });
  test("no new violation (forbidden folder edge, cycle, eager edge, impure use)", () => {
    expect(diff.added, "new architecture violations; see docs/architecture.md").toEqual([]);
  });
  test("no stale debt: a paid item is removed from known-debt.json", () => {
    expect(diff.stale, "run `bun scripts/arch-report.ts --write-debt` and commit the smaller list").toEqual([]);
  });
  test("every unit named in the rules has an allow-list, and every file of src/ a unit", () => {
    for (const u of RULES.units) expect(RULES.allowed[u], u).toBeDefined();
    for (const e of folderEdges(graph, RULES.units)) expect(e.from, `${e.files[0]?.from} has no unit`).not.toBe("src");
  });
});

// A five-file fixture: lib <- core <- shell, with the rules below.
const FIXTURE_RULES: Rules = {
  units: ["src/lib", "src/core", "src/shell", "src/main.ts"],
  allowed: { "src/lib": [], "src/core": ["src/lib"], "src/shell": ["src/lib", "src/core"], "src/main.ts": ["src/shell"] },
  lazyOnly: [{ from: "src/main.ts", to: "src/shell" }],
  pureUnits: ["src/lib", "src/core"],
  shellFilesInPure: {},
  impureModules: RULES.impureModules,
  impureGlobals: RULES.impureGlobals,
};
const CLEAN: Record<string, string> = {
  "src/lib/a.ts": `export const a = 1;\n`,
  "src/core/b.ts": `import { a } from "../lib/a.ts";\nimport type { C } from "./c.ts";\nexport const b = a;\n`,
  "src/core/c.ts": `export type C = number; // import { b } from "./b.ts" in a comment is no edge\n`,
  "src/shell/d.ts": `import { readFileSync } from "node:fs";\nimport { b } from "../core/b.ts";\nexport const d = () => Date.now() + b + readFileSync("x").length;\n`,
  "src/main.ts": `export const run = async () => (await import("./shell/d.ts")).d();\n`,
};
const findingsOf = (files: Record<string, string>) => {
  const m = new Map(Object.entries(files));
  return check(buildGraph(m), m, FIXTURE_RULES);
};

describe("the rules catch planted violations (fixture graph)", () => {
  test("the clean fixture has no findings", () => {
    expect(findingsOf(CLEAN)).toEqual({ backEdges: [], cycles: [], impure: [], eager: [] });
  });
  test("a planted back-edge (core imports shell) is caught, type-only too", () => {
    const f = findingsOf({ ...CLEAN, "src/core/c.ts": `import type { d } from "../shell/d.ts";\nexport type C = typeof d;\n` });
    expect(f.backEdges).toEqual(["src/core/c.ts -> src/shell/d.ts"]);
  });
  test("a planted cycle (b -> c -> b, type-only edge included) is caught", () => {
    const f = findingsOf({ ...CLEAN, "src/core/c.ts": `import { b } from "./b.ts";\nexport type C = typeof b;\n` });
    expect(f.cycles).toEqual(["src/core/b.ts, src/core/c.ts"]);
  });
  test("a lazy import does not make a cycle, an eager one where lazy is required is caught", () => {
    const lazy = findingsOf({ ...CLEAN, "src/core/c.ts": `export const c = async () => (await import("./b.ts")).b;\n` });
    expect(lazy.cycles).toEqual([]);
    const eager = findingsOf({ ...CLEAN, "src/main.ts": `import { d } from "./shell/d.ts";\nexport const run = d;\n` });
    expect(eager.eager).toEqual(["src/main.ts -> src/shell/d.ts"]);
  });
  test("impure modules and globals in a pure folder are caught; strings and comments are not", () => {
    const f = findingsOf({
      ...CLEAN,
      "src/lib/a.ts": `import { readFileSync } from "node:fs";\n// Date.now() in a comment\nexport const a = process.env.X ?? Math.random() + "Bun.file(" + setTimeout(() => 0, 1);\n`,
    });
    expect(f.impure).toEqual(["src/lib/a.ts: Math.random", "src/lib/a.ts: node:fs", "src/lib/a.ts: process", "src/lib/a.ts: timers"]);
  });
  test("the debt list passes today's debt, fails a new item and a stale one", () => {
    const bad = findingsOf({ ...CLEAN, "src/core/c.ts": `import { b } from "./b.ts";\nexport type C = typeof b;\n` });
    expect(compareDebt(bad, bad)).toEqual({ added: [], stale: [] });
    expect(compareDebt(bad, { backEdges: [], cycles: [], impure: [], eager: [] }).added).toEqual(["cycles: src/core/b.ts, src/core/c.ts"]);
    expect(compareDebt(findingsOf(CLEAN), bad).stale).toEqual(["cycles: src/core/b.ts, src/core/c.ts"]);
  });
});

describe("Spur's own rules on a planted graph", () => {
  const files = (sched: string) => new Map(Object.entries({
    "src/net/gen/spur/v1/types_pb.ts": `export type JobInfo = { jobId: number };\n`,
    "src/sched/model/state-types.ts": `export interface JobInfoState { jobId: number }\n`,
    "src/sched/model/types.ts": sched,
    "src/ctld/wire-map.ts": `import type { JobInfo } from "../net/gen/spur/v1/types_pb.ts";\nimport type { JobInfoState } from "../sched/model/state-types.ts";\nexport const toWire = (s: JobInfoState): JobInfo => s;\n`,
  }));
  const backEdges = (sched: string) => check(buildGraph(files(sched)), files(sched), RULES).backEdges;
  test("sched may not import the generated wire types (issue 17), not even type-only; ctld may", () => {
    expect(backEdges(`import type { JobInfoState } from "./state-types.ts";\nexport type R = { info: JobInfoState };\n`)).toEqual([]);
    expect(backEdges(`import type { JobInfo } from "../../net/gen/spur/v1/types_pb.ts";\nexport type R = { info: JobInfo };\n`))
      .toEqual(["src/sched/model/types.ts -> src/net/gen/spur/v1/types_pb.ts"]);
  });
});

describe("graph primitives", () => {
  test("import forms: multi-line, all-type specifiers, export-from, side effect, regex with quotes, text files", () => {
    const text = [
      `import page from "./page.html" with { type: "text" };`,
      `import {\n  type A,\n  type B,\n} from "./t.ts";`,
      `import { type C, d } from "./u.ts";`,
      `export * from "./v.ts";`,
      `export type { E } from "./w.ts";`,
      `import "./x.ts";`,
      `const re = /["'\`]/; const s = 'import { z } from "./nope.ts"';`,
      `const m = await import("./y.ts");`,
    ].join("\n");
    expect(extractImports("src/a.ts", text)).toEqual([
      { spec: "./t.ts", kind: "type" },
      { spec: "./u.ts", kind: "value" },
      { spec: "./v.ts", kind: "value" },
      { spec: "./w.ts", kind: "type" },
      { spec: "./x.ts", kind: "value" },
      { spec: "./y.ts", kind: "dynamic" },
    ]);
  });
  test("Tarjan finds two separate cycles and ignores a chain", () => {
    const g = {
      files: ["a", "b", "c", "d", "e", "f"],
      edges: [["a", "b"], ["b", "a"], ["c", "d"], ["d", "e"], ["e", "c"], ["e", "f"]].map(([from = "", to = ""]) => ({ from, to, kind: "value" as const, external: false })),
      unresolved: [],
    };
    expect(cycles(g)).toEqual([["c", "d", "e"], ["a", "b"]]);
  });
  test("function lengths count from the opening line to the closing brace", () => {
    const text = `export function f(x: number) {\n  if (x) {\n    return "}";\n  }\n  return 0;\n}\nconst g = (y: string) => {\n  return y;\n};\n`;
    expect(functionLengths("a.ts", text).map((l) => [l.name, l.lines])).toEqual([["f", 6], ["g", 3]]);
  });
});
