/**
 * @module agent/container/sweep
 * At spurd's start: the container scratch directories (root file systems, overlay
 * mounts, bundles) and runtime state of steps nobody runs any more. srun steps die
 * with the spurd that ran them; a batch script's container belongs to its stepd,
 * which outlives spurd, so it stays while the job's spool folder has a live stepd.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { releaseRootfs } from "./rootfs.ts";

/** Scratch folders are `<jobId>.<step>`; `liveBatchJobs` are jobs whose stepd still runs. Returns the folders removed. */
export async function sweepContainers(spool: string, liveBatchJobs: ReadonlySet<number>): Promise<string[]> {
  const root = join(spool, "containers");
  if (!existsSync(root)) return [];
  const mounts = readMounts();
  const removed: string[] = [];
  for (const name of readdirSync(root)) {
    const m = /^(\d+)\.(\w+)$/.exec(name);
    if (m === null) continue;
    if (m[2] === "batch" && liveBatchJobs.has(Number(m[1]))) continue;
    const scratch = join(root, name);
    const rootfs = join(scratch, "rootfs");
    await releaseRootfs(scratch, mounts.includes(rootfs) ? rootfs : "");
    removed.push(name);
  }
  // The runtime's state of containers that no longer run (their cgroups went with the containment sweep).
  const state = join(spool, "oci-state");
  for (const id of existsSync(state) ? readdirSync(state) : []) {
    const m = /-(\d+)-(\w+)-\d+$/.exec(id);
    if (m !== null && !(m[2] === "batch" && liveBatchJobs.has(Number(m[1])))) rmSync(join(state, id), { recursive: true, force: true });
  }
  return removed;
}

function readMounts(): string[] {
  try {
    return readFileSync("/proc/self/mountinfo", "utf8").split("\n").map((l) => l.split(" ")[4] ?? "");
  } catch {
    return [];
  }
}
