/**
 * What a command loads before it runs (docs/startup.md): every module a user command
 * reaches through static imports is loaded, and evaluated, at start-up, which costs
 * milliseconds per module family (measured: process.stdout alone ~18 ms, node:fs ~5 ms,
 * about 5-7 ms per 100 KB of code). These tests read the import graph from the source
 * text and fail when an entry path statically reaches a daemon role, the protobuf or
 * Connect runtime, consola, or (for the hot commands) node:fs and Node's streams.
 */
import { describe, expect, it } from "vitest";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { closure, ROOT, staticImports } from "./import-graph.ts";

/** The user commands main.ts runs through roles/cli/run.ts. */
const COMMANDS = ["sbatch", "squeue", "sinfo", "sacct", "sstat", "scontrol", "scancel", "sprio", "sdiag", "sacctmgr", "sshare"];
/** The hot ones (scripts call them in loops): they must not load node:fs/os/path either. */
const HOT = ["sbatch", "squeue", "sinfo", "scancel", "sacct", "scontrol"];

const HEAVY_PACKAGES = /^(@bufbuild\/protobuf|@connectrpc\/|consola|hono|citty)/;
/** Daemon code and what serves it: a CLI has no business loading any of it. */
const DAEMON = /^src\/(roles\/(spurctld|spurctld-replicated|spurd|spurrestd|spur|stepd|local-cluster|demo)\.ts|ctld\/|agent\/(?!cgroup\/cpus\.ts)|raft\/|net\/rest\/|net\/rpc-server\.ts|net\/gen\/)/;
const NODE_HEAVY = /^(node:)?(fs|os|path|net|http|https|tls|child_process|crypto|stream|zlib|dns)$/;

function offenders(entry: string, bad: (m: string) => boolean): string[] {
  return [...closure(entry)].filter(bad);
}

describe("import graph reader", () => {
  it("counts value imports and re-exports, skips type-only and dynamic ones", () => {
    const text = [
      'import { a, type B } from "./a.ts";',
      'import type { C } from "./c.ts";',
      'import { type D, type E } from "./d.ts";',
      'export { f } from "./f.ts";',
      'export type { G } from "./g.ts";',
      'export * from "./h.ts";',
      'import "./side.ts";',
      'const x = await import("./lazy.ts");',
      'import {\n  multi,\n  line,\n} from "node:fs";',
    ].join("\n");
    expect(staticImports(text).sort()).toEqual(["./a.ts", "./f.ts", "./h.ts", "./side.ts", "node:fs"].sort());
  });

  it("finds a forbidden module through a chain", () => {
    // roles/cli/port.ts (srun's) reaches node:fs only through roles/conf-file.ts: the reader must see that.
    const reached = closure("src/roles/cli/port.ts");
    expect(reached.has("src/roles/conf-file.ts") && reached.has("node:fs")).toBe(true);
  });
});

describe("start-up: what each entry loads", () => {
  it("main.ts loads nothing but itself (every role is a dynamic import)", () => {
    expect([...closure("src/main.ts")].filter((m) => m !== "src/main.ts" && m !== "src/main-names.ts")).toEqual([]);
  });

  it("main.ts routes user commands through roles/cli/run.ts and their own module only", () => {
    const text = readFileSync(join(ROOT, "src/main.ts"), "utf8");
    for (const cmd of COMMANDS) expect(text, cmd).toContain(`import("./cli/${cmd}.ts")`);
    expect(text).toContain('import("./roles/cli/run.ts")');
  });

  // run.ts loads the real port lazily (after the bare port's --version/--help fast path): it
  // is on every other call's path, so it is held to the same rules as run.ts itself.
  it("run.ts loads the real port (port-core.ts) lazily, and nothing host-reading statically", () => {
    const reached = closure("src/roles/cli/run.ts");
    expect(reached.has("src/roles/cli/port-core.ts")).toBe(false);
    expect(reached.has("src/roles/cli/client-env.ts")).toBe(false);
    expect(readFileSync(join(ROOT, "src/roles/cli/run.ts"), "utf8")).toContain('import("./port-core.ts")');
  });

  /** Modules a command loads lazily once its options ask for the real work: held to the command's own rules. */
  const LAZY = ["src/cli/squeue-run.ts", "src/cli/sinfo-run.ts"];

  for (const cmd of [...COMMANDS.map((c) => `src/cli/${c}.ts`), ...LAZY, "src/roles/cli/run.ts", "src/roles/cli/port-core.ts"]) {
    it(`${cmd} reaches no daemon module, protobuf/Connect runtime or consola`, () => {
      expect(offenders(cmd, (m) => DAEMON.test(m) || HEAVY_PACKAGES.test(m))).toEqual([]);
    });
  }

  for (const cmd of [...HOT.map((c) => `src/cli/${c}.ts`), ...LAZY, "src/roles/cli/run.ts", "src/roles/cli/port-core.ts"]) {
    it(`${cmd} loads no node:fs, node:os, node:path, sockets or streams (files via Bun.file, output via Bun.write)`, () => {
      expect(offenders(cmd, (m) => NODE_HEAVY.test(m))).toEqual([]);
    });
  }

  it("roles/spur.ts (`spur version`, `spur --help`) loads no local cluster, daemon or node:fs", () => {
    expect(offenders("src/roles/spur.ts", (m) => DAEMON.test(m.replace("src/roles/spur.ts", "")) || HEAVY_PACKAGES.test(m) || NODE_HEAVY.test(m))).toEqual([]);
  });

  // `spur --help` loads every command module of the tree (it reads their meta): they declare, and load their code when they run.
  const ADMIN = readdirSync(join(ROOT, "src/roles/admin")).filter((f) => f.endsWith(".ts")).map((f) => `src/roles/admin/${f}`);
  for (const mod of ADMIN) {
    it(`${mod} (read by \`spur --help\`) loads no local cluster, daemon or node:fs`, () => {
      expect(offenders(mod, (m) => DAEMON.test(m) || /^(@bufbuild\/protobuf|@connectrpc\/|consola|hono)/.test(m) || NODE_HEAVY.test(m))).toEqual([]);
    });
  }

  // The Slurm-named commands keep their own getopt (compat/options): citty is the admin tool's only.
  for (const cmd of ["roles/cli/srun.ts", "roles/cli/salloc.ts", "roles/cli/sattach.ts", "roles/cli/sbcast.ts", "roles/cli/sgather.ts", "roles/cli/strigger.ts", "roles/spurd.ts", "roles/spurctld.ts", "roles/spurrestd.ts"]) {
    it(`src/${cmd} does not load citty`, () => {
      expect(offenders(`src/${cmd}`, (m) => m === "citty")).toEqual([]);
    });
  }

  it("roles/cli/run.ts writes output without process.stdout (Node's stream objects cost ~18 ms)", () => {
    for (const file of [...closure("src/roles/cli/run.ts")].filter((m) => m.startsWith("src/roles/"))) {
      const text = readFileSync(join(ROOT, file), "utf8");
      expect(/process\.(stdout|stderr)\.write/.test(text), file).toBe(false);
    }
  });
});
