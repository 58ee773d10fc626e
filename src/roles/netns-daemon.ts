/**
 * @module roles/netns-daemon
 * Start one daemon of a `spur up` cluster detached, its output appended to
 * STATE/log/NAME.log and its PID in STATE/pids/NAME.pid (how `spur down` finds it:
 * by PID file, never by name). `argv` is the whole command line: the spur binary
 * itself, or nsenter(1) putting it on a host of `spur up --netns` (nsenter execs
 * the daemon, so the PID is the daemon's).
 */
import { spawn } from "node:child_process";
import { closeSync, mkdirSync, openSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export function startDaemonIn(dir: string, name: string, argv: string[]): number {
  mkdirSync(join(dir, "log"), { recursive: true });
  mkdirSync(join(dir, "pids"), { recursive: true });
  const fd = openSync(join(dir, "log", `${name}.log`), "a");
  const [cmd, ...args] = argv;
  const child = spawn(cmd ?? process.execPath, args, { detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  child.unref();
  writeFileSync(join(dir, "pids", `${name}.pid`), String(child.pid ?? 0));
  return child.pid ?? 0;
}
