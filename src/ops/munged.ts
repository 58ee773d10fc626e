/**
 * @module ops/munged
 * Starts a private munged (Debian's `munge` package) for a host that Spur starts itself
 * (`spur up --netns --auth munge`, tests, benchmarks): its own socket, key, pid, log and seed
 * files in one directory, optionally inside a network namespace. The system's munged
 * (/run/munge) is never touched. munged refuses a directory others may write, and clients of
 * other users need to reach the socket: the directory is made mode 755.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { err, ok, type Result } from "../lib/result.ts";

export interface MungedSpec {
  /** Directory for the socket and the daemon's files (created, mode 755). */
  dir: string;
  /** The cluster's MUNGE key (`mungeKey` makes one); the same file on every host. */
  keyFile: string;
  /** File names start with this; default "munged". */
  name?: string;
  /** Start it inside this network namespace (its origin address is then the host's). */
  netns?: string;
}

export interface RunningMunged {
  socketPath: string;
  pid: number;
  stop(): void;
}

/** Writes a new 1024-byte random key, mode 600, unless one exists. */
export function mungeKey(path: string): void {
  if (existsSync(path)) return;
  writeFileSync(path, randomBytes(1024), { mode: 0o600 });
  chmodSync(path, 0o600);
}

export function startMunged(spec: MungedSpec): Result<RunningMunged> {
  const name = spec.name ?? "munged";
  mkdirSync(spec.dir, { recursive: true });
  chmodSync(spec.dir, 0o755);
  const socketPath = join(spec.dir, `${name}.sock`);
  const pidFile = join(spec.dir, `${name}.pid`);
  const argv = [
    "munged", `--socket=${socketPath}`, `--key-file=${spec.keyFile}`, `--pid-file=${pidFile}`,
    `--log-file=${join(spec.dir, `${name}.log`)}`, `--seed-file=${join(spec.dir, `${name}.seed`)}`, "--num-threads=4",
  ];
  const full = spec.netns === undefined ? argv : ["ip", "netns", "exec", spec.netns, ...argv];
  // munged forks into the background once its socket is ready; the parent's exit says how it went.
  const r = spawnSync(full[0] ?? "munged", full.slice(1), { encoding: "utf8", timeout: 30_000 });
  if (r.error !== undefined) return err("MungedStart", `cannot run munged (install the munge package): ${r.error.message}`);
  if (r.status !== 0) return err("MungedStart", `munged failed: ${(r.stderr || r.stdout).trim()}`);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  if (!Number.isInteger(pid) || pid <= 0) return err("MungedStart", `munged wrote no pid to ${pidFile}`);
  return ok({
    socketPath, pid,
    stop() {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
    },
  });
}
