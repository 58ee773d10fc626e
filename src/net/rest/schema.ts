/**
 * @module rest/schema
 * A tiny schema language that is the ONE source of truth for the REST shapes:
 * each schema value gives (1) a TypeScript type through `Infer<>` (serializers
 * are typed by it, so a misspelt field does not compile), (2) an OpenAPI 3
 * JSON Schema through `toOpenapi` (rest/openapi.ts), and (3) a runtime
 * validator for request bodies (`validate`), with bounds on string lengths and
 * array sizes so that a huge body is refused before any work is done.
 */

export type Node = (
  | { kind: "string"; enum?: readonly string[]; maxLength: number; description?: string }
  | { kind: "integer"; format: "int32" | "int64"; description?: string }
  | { kind: "number"; description?: string }
  | { kind: "boolean"; description?: string }
  | { kind: "array"; items: Node; maxItems: number; description?: string }
  | { kind: "object"; props: Record<string, Node>; required: readonly string[]; description?: string; free?: boolean }
  | { kind: "named"; name: string; target: Node }
) & {
  /** data_parser minor versions [first, last] that have this field (absent = all). */
  versions?: readonly [number, number];
};

/** A schema value; `T` is a phantom type for Infer<>. */
export interface Schema<T> {
  readonly node: Node;
  readonly __type?: T;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

/** Default bounds (Slurm itself has none this tight; these keep the daemon safe). */
export const STRING_BYTES_MAX = 1 << 20;
export const ARRAY_ITEMS_MAX = 10_000;

const mk = <T>(node: Node): Schema<T> => ({ node });

export const str = (maxLength = STRING_BYTES_MAX): Schema<string> => mk({ kind: "string", maxLength });
export const strEnum = <const E extends readonly string[]>(values: E): Schema<E[number]> =>
  mk({ kind: "string", enum: values, maxLength: 256 });
export const int32 = (): Schema<number> => mk({ kind: "integer", format: "int32" });
export const int64 = (): Schema<number> => mk({ kind: "integer", format: "int64" });
export const num = (): Schema<number> => mk({ kind: "number" });
export const bool = (): Schema<boolean> => mk({ kind: "boolean" });
export const arr = <T>(items: Schema<T>, maxItems = ARRAY_ITEMS_MAX): Schema<T[]> =>
  mk({ kind: "array", items: items.node, maxItems });
/** A free-form object (string map), e.g. `environment` in the object form. */
export const dict = (): Schema<Record<string, string>> => mk({ kind: "object", props: {}, required: [], free: true });

type Props = Record<string, Schema<unknown>>;
type Simplify<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<P extends Props, R extends keyof P> = Simplify<
  { [K in R]: Infer<P[K]> } & { [K in Exclude<keyof P, R>]?: Infer<P[K]> }
>;

export function obj<P extends Props, R extends keyof P & string = never>(props: P, required: readonly R[] = []): Schema<ObjectOf<P, R>> {
  const nodes: Record<string, Node> = {};
  for (const [k, v] of Object.entries(props)) nodes[k] = v.node;
  return mk({ kind: "object", props: nodes, required });
}

/** A schema published under components/schemas as `<version>_<name>`. */
export const named = <T>(name: string, s: Schema<T>): Schema<T> => mk({ kind: "named", name, target: s.node });

/** A field only some data_parser versions have (e.g. added in v0.0.43: inVersions(str(), 43)). */
export const inVersions = <T>(s: Schema<T>, since: number, until = 99): Schema<T> => mk({ ...s.node, versions: [since, until] } as Node);

/** True when `node` exists in data_parser minor `version`. */
export const hasVersion = (node: Node, version: number | undefined): boolean =>
  version === undefined || node.versions === undefined || (version >= node.versions[0] && version <= node.versions[1]);

const versionedCache = new WeakMap<Node, boolean>();
/** Whether anything under `node` is version-dependent (so pruning can skip the rest). */
function hasVersioned(node: Node, depth = 0): boolean {
  const hit = versionedCache.get(node);
  if (hit !== undefined) return hit;
  let out = false;
  if (depth < DEPTH_MAX) {
    if (node.kind === "named") out = hasVersioned(node.target, depth + 1);
    else if (node.kind === "array") out = hasVersioned(node.items, depth + 1);
    else if (node.kind === "object") out = Object.values(node.props).some((p) => p.versions !== undefined || hasVersioned(p, depth + 1));
  }
  versionedCache.set(node, out);
  return out;
}

/**
 * The per-version adapter: removes, in place, the fields `value` has that
 * data_parser minor `version` does not (the serializers write the newest shape).
 * The walk is planned once per (node, version): only the keys to delete and the
 * children that hold versioned fields are visited (GET jobs/ prunes 10k jobs of
 * ~150 fields each, of which three are versioned).
 */
export function pruneForVersion(node: Node, value: unknown, version: number): void {
  prunePlan(node, version)?.(value);
}

type Pruner = (value: unknown) => void;
const pruners = new WeakMap<Node, Map<number, Pruner | undefined>>();

/** The pruner of `node` for `version`; undefined when nothing under it is versioned. */
function prunePlan(node: Node, version: number): Pruner | undefined {
  let byVersion = pruners.get(node);
  if (byVersion === undefined) pruners.set(node, (byVersion = new Map()));
  if (byVersion.has(version)) return byVersion.get(version);
  // A schema that refers to itself meets this entry again while it is built: forward to the result.
  let built: Pruner | undefined;
  byVersion.set(version, hasVersioned(node) ? (value) => built?.(value) : undefined);
  built = buildPruner(node, version);
  byVersion.set(version, built);
  return built;
}

function buildPruner(node: Node, version: number): Pruner | undefined {
  if (!hasVersioned(node)) return undefined;
  if (node.kind === "named") return prunePlan(node.target, version);
  if (node.kind === "array") {
    const item = prunePlan(node.items, version);
    if (item === undefined) return undefined;
    return (value) => {
      if (Array.isArray(value)) for (const x of value) item(x);
    };
  }
  if (node.kind !== "object") return undefined;
  const drop: string[] = [];
  const into: [string, Pruner][] = [];
  for (const [k, child] of Object.entries(node.props)) {
    if (!hasVersion(child, version)) drop.push(k);
    else {
      const p = prunePlan(child, version);
      if (p !== undefined) into.push([k, p]);
    }
  }
  if (drop.length === 0 && into.length === 0) return undefined;
  return (value) => {
    if (typeof value !== "object" || value === null) return;
    const rec = value as Record<string, unknown>;
    for (const k of drop) if (k in rec) delete rec[k];
    for (const [k, p] of into) if (k in rec) p(rec[k]);
  };
}

export const describe = <T>(s: Schema<T>, description: string): Schema<T> => mk({ ...s.node, description } as Node);

/** One validation problem: where (a JSON path) and what. */
export interface Problem {
  path: string;
  message: string;
}

export interface ValidateOptions {
  /** Unknown object fields are errors (true) or ignored (false). */
  rejectUnknown: boolean;
  /** data_parser minor version: fields of other versions count as unknown. */
  version?: number;
  /** Stop after this many problems. */
  problemsMax?: number;
}

/** Check `value` against `node`; returns the problems (empty = valid). Never throws. */
export function validate(node: Node, value: unknown, opts: ValidateOptions): Problem[] {
  const out: Problem[] = [];
  walk(node, value, "$", opts, out, opts.problemsMax ?? 20, 0);
  return out;
}

const DEPTH_MAX = 32;

function walk(node: Node, v: unknown, path: string, opts: ValidateOptions, out: Problem[], max: number, depth: number): void {
  if (out.length >= max) return;
  const bad = (message: string): void => {
    out.push({ path, message });
  };
  if (depth > DEPTH_MAX) return bad("nested too deeply");
  switch (node.kind) {
    case "named":
      return walk(node.target, v, path, opts, out, max, depth + 1);
    case "string":
      if (typeof v !== "string") return bad(`expected a string, got ${typeName(v)}`);
      if (v.length > node.maxLength) return bad(`string longer than ${node.maxLength} characters`);
      if (node.enum !== undefined && !node.enum.includes(v)) return bad(`unknown value "${v.slice(0, 64)}"`);
      return;
    case "integer":
      if (typeof v !== "number" || !Number.isInteger(v)) return bad(`expected an integer, got ${typeName(v)}`);
      if (node.format === "int32" && (v < -2147483648 || v > 4294967295)) return bad("integer out of 32-bit range");
      if (!Number.isSafeInteger(v)) return bad("integer out of range");
      return;
    case "number":
      if (typeof v !== "number" || !Number.isFinite(v)) return bad(`expected a number, got ${typeName(v)}`);
      return;
    case "boolean":
      if (typeof v !== "boolean") return bad(`expected a boolean, got ${typeName(v)}`);
      return;
    case "array":
      if (!Array.isArray(v)) return bad(`expected an array, got ${typeName(v)}`);
      if (v.length > node.maxItems) return bad(`array longer than ${node.maxItems} items`);
      v.forEach((item, i) => walk(node.items, item, `${path}[${i}]`, opts, out, max, depth + 1));
      return;
    case "object":
      walkObject(node, v, path, opts, out, max, depth);
      return;
  }
}

function walkObject(node: Extract<Node, { kind: "object" }>, v: unknown, path: string, opts: ValidateOptions, out: Problem[], max: number, depth: number): void {
  if (typeof v !== "object" || v === null || Array.isArray(v)) {
    out.push({ path, message: `expected an object, got ${typeName(v)}` });
    return;
  }
  const rec = v as Record<string, unknown>;
  if (node.free === true) {
    for (const [k, x] of Object.entries(rec)) if (typeof x !== "string") out.push({ path: `${path}.${k}`, message: "expected a string" });
    return;
  }
  for (const r of node.required) if (!(r in rec)) out.push({ path: `${path}.${r}`, message: "required field missing" });
  for (const [k, x] of Object.entries(rec)) {
    const found = Object.hasOwn(node.props, k) ? node.props[k] : undefined;
    const child = found !== undefined && hasVersion(found, opts.version) ? found : undefined;
    if (child === undefined) {
      if (opts.rejectUnknown) out.push({ path: `${path}.${k}`, message: "unknown field" });
      continue;
    }
    walk(child, x, `${path}.${k}`, opts, out, max, depth + 1);
  }
}

function typeName(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return typeof v === "object" ? "an object" : typeof v;
}
