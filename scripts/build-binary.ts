/**
 * @module scripts/build-binary
 * Builds the one executable: `bun build --compile --bytecode --minify` of
 * src/main.ts into dist/spur (or --target bun-linux-arm64 etc. for other
 * platforms), stamping the commit and build date, then reports its size.
 * Usage: bun scripts/build-binary.ts [--target bun-linux-x64] [--outfile dist/spur] [--version V] [--protocol P]
 */
import { statSync } from "node:fs";

const args = process.argv.slice(2);
const opt = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const outfile = opt("--outfile") ?? "dist/spur";
/** The JIT policy the executable starts with (Bun.unsafe.setJITPolicy's scale): see below. */
const CLI_JIT_POLICY = 10;
const target = opt("--target");
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"]).stdout.toString().trim() || "unknown";
const date = new Date().toISOString().slice(0, 10);
const cmd = [
  // ESM + splitting: each role and command is its own chunk, loaded only when run
  // (measured: `spur version` 24 -> 19 ms, `squeue` 42 -> 35 ms against one bundle).
  process.execPath, "build", "--compile", "--bytecode", "--minify", "--format=esm", "--splitting",
  // A Bun executable reads .env and bunfig.toml from the working directory by default: a .env in
  // a job's directory would set SBATCH_*/SLURM_* input variables and enter the job's environment;
  // Slurm's commands read neither (tsconfig.json and package.json are off by default).
  "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig",
  // A user command lives 20-50 ms: JavaScriptCore's tier-up thresholds times 10 keep its run-once
  // start-up code in the interpreter instead of compiling it on the JIT's threads (squeue, sinfo,
  // squeue -j: 4-8 ms less CPU and ~100 fewer page faults a call; heavy work such as squeue
  // --json of 50k jobs still compiles, no slower). The daemons set the normal policy first thing
  // (main.ts DAEMON_ROLES, ctld/snapshot-worker.ts).
  `--compile-jit-policy=${CLI_JIT_POLICY}`,
  "--define", `BUILD_COMMIT=${JSON.stringify(commit)}`,
  "--define", `BUILD_DATE=${JSON.stringify(date)}`,
  // Release builds (and the rolling-upgrade test's "newer" binary) stamp these.
  ...(opt("--version") ? ["--define", `BUILD_VERSION=${JSON.stringify(opt("--version"))}`] : []),
  ...(opt("--protocol") ? ["--define", `BUILD_PROTOCOL=${JSON.stringify(opt("--protocol"))}`] : []),
  ...(target ? ["--target", target] : []),
  // A Worker's entry is an entry of its own (ctld/snapshotter.ts starts it).
  "src/main.ts", "src/ctld/snapshot-worker.ts", "--outfile", outfile,
];
const r = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit" });
if (r.exitCode !== 0) process.exit(r.exitCode ?? 1);
const mib = statSync(outfile).size / (1024 * 1024);
console.log(JSON.stringify({ built: outfile, commit, target: target ?? "host", sizeMiB: Number(mib.toFixed(1)) }));
