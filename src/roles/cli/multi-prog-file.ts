/**
 * @module roles/cli/multi-prog-file
 * srun's side of `--multi-prog FILE`: read the file as the user who runs srun
 * (never on a node, never as root), check it (compat/multi-prog) and give each
 * task its command line. A task whose line slurmstepd could not read fails as
 * it does there: `slurmstepd-NODE: error: ...` on its stderr and exit code 2
 * (oracle: an unclosed quote), printed by a shell that runs as the job's user.
 */
import { closeSync, fstatSync, openSync, readFileSync } from "node:fs";
import { checkMultiProg, MULTI_PROG_BYTES_MAX, multiProgArgv } from "../../compat/multi-prog.ts";

export interface MultiProg {
  /** The step's task count (the file's, when -n did not give one). */
  ntasks: number;
  taskArgv(taskId: number, node: string): string[];
}

/** The file `path` with srun's `extra` arguments for a step of `ntasks` tasks (0 = not given), or srun's error text. */
export function loadMultiProg(path: string, extra: readonly string[], ntasks: number): MultiProg | string {
  const fail = (...lines: string[]) => lines.map((l) => `srun: error: ${l}\n`).join("");
  let text: string;
  try {
    const fd = openSync(path, "r");
    try {
      if (fstatSync(fd).size > MULTI_PROG_BYTES_MAX) return fail(`Multi_prog config file ${path} is too large`);
      text = readFileSync(fd, "utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return fail(`Could not open multi_prog config file ${path}`);
  }
  const checked = checkMultiProg(text, path, ntasks > 0 ? ntasks : 1, ntasks > 0);
  if (!checked.ok) return fail(...checked.lines);
  return {
    ntasks: checked.ntasks,
    taskArgv(taskId, node) {
      const r = multiProgArgv(text, taskId, extra);
      if (r.ok) return r.argv;
      return ["/bin/sh", "-c", 'printf "slurmstepd-%s: error: %s\\n" "$1" "$2" >&2; exit 2', "sh", node, r.error];
    },
  };
}
