/**
 * @module agent/container/batch
 * The batch script in its container (stepd's side): the root file system is made,
 * the script is bind-mounted read-only at /.spur/script and run through the image's
 * /bin/sh where it has one (which sets SLURM_TASK_PID as outside containers),
 * else executed directly; the returned command is the runtime's, which stepd starts
 * inside the job's cgroup like any script. TaskProlog/TaskEpilog do not run here.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { LaunchFile } from "../spool.ts";
import { errorLines, oomKills, prepareContainer, releaseContainer, taskCommand } from "./launch.ts";

export interface BatchContainer {
  argv: string[];
  /** OOM kills in the container's own cgroup (v1), read before the step's cgroups go. */
  oomKills(): number;
  release(): Promise<void>;
}

const SCRIPT_IN_CONTAINER = "/.spur/script";
const TASK_PID_SH = 'SLURM_TASK_PID=$$; export SLURM_TASK_PID; exec "$@"';

/** The runtime command for the batch script, or the job's stderr text saying why there is none. */
export async function batchContainer(launch: LaunchFile, dir: string): Promise<BatchContainer | string> {
  const box = launch.container;
  if (box === undefined) return "container: nothing to run\n";
  const prepared = await prepareContainer(box);
  if (!prepared.ok) return errorLines(box, prepared.problem);
  const rootfs = prepared.rootfs;
  const script = [SCRIPT_IN_CONTAINER, ...launch.argv];
  const args = existsSync(join(rootfs.path, "bin", "sh")) ? ["/bin/sh", "-c", TASK_PID_SH, "slurm_task", ...script] : script;
  const stats = launch.cgroup?.stats;
  const memoryStepDir = stats?.version === "v1" ? stats.memoryDir : undefined;
  const argv = taskCommand(box, rootfs, {
    index: 0, args, env: launch.env, uid: launch.uid, gid: launch.gid,
    extraMounts: [{ source: join(dir, "script"), destination: SCRIPT_IN_CONTAINER, flags: ["ro"] }],
  });
  return {
    argv, oomKills: () => oomKills(box, memoryStepDir, 1), release: async () => void (await releaseContainer(box, rootfs, 1)) };
}
