/**
 * @module bench/scale/mem-floor
 * Issue 16, the floor under the controller's memory: the resident memory (anonymous and
 * file-backed, /proc/PID/smaps_rollup) of a Bun executable compiled as dist/spur is (--compile
 * --bytecode --minify) that only listens on a port, one that also opens a WAL SQLite file, and
 * dist/spur's own spurctld with an empty queue (`spur up`, 4 agents), each 2 s after start.
 * Whatever the controller does, its RSS cannot go below the first figure; a file-backed page
 * of the executable counts in RSS as soon as it is touched, shared with the agents or not.
 * `bun bench/scale/mem-floor.ts` (needs dist/spur). Prints JSON lines.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startSpur } from "./lib/spur-cluster.ts";

function split(pid: number): { rss_mib: number; anon_mib: number; file_mib: number } {
  const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
  const kb = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0);
  const mib = (v: number) => Math.round((v / 1024) * 10) / 10;
  return { rss_mib: mib(kb("Rss")), anon_mib: mib(kb("Anonymous")), file_mib: mib(kb("Rss") - kb("Anonymous")) };
}

const dir = mkdtempSync(join(tmpdir(), "spur-floor-"));
const programs: Record<string, string> = {
  listen: `Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("hi") });`,
  listen_sqlite: `import { Database } from "bun:sqlite";
const db = new Database(${JSON.stringify(join(dir, "x.sqlite"))}); db.exec("PRAGMA journal_mode = WAL"); db.exec("CREATE TABLE IF NOT EXISTS t (x)");
Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("hi") });`,
};
for (const [name, source] of Object.entries(programs)) {
  writeFileSync(join(dir, `${name}.ts`), source);
  const built = spawnSync(process.execPath, ["build", "--compile", "--bytecode", "--minify", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", join(dir, `${name}.ts`), "--outfile", join(dir, name)], { encoding: "utf8" });
  if (built.status !== 0) throw new Error(built.stderr);
  const child = spawn(join(dir, name), [], { stdio: "ignore" });
  await Bun.sleep(2000);
  console.log(JSON.stringify({ metric: "floor_rss", program: `bun ${Bun.version} compiled: ${name}`, ...split(child.pid as number) }));
  child.kill();
}
const spur = startSpur();
try {
  await Bun.sleep(2000);
  console.log(JSON.stringify({ metric: "floor_rss", program: "dist/spur spurctld, empty queue", ...split(spur.ctldPid()) }));
} finally {
  spur.down();
}
