/**
 * @module roles/cli/srun-bcast
 * srun --bcast[=DEST]: the step's executable is copied to each of its nodes before the tasks
 * start (through the agents, as sbcast does: written as the job's user) and the tasks run that
 * copy. Facts from the 22.05 oracle: the command is looked up as the shell would (a name
 * without "/" on PATH), "srun: fatal: Can not execute NAME" when it cannot be; without DEST
 * each node gets `slurm_bcast_JOB.STEP_NODE` in srun's working directory (left there after the
 * step), with DEST every node gets DEST.
 */
import { accessSync, closeSync, constants, fstatSync, openSync, statSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { rpcUrl } from "../../net/tls.ts";
import { sendTo } from "./sbcast.ts";

/** The executable srun would run: `name` with a "/" from `cwd`, else the first match on PATH; undefined when none. */
export function executablePath(name: string, cwd: string, path: string | undefined): string | undefined {
  const candidates = name.includes("/") ? [resolve(cwd, name)] : (path ?? "").split(":").filter(Boolean).map((d) => resolve(cwd, d, name));
  return candidates.find((c) => {
    try {
      accessSync(c, constants.X_OK);
      return statSync(c).isFile();
    } catch {
      return false;
    }
  });
}

/** Where node `node` gets the copy. */
export function bcastDest(dest: string, cwd: string, jobId: number, stepId: number, node: string): string {
  if (dest !== "") return isAbsolute(dest) ? dest : join(cwd, dest);
  return join(cwd, `slurm_bcast_${jobId}.${stepId}_${node}`);
}

/**
 * Copies `source` to every node of the step; the path each node's tasks run, or the first
 * node's error (already said on stderr, as sbcast says it).
 */
export async function broadcastExecutable(
  source: string, dest: string, cwd: string, jobId: number, stepId: number, nodes: readonly { name: string; addr: string; port: number }[],
): Promise<Map<string, string> | string> {
  const fd = openSync(source, "r");
  try {
    const file = { fd, stat: fstatSync(fd) };
    const paths = new Map(nodes.map((n) => [n.name, bcastDest(dest, cwd, jobId, stepId, n.name)]));
    const params = { source, jobText: String(jobId), jobId, stepId, force: true, preserve: false, blockBytes: 0, timeoutSec: 0, fanout: 0, verbose: 0 };
    const outcomes = await Promise.all(nodes.map((n) => sendTo({ name: n.name, url: rpcUrl(n.addr, n.port) }, { ...params, dest: paths.get(n.name) ?? "" }, file, "srun")));
    const failed = outcomes.find((o) => o !== 0);
    return failed === undefined ? paths : `could not broadcast ${source} to the step's nodes`;
  } finally {
    closeSync(fd);
  }
}
