/**
 * @module tests/unit/startup/import-graph
 * The static import graph of src/, read from the source text (cheap: no bundler):
 * what a module loads before its first line runs. `import type`, all-type named
 * imports and dynamic `import()` do not count (nothing is loaded for them).
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

const STATIC = /^\s*(import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*["']([^"']+)["']|^\s*import\s+["']([^"']+)["']/gm;

/** Specifiers a file loads statically. */
export function staticImports(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(STATIC)) {
    if (m[5] !== undefined) {
      out.push(m[5]);
      continue;
    }
    if (m[2] !== undefined) continue; // import type / export type
    const clause = (m[3] ?? "").trim();
    const named = /^\{([^}]*)\}$/.exec(clause);
    if (named !== null) {
      const items = (named[1] ?? "").split(",").map((s) => s.trim()).filter(Boolean);
      if (items.length > 0 && items.every((s) => s.startsWith("type "))) continue;
    }
    out.push(m[4] as string);
  }
  return out;
}

/** Every module `entry` (a path under ROOT) loads statically: files under src as paths, packages and builtins as written. */
export function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const stack = [entry];
  while (stack.length > 0) {
    const file = stack.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    if (!file.startsWith("src/")) continue;
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const spec of staticImports(text)) {
      if (!spec.startsWith(".")) {
        stack.push(spec);
        continue;
      }
      const target = relative(ROOT, resolve(ROOT, dirname(file), spec));
      if (!existsSync(join(ROOT, target))) throw new Error(`${file}: import "${spec}" not found`);
      stack.push(target);
    }
  }
  return seen;
}
