/**
 * @module agent/container/runtime
 * Which OCI runtime runs containers on this node (spur.conf `ContainerRuntime=`:
 * auto, runc, crun, or a path; auto takes the first of runc and crun found) and
 * the command lines spurd gives it: `run` in the foreground (the runtime passes
 * the task's stdio through and exits with its status) under a state directory of
 * this spurd's own, and a forced `delete` at the end. A node without a runtime
 * fails container jobs with a message saying what to install or set.
 */
import { accessSync, constants } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../lib/result.ts";

/** Runtimes tried by `auto`, in order, and where they are looked for (a name in ContainerRuntime= too). */
const AUTO = ["runc", "crun"];
const SEARCH_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function lookup(name: string): string | undefined {
  return SEARCH_DIRS.map((d) => join(d, name)).find(executable);
}

/**
 * The runtime's absolute path, or why there is none. Only the system's directories are searched: never
 * a job's PATH, since the runtime runs as root (a job's PATH=/evil would pick root's program).
 */
export function findRuntime(setting: string): Result<string> {
  const wanted = setting.trim() === "" ? "auto" : setting.trim();
  if (wanted.toLowerCase() === "auto") {
    for (const name of AUTO) {
      const found = lookup(name);
      if (found !== undefined) return ok(found);
    }
    return err("NoRuntime", "no OCI runtime on this node: install runc or crun (Debian: apt-get install runc), or set ContainerRuntime= in spur.conf");
  }
  const found = wanted.startsWith("/") ? (executable(wanted) ? wanted : undefined) : lookup(wanted);
  if (found === undefined) return err("NoRuntime", `ContainerRuntime=${wanted} (spur.conf) is not installed on this node`);
  return ok(found);
}

/**
 * runc's --keep: the container (and its cgroup) stays after its first process exits, until
 * the forced delete: cgroup v1 counts an OOM kill only in the victim's own memory cgroup,
 * which the step's teardown must still find. (crun has no such flag: its containers'
 * OOM kills read as plain kills on v1.)
 */
const keepFlag = (runtime: string): string[] => (/(^|\/)runc$/.test(runtime) ? ["--keep"] : []);

/** The runtime logs to a file so that its routine warnings stay out of the job's output (it prints its fatal error itself). */
export const runCommand = (runtime: string, stateRoot: string, bundle: string, id: string, logPath: string): string[] => [
  runtime, "--log", logPath, "--log-format", "json", "--root", stateRoot, "run", ...keepFlag(runtime), "--bundle", bundle, id,
];

export const deleteCommand = (runtime: string, stateRoot: string, id: string): string[] => [
  runtime, "--root", stateRoot, "delete", "--force", id,
];
