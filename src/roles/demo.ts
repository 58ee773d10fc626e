/**
 * @module roles/demo
 * `spur demo`: the README's first command. Starts a local cluster in a fresh
 * directory, submits a real batch script, shows it in squeue while it runs and
 * in sacct once done, prints its output file, and ends with the address of the
 * cluster's web page (spurrestd's /ui, with a token): the cluster then stays up
 * for it, and the last lines say how to stop it. Without spurrestd (or when the
 * job failed) the cluster is stopped as before.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnSync } from "node:child_process";
import { down, up } from "./local-cluster.ts";
import { selfExec } from "./self-exec.ts";
import type { UpOptions } from "./local-cluster.ts";

const SCRIPT = `#!/bin/bash
#SBATCH --job-name=demo
#SBATCH --ntasks=2
#SBATCH --time=5
echo "job $SLURM_JOB_ID on $SLURMD_NODENAME (nodes: $SLURM_JOB_NODELIST, tasks: $SLURM_NTASKS)"
srun hostname
sleep 2
echo done
`;

function show(env: NodeJS.ProcessEnv, cwd: string, args: string[]): string {
  const [cmd, ...pre] = selfExec();
  process.stdout.write(`$ ${args.join(" ")}\n`);
  const r = spawnSync(cmd ?? process.execPath, [...pre, ...args], { env, cwd, encoding: "utf8" });
  process.stdout.write(r.stdout);
  process.stderr.write(r.stderr);
  return r.stdout;
}

/** The demo on a cluster of `shape` (its state directory is made here). */
export async function runDemo(shape: UpOptions): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "spur-demo-"));
  const o = { ...shape, stateDir: join(dir, "cluster") };
  process.stdout.write(`Starting a local cluster in ${o.stateDir} ...\n`);
  const { conf, restUrl } = await up(o);
  let keep = false;
  // The job calls srun: put the Slurm-named links on its PATH (sbatch exports the environment).
  const bin = join(dir, "bin");
  show(process.env, dir, ["install-links", bin]);
  const env = { ...process.env, SPUR_CONF: conf, PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}` };
  try {
    writeFileSync(join(dir, "job.sh"), SCRIPT);
    const submitted = show(env, dir, ["sbatch", "job.sh"]);
    const jobId = /(\d+)/.exec(submitted)?.[1];
    if (jobId === undefined) return 1;
    // Show the queue once the job runs (the first scheduling pass may come a moment after the submission).
    const stateOf = (): string =>
      spawnSync(selfExec()[0] ?? "", [...selfExec().slice(1), "squeue", "-h", "-j", jobId, "-o", "%T"], { env, encoding: "utf8" }).stdout.trim();
    for (let i = 0; i < 50 && stateOf() === "PENDING"; i++) await new Promise((res) => setTimeout(res, 100));
    show(env, dir, ["squeue"]);
    for (let i = 0; i < 100; i++) {
      const r = spawnSync(selfExec()[0] ?? "", [...selfExec().slice(1), "squeue", "-h", "-j", jobId], { env, encoding: "utf8" });
      if (r.stdout.trim() === "" || / CD /.test(r.stdout)) break;
      await new Promise((res) => setTimeout(res, 200));
    }
    show(env, dir, ["sacct", "-j", jobId]);
    process.stdout.write(`$ cat slurm-${jobId}.out\n${readFileSync(join(dir, `slurm-${jobId}.out`), "utf8")}`);
    keep = restUrl !== undefined && printPageUrl(env, dir, restUrl, o.stateDir);
    return 0;
  } finally {
    if (!keep) {
      await down(o.stateDir);
      process.stdout.write("Cluster stopped.\n");
    }
  }
}

/** Lifetime of the token in the page's address: long enough to look around, short enough to leave lying in a terminal. */
const PAGE_TOKEN_SEC = 8 * 3600;

/** The web page's address with a fresh token, last; false when no token could be had (the cluster is then stopped). */
function printPageUrl(env: NodeJS.ProcessEnv, cwd: string, restUrl: string, stateDir: string): boolean {
  const [cmd, ...pre] = selfExec();
  const r = spawnSync(cmd ?? process.execPath, [...pre, "scontrol", "token", `lifespan=${PAGE_TOKEN_SEC}`], { env, cwd, encoding: "utf8" });
  const token = /^SLURM_JWT=(\S+)$/m.exec(r.stdout)?.[1];
  if (token === undefined) return false;
  process.stdout.write(`\nThe cluster stays up for its web page. Stop it with: ${[cmd ?? "spur", ...pre].join(" ")} down --state-dir ${stateDir}\n`);
  process.stdout.write(`Cluster page: ${restUrl}/ui?token=${token}\n`);
  return true;
}
