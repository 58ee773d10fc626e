/**
 * @module tests/architecture/rules
 * Spur's layering as data: the units (layer folders) of src/, which unit may import which,
 * which units are pure and what a pure file may not touch. docs/architecture.md explains
 * each line; change both together. Checked by tests/unit/architecture.test.ts.
 */

/** Units, by path prefix (the longest prefix wins). A file matching none is unit "src". */
export const UNITS = [
  "src/lib",
  "src/version.ts",
  "src/version-compat.ts",
  "src/main-names.ts",
  "src/main.ts",
  "src/net/gen",
  "src/compat",
  "src/raft/core",
  "src/devices",
  "src/sched/model",
  "src/sched/plan",
  "src/sched/acct",
  "src/sched/resv",
  "src/sched/sim",
  "src/net",
  "src/raft",
  "src/agent",
  "src/ctld",
  "src/ops",
  "src/cli",
  "src/roles",
] as const;

// Building blocks of the allow-lists below.
const BASE = ["src/lib", "src/version.ts", "src/version-compat.ts", "src/main-names.ts"];
const WIRE = ["src/net/gen"]; // generated protobuf types: data only, importable from every layer above lib
const SCHED_CORE = ["src/sched/model", "src/sched/plan", "src/sched/acct", "src/sched/resv"];
const PURE_BELOW_SHELLS = [...BASE, ...WIRE, "src/compat", "src/devices", ...SCHED_CORE];

/**
 * Which units each unit may import (besides itself). Type-only and lazy (`await import`)
 * edges count too: a type import is still a design dependency. The sched sub-folders form
 * one layer (they may import each other); inside it only file cycles are forbidden.
 */
export const ALLOWED: Record<string, readonly string[]> = {
  "src/lib": [],
  "src/version.ts": [],
  "src/version-compat.ts": ["src/version.ts"],
  "src/main-names.ts": [],
  "src/net/gen": [],
  "src/compat": [...BASE, ...WIRE],
  "src/raft/core": [...BASE],
  "src/devices": [...BASE, ...WIRE, "src/compat"],
  // The state has its own types (sched/model/state-types.ts, issue 17): sched never sees the
  // wire's, so a .proto change cannot silently change the state machine; ctld/wire-map maps.
  "src/sched/model": [...BASE, "src/compat", "src/devices", ...SCHED_CORE],
  "src/sched/plan": [...BASE, "src/compat", "src/devices", ...SCHED_CORE],
  "src/sched/acct": [...BASE, "src/compat", "src/devices", ...SCHED_CORE],
  "src/sched/resv": [...BASE, "src/compat", "src/devices", ...SCHED_CORE],
  "src/sched/sim": PURE_BELOW_SHELLS.filter((u) => !WIRE.includes(u)),
  // Shells: I/O around the pure cores.
  "src/net": [...PURE_BELOW_SHELLS, "src/raft/core"],
  "src/raft": [...BASE, ...WIRE, "src/raft/core", "src/net"],
  "src/agent": [...PURE_BELOW_SHELLS, "src/net"],
  "src/ctld": [...PURE_BELOW_SHELLS, "src/net", "src/raft", "src/raft/core"],
  "src/ops": [...PURE_BELOW_SHELLS, "src/net"],
  // Top: the commands and the roles that wire everything together.
  "src/cli": [...PURE_BELOW_SHELLS, "src/net"],
  "src/roles": [...PURE_BELOW_SHELLS, "src/sched/sim", "src/raft/core", "src/net", "src/raft", "src/agent", "src/ctld", "src/ops", "src/cli"],
  "src/main.ts": [...BASE, "src/roles", "src/cli"],
};

/** Edges that must be lazy (`await import`): main.ts loads a role only when it runs it. */
export const LAZY_ONLY: readonly { from: string; to: string }[] = [
  { from: "src/main.ts", to: "src/roles" },
  { from: "src/main.ts", to: "src/cli" },
];

/** Pure units: no I/O, no clock, no randomness, no process state, no logger. */
export const PURE_UNITS: readonly string[] = [
  "src/lib",
  "src/net/gen",
  "src/compat",
  "src/raft/core",
  "src/devices",
  "src/sched/model",
  "src/sched/plan",
  "src/sched/acct",
  "src/sched/resv",
  "src/sched/sim",
];

/**
 * Shell files that live in a pure unit by design: the two readers of devices/ that run a
 * tool or read sysfs and hand text to the pure parsers next to them (discover*.ts take the
 * readers as arguments and stay pure). Tidier would be a `devices/read/` sub-unit; listed
 * here, with a reason, rather than hidden in the debt. Keep this list short. Also the real
 * Clock, the one place real time enters the shells.
 */
export const SHELL_FILES_IN_PURE: Record<string, string> = {
  "src/devices/read-sysfs.ts": "reads sysfs for the pure parsers next to it",
  "src/devices/run-nvidia-smi.ts": "runs nvidia-smi for the pure parser next to it",
  "src/lib/system-clock.ts": "the real Clock (timers, Date.now) next to its port lib/clock.ts; the shells' default, never imported by pure code",
};

/** Modules a pure file may not import. */
export const IMPURE_MODULES: readonly string[] = [
  "node:fs",
  "node:fs/promises",
  "node:net",
  "node:tls",
  "node:http",
  "node:https",
  "node:child_process",
  "node:os",
  "node:dns",
  "node:dns/promises",
  "node:dgram",
  "node:worker_threads",
  "bun",
  "bun:sqlite",
  "bun:ffi",
  "consola",
  "consola/core",
];

/** Globals a pure file may not use (matched on code with comments and strings blanked). */
export const IMPURE_GLOBALS: readonly { name: string; re: RegExp }[] = [
  { name: "Bun.*", re: /(?<![\w$.])Bun\./ },
  { name: "process", re: /(?<![\w$.])process\s*\./ },
  { name: "timers", re: /(?<![\w$.])(?:setTimeout|setInterval|setImmediate)\s*\(/ },
  { name: "Date.now", re: /(?<![\w$.])Date\.now\s*\(/ },
  { name: "new Date()", re: /\bnew\s+Date\s*\(\s*\)/ },
  { name: "performance.now", re: /(?<![\w$.])performance\.now\s*\(/ },
  { name: "Math.random", re: /(?<![\w$.])Math\.random\s*\(/ },
];
