/**
 * @module tests/e2e/cluster
 * Starts a real local cluster from the compiled binary (dist/spur, built once
 * per run by global-setup.ts) in a temporary directory and runs the Slurm-named
 * commands against it as separate processes, exactly as a user would.
 */
import { spawnSync, spawn } from "node:child_process";
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

export const BIN = resolve(__dirname, "../../dist/spur");

export interface RunResult {
  stdout: string;
  stderr: string;
  code: number;
}

export interface Cluster {
  dir: string;
  conf: string;
  env: NodeJS.ProcessEnv;
  /** Run `spur <args>` (e.g. ["sbatch", "job.sh"]) with SPUR_CONF set, cwd = the cluster's work dir. */
  /** `env`: the command's whole environment instead of the cluster's (give SPUR_CONF in it). */
  run(args: string[], opts?: { input?: string; user?: string; cwd?: string; env?: Record<string, string> }): RunResult;
  work: string;
  write(name: string, text: string): string;
  pid(daemon: string): number;
  startDaemon(daemon: string, args: string[]): void;
  /** Stop the daemons, append `confText` to spur.conf (settings `spur up` does not write), start them again on the same state. */
  reconfigure(confText: string): void;
  down(): void;
}

/** `beforeUp` may put files into the state directory (e.g. a gres.conf) before the daemons start. */
export function startCluster(extra: string[] = [], opts: { beforeUp?: (stateDir: string, dir: string) => void } = {}): Cluster {
  const dir = mkdtempSync(join(tmpdir(), "spur-e2e-"));
  const state = join(dir, "cluster");
  const work = join(dir, "work");
  spawnSync("mkdir", ["-p", work, state]);
  opts.beforeUp?.(state, dir);
  spawnSync("chmod", ["777", dir, work]);
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", state, ...extra], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
  const conf = join(state, "spur.conf");
  const bin = join(dir, "bin");
  const links = spawnSync(BIN, ["install-links", bin], { encoding: "utf8" });
  if (links.status !== 0) throw new Error(`install-links failed: ${links.stderr}`);
  spawnSync("chmod", ["755", bin]);
  const env = { ...process.env, SPUR_CONF: conf, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  const cluster: Cluster = {
    dir,
    conf,
    env,
    work,
    run(args, opts = {}) {
      const cmd = opts.user ? "setpriv" : BIN;
      const argv = opts.user ? userArgs(opts.user, [BIN, ...args]) : args;
      const r = spawnSync(cmd, argv, { env: opts.env ?? env, cwd: opts.cwd ?? work, input: opts.input ?? "", encoding: "utf8", timeout: 120_000 });
      return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
    },
    write(name, text) {
      const path = join(work, name);
      writeFileSync(path, text, { mode: 0o755 });
      return path;
    },
    pid(daemon) {
      const path = join(state, "pids", `${daemon}.pid`);
      return existsSync(path) ? Number(readFileSync(path, "utf8")) : 0;
    },
    startDaemon(daemon, args) {
      const log = openSync(join(state, "log", `${daemon}.log`), "a");
      const child = spawn(BIN, args, { detached: true, stdio: ["ignore", log, log], env });
      closeSync(log);
      child.unref();
      writeFileSync(join(state, "pids", `${daemon}.pid`), String(child.pid));
    },
    reconfigure(confText) {
      spawnSync(BIN, ["down", "--state-dir", state]);
      appendFileSync(conf, confText.endsWith("\n") ? confText : `${confText}\n`);
      const again = spawnSync(BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8" });
      if (again.status !== 0) throw new Error(`spur up failed: ${again.stdout}${again.stderr}`);
    },
    down() {
      spawnSync(BIN, ["down", "--state-dir", state]);
      // Each cluster leaves logs, spools and (upgrade tests) 100+ MB binaries: gone unless asked to keep them.
      if (process.env.SPUR_E2E_KEEP === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
  return cluster;
}

function userArgs(user: string, argv: string[]): string[] {
  const id = (flag: string) => spawnSync("id", [flag, user], { encoding: "utf8" }).stdout.trim();
  return [`--reuid=${id("-u")}`, `--regid=${id("-g")}`, "--init-groups", "--", ...argv];
}

/**
 * Poll `check` until it returns a value (not undefined), or fail after `timeoutMs`.
 * The check must be synchronous: a Promise is never undefined, so an async check
 * would "succeed" at once without waiting; that is refused loudly.
 */
export async function eventually<T>(what: string, check: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = check();
      if (v instanceof Promise) throw new TypeError(`eventually(${what}): the check returned a Promise; pass a synchronous check`);
      if (v !== undefined) return v;
    } catch (e) {
      if (e instanceof TypeError && String(e.message).startsWith("eventually(")) throw e;
      last = e;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${String(last)}` : ""}`);
}

/** The sacct State of a job (first row), e.g. "COMPLETED". */
export function jobState(c: Cluster, jobId: string): string {
  const r = c.run(["sacct", "-n", "-X", "-P", "-o", "State", "-j", jobId]);
  return r.stdout.trim().split("\n")[0]?.split(" ")[0] ?? "";
}

/** Wait until a job has left PENDING and RUNNING; resolves with its final sacct State. */
export function jobEnded(c: Cluster, jobId: string, timeoutMs = 60_000): Promise<string> {
  return eventually(`job ${jobId} ended`, () => {
    const s = jobState(c, jobId);
    return s !== "" && s !== "PENDING" && s !== "RUNNING" ? s : undefined;
  }, timeoutMs);
}

export function isRoot(): boolean {
  return process.getuid?.() === 0;
}

/** Create a Unix user for multi-user tests (root only); returns false when it cannot. */
export function ensureUser(name: string): boolean {
  if (!isRoot()) return false;
  if (spawnSync("id", [name]).status === 0) return true;
  return spawnSync("useradd", ["-m", name]).status === 0;
}
