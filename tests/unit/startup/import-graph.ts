/**
 * @module tests/unit/startup/import-graph
 * What a module loads before its first line runs: the value-import closure of the one
 * import-graph reader (tests/architecture/graph.ts; the architecture check reads the same
 * graph). `import type`, all-type named imports and dynamic `import()` do not count
 * (nothing is loaded for them).
 */
import { buildGraph, extractImports } from "../../architecture/graph.ts";
import { loadSources, REPO } from "../../architecture/load.ts";

export const ROOT = REPO;

/** Specifiers a file loads statically (value imports, re-exports and bare imports). */
export function staticImports(text: string): string[] {
  return extractImports("", text).filter((e) => e.kind === "value").map((e) => e.spec);
}

let valueEdges: Map<string, string[]> | undefined;

/** src/ file -> what it loads statically (resolved paths; packages and builtins as written). */
function edges(): Map<string, string[]> {
  if (valueEdges !== undefined) return valueEdges;
  const graph = buildGraph(loadSources("src"));
  if (graph.unresolved.length > 0) {
    const u = graph.unresolved[0]!;
    throw new Error(`${u.from}: import "${u.spec}" not found`);
  }
  valueEdges = new Map(graph.files.map((f) => [f, [] as string[]]));
  for (const e of graph.edges) if (e.kind === "value") valueEdges.get(e.from)?.push(e.to);
  return valueEdges;
}

/** Every module `entry` (a path under ROOT) loads statically: files under src as paths, packages and builtins as written. */
export function closure(entry: string): Set<string> {
  const out = edges();
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const to of out.get(file) ?? []) stack.push(to);
  }
  return seen;
}
