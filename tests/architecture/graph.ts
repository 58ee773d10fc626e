/**
 * @module tests/architecture/graph
 * A pure import graph of Spur's sources: which file imports which, with the kind of each
 * edge, the strongly connected components (Tarjan), the folder-level edges, and a rough
 * function-length scan. Pure: it takes file texts and returns data; reading the disk is
 * the caller's job (`loadSources`, kept at the bottom and the only function doing I/O).
 *
 * Edge kinds, and what the rules count (docs/architecture.md, "What counts"):
 * - `value`: a static `import ... from` / `export ... from` / `import "x"` that brings a
 *   runtime binding. Counts for layering AND for cycles.
 * - `type`: `import type`, `export type ... from`, or an import whose every specifier is
 *   `type X`. No runtime edge (erased), but a design dependency: the importer changes when
 *   the imported file's types change. Counts for layering AND for cycles, since a type
 *   cycle is still two files that cannot be understood or moved apart.
 * - `dynamic`: `await import("x")` with a literal specifier. A lazy, deliberate edge: counts
 *   for layering (the folder still depends on the other) but NOT for cycles (lazy loading
 *   is the prescribed way to break a load-time cycle, e.g. `spur.ts` -> `demo.ts`).
 */

export type EdgeKind = "value" | "type" | "dynamic";
export interface Edge {
  from: string; // repository-relative path, "src/..."
  to: string; // resolved path, or the bare specifier ("node:fs") for packages
  kind: EdgeKind;
  external: boolean;
}

/** Blanks comments and the insides of string/template literals, keeping offsets and newlines. */
export function stripCode(text: string, keepStrings = false): string {
  const out = text.split("");
  let i = 0;
  const n = text.length;
  const blank = (from: number, to: number) => {
    for (let k = from; k < to && k < n; k++) if (out[k] !== "\n") out[k] = " ";
  };
  while (i < n) {
    const c = text[i];
    const d = text[i + 1];
    if (c === "/" && d === "/") {
      const end = text.indexOf("\n", i);
      const stop = end < 0 ? n : end;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && d === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? n : end + 2;
      blank(i, stop);
      i = stop;
    } else if (c === "/" && regexAllowed(text, i)) {
      // A regex literal: skip it whole, so a quote inside (/["']/) opens no string.
      let j = i + 1;
      let cls = false;
      while (j < n && text[j] !== "\n" && (cls || text[j] !== "/")) {
        if (text[j] === "\\") j++;
        else if (text[j] === "[") cls = true;
        else if (text[j] === "]") cls = false;
        j++;
      }
      i = j + 1;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < n && text[j] !== c) {
        if (text[j] === "\\") j++;
        else if (c !== "`" && text[j] === "\n") break; // unterminated: stop at the line end
        j++;
      }
      if (!keepStrings) blank(i + 1, j);
      i = j + 1;
    } else i++;
  }
  return out.join("");
}

/** A `/` starts a regex (not a division) after an operator, an opening bracket or a keyword. */
function regexAllowed(text: string, at: number): boolean {
  let k = at - 1;
  while (k >= 0 && (text[k] === " " || text[k] === "\t")) k--;
  if (k < 0) return true;
  const p = text[k]!;
  if ("(,=:[!&|?{};+-*%<>~^\n".includes(p)) return true;
  return /\b(?:return|typeof|case|of|in|void|yield|await)$/.test(text.slice(Math.max(0, k - 6), k + 1));
}

const STATIC_RE = /(?:^|[;\n}])\s*(import|export)\s+(type\s+)?([\w$\s{},*]*?)\s*\bfrom\s*["']([^"']+)["']/g;
const TEXT_IMPORT_RE = /^\s*with\s*\{\s*type\s*:\s*["']text["']\s*\}/;
const BARE_RE = /(?:^|[;\n])\s*import\s*["']([^"']+)["']/g;
const DYNAMIC_RE = /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g;

/** The import edges of one file (specifiers unresolved). Comments are ignored; strings kept. */
export function extractImports(path: string, text: string): { spec: string; kind: EdgeKind }[] {
  const code = stripCode(text, true);
  const found: { spec: string; kind: EdgeKind }[] = [];
  for (const m of code.matchAll(STATIC_RE)) {
    const [, , typeKw, clause = "", spec = ""] = m;
    // `import x from "./page.html" with { type: "text" }` reads a file as a string: data, not a module edge
    if (TEXT_IMPORT_RE.test(code.slice(m.index + m[0].length, m.index + m[0].length + 40))) continue;
    found.push({ spec, kind: typeKw !== undefined || allTypeSpecifiers(clause) ? "type" : "value" });
  }
  for (const m of code.matchAll(BARE_RE)) found.push({ spec: m[1] ?? "", kind: "value" });
  for (const m of code.matchAll(DYNAMIC_RE)) found.push({ spec: m[1] ?? "", kind: "dynamic" });
  void path;
  return found;
}

/** `{ type A, type B }` (and nothing else) is a type-only import under verbatimModuleSyntax. */
function allTypeSpecifiers(clause: string): boolean {
  const m = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (m === null) return false;
  const parts = (m[1] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
  return parts.length > 0 && parts.every((s) => s.startsWith("type "));
}

/** Resolves `./x.ts` against `from`'s folder; "" for a relative path that does not exist. */
export function resolveSpec(from: string, spec: string, files: ReadonlySet<string>): string {
  if (!spec.startsWith(".")) return spec;
  const parts = from.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  const base = parts.join("/");
  for (const cand of [base, `${base}.ts`, `${base}/index.ts`]) if (files.has(cand)) return cand;
  return "";
}

export interface Graph {
  files: string[];
  edges: Edge[];
  unresolved: { from: string; spec: string }[];
}

export function buildGraph(sources: ReadonlyMap<string, string>): Graph {
  const files = [...sources.keys()].sort();
  const set = new Set(files);
  const edges: Edge[] = [];
  const unresolved: { from: string; spec: string }[] = [];
  for (const from of files) {
    for (const { spec, kind } of extractImports(from, sources.get(from) ?? "")) {
      const to = resolveSpec(from, spec, set);
      if (to === "") unresolved.push({ from, spec });
      else edges.push({ from, to, kind, external: !spec.startsWith(".") });
    }
  }
  return { files, edges, unresolved };
}

/**
 * Tarjan's strongly connected components (> 1 file) over the internal edges that count for
 * cycles: value and type-only imports, not lazy ones. `runtimeOnly` drops type-only edges
 * too, giving the cycles that exist at module load time.
 */
export function cycles(graph: Graph, runtimeOnly = false): string[][] {
  const adj = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const e of graph.edges) {
    if (!e.external && e.kind !== "dynamic" && !(runtimeOnly && e.kind === "type")) adj.get(e.from)?.push(e.to);
  }
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  // Iterative, so a long chain cannot overflow the call stack.
  for (const root of graph.files) {
    if (idx.has(root)) continue;
    const work: [string, number][] = [[root, 0]];
    idx.set(root, index);
    low.set(root, index++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const top = work[work.length - 1]!;
      const [v, i] = top;
      const next = adj.get(v) ?? [];
      if (i < next.length) {
        top[1]++;
        const w = next[i]!;
        if (!idx.has(w)) {
          idx.set(w, index);
          low.set(w, index++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const u = work[work.length - 1]![0];
        low.set(u, Math.min(low.get(u)!, low.get(v)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) out.push(comp.sort());
      }
    }
  }
  return out.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

/** The unit (layer folder) a file belongs to: the longest matching prefix in `units`. */
export function unitOf(file: string, units: readonly string[]): string {
  let best = "";
  for (const u of units) if ((file === u || file.startsWith(`${u}/`)) && u.length > best.length) best = u;
  return best === "" ? "src" : best;
}

export interface FolderEdge {
  from: string;
  to: string;
  files: { from: string; to: string; kind: EdgeKind }[];
}

/** Unit-to-unit edges (internal imports only), each with the file imports that make it. */
export function folderEdges(graph: Graph, units: readonly string[]): FolderEdge[] {
  const by = new Map<string, FolderEdge>();
  for (const e of graph.edges) {
    if (e.external) continue;
    const a = unitOf(e.from, units);
    const b = unitOf(e.to, units);
    if (a === b) continue;
    const key = `${a} -> ${b}`;
    const fe = by.get(key) ?? { from: a, to: b, files: [] };
    fe.files.push({ from: e.from, to: e.to, kind: e.kind });
    by.set(key, fe);
  }
  return [...by.values()].sort((x, y) => `${x.from}>${x.to}`.localeCompare(`${y.from}>${y.to}`));
}

export interface FunctionLength {
  file: string;
  line: number;
  name: string;
  lines: number;
}

const FN_START = /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s*\*?\s*([A-Za-z_$][\w$]*)|(?:const|let)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]*)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]*)?=>|[A-Za-z_$][\w$]*\s*=>))/;

/**
 * Rough function lengths: a line that starts a named top-level-or-nested `function` or a
 * `const x = (...) =>` / `function` expression opens a function; it ends where the brace
 * depth (counted on code with comments and strings blanked) returns to the depth it had
 * before that line. Length = end line - start line + 1. Methods and anonymous callbacks
 * are counted inside the function that holds them, not on their own.
 */
export function functionLengths(file: string, text: string): FunctionLength[] {
  const lines = stripCode(text).split("\n");
  const raw = text.split("\n");
  const out: FunctionLength[] = [];
  const open: { name: string; line: number; depth: number }[] = [];
  let depth = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const m = FN_START.exec(raw[i] ?? "");
    const start = m !== null && line.includes("{") ? { name: m[1] ?? m[2] ?? "?", line: i + 1, depth } : undefined;
    for (const ch of line) {
      if (ch === "{") depth++;
      else if (ch === "}") depth--;
    }
    if (start !== undefined) {
      if (depth > start.depth) open.push(start);
      else out.push({ file, line: start.line, name: start.name, lines: 1 });
    }
    while (open.length > 0 && depth <= open[open.length - 1]!.depth) {
      const f = open.pop()!;
      out.push({ file, line: f.line, name: f.name, lines: i + 1 - f.line + 1 });
    }
  }
  return out;
}

/** Code with comments and string contents blanked: what the purity scan reads. */
export function codeOnly(text: string): string {
  return stripCode(text);
}
