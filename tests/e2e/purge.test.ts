/**
 * End-to-end: a finished job leaves the controller after MinJobAge, as in Slurm, and stays in
 * accounting. With MinJobAge=2, a completed batch job (with a step) is soon unknown to
 * `scontrol show job` and `squeue -j` (Slurm's "slurm_load_jobs error: Invalid job id
 * specified", exit 1, as the oracle answers for a purged job) while `sacct -j` still shows it
 * and its steps, also after a controller restart (the log replayed writes the archive again).
 * A new submission depending on the purged id is refused as for any unknown id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { appendFileSync, readdirSync } from "node:fs";
import { Database } from "bun:sqlite";
import { ARCHIVE_FILE } from "../../src/ctld/job-archive.ts";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { BIN, eventually, jobEnded, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

const restart = (): void => {
  spawnSync(BIN, ["down", "--state-dir", join(c.dir, "cluster")]);
  const up = spawnSync(BIN, ["up", "--detach", "--state-dir", join(c.dir, "cluster")], { encoding: "utf8" });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
};

beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2"]);
  appendFileSync(c.conf, "MinJobAge=2\n");
  restart();
});
afterAll(() => c?.down());

/** Job ids in the controller's archive file (read beside it, as sacct's rows come from there). */
function archivedIds(): number[] {
  const path = findFile(join(c.dir, "cluster"), ARCHIVE_FILE);
  if (path === undefined) return [];
  const db = new Database(path, { readonly: true });
  try {
    return db.query<{ id: number }, []>("SELECT id FROM jobs").all().map((r) => r.id);
  } finally {
    db.close();
  }
}

function findFile(dir: string, name: string): string | undefined {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (e.isFile() && e.name === name) return join(dir, name);
    if (e.isDirectory()) {
      const found = findFile(join(dir, e.name), name);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

const sacctRows = (id: string) => c.run(["sacct", "-n", "-P", "-o", "JobID,State", "-j", id]).stdout.trim().split("\n");

describe("finished jobs purged after MinJobAge", () => {
  it("are gone from squeue and scontrol with Slurm's message, and stay in sacct with their steps, across a restart", async () => {
    const id = c.run(["sbatch", "--parsable", "--wrap", "srun hostname"]).stdout.trim();
    expect(id).toMatch(/^\d+$/);
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    const before = sacctRows(id);
    expect(before).toContain(`${id}.batch|COMPLETED`);
    expect(before).toContain(`${id}.0|COMPLETED`);
    // squeue and scontrol stop showing it after MinJobAge; the controller drops it at its next purge, into the archive.
    await eventually("the job purged into the archive", () => (archivedIds().includes(Number(id)) ? true : undefined), 30_000);
    const show = c.run(["scontrol", "show", "job", id]);
    expect(show.stderr).toBe("slurm_load_jobs error: Invalid job id specified\n");
    const sq = c.run(["squeue", "-j", id]);
    expect([sq.code, sq.stderr]).toEqual([1, "slurm_load_jobs error: Invalid job id specified\n"]);
    expect(sacctRows(id)).toEqual(before);
    const dep = c.run(["sbatch", `--dependency=afterok:${id}`, "--wrap", "true"]);
    expect([dep.code, dep.stderr]).toEqual([1, "sbatch: error: Batch job submission failed: Job dependency problem\n"]);
    restart();
    await eventually("sacct after the restart", () => (sacctRows(id).join() === before.join() ? true : undefined), 30_000);
    expect(c.run(["scontrol", "show", "job", id]).code).toBe(1);
    // ids keep increasing
    const next = c.run(["sbatch", "--parsable", "--hold", "--wrap", "true"]).stdout.trim();
    expect(Number(next)).toBeGreaterThan(Number(id));
  }, 120_000);
});
