/**
 * End-to-end: sbcast (issue 19, part 3) on the real binary. The file reaches
 * every node of the job, written by the job's user; messages and exit codes as
 * Slurm 22.05's sbcast (recorded on the oracle 2026-12-04). As on the oracle,
 * the local cluster's nodes share one host, so two nodes writing one path
 * meet "File exists" unless -f is given.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureUser, isRoot, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "2", "--mem-per-node", "2000"]);
});
afterAll(() => c?.down());

/** Run `script` as a batch job (sbatch --wait) in a fresh directory; returns the directory and the job's output. */
function batch(script: string, opts: string[] = [], user?: string, srcMode = 0o640): { dir: string; out: string } {
  const dir = mkdtempSync(join(c.work, "sb-"));
  chmodSync(dir, 0o777);
  writeFileSync(join(dir, "src.txt"), "hello sbcast\n");
  chmodSync(join(dir, "src.txt"), srcMode);
  utimesSync(join(dir, "src.txt"), new Date("2020-01-02T03:04:05Z"), new Date("2020-01-02T03:04:05Z"));
  writeFileSync(join(dir, "job.sh"), `#!/bin/bash\n${script}\n`, { mode: 0o755 });
  const r = c.run(["sbatch", "--wait", "-o", join(dir, "out"), ...opts, join(dir, "job.sh")], { cwd: dir, ...(user ? { user } : {}) });
  expect(r.code).toBe(0);
  return { dir, out: readFileSync(join(dir, "out"), "utf8") };
}

describe("sbcast inside a job", () => {
  it("copies the file to every node with the source's mode; -f replaces it", () => {
    const { dir, out } = batch('sbcast -f src.txt "$PWD/copy"; echo "rc=$?"', ["-N2"]);
    expect(out).toBe("rc=0\n");
    expect(readFileSync(join(dir, "copy"), "utf8")).toBe("hello sbcast\n");
    expect(statSync(join(dir, "copy")).mode & 0o777).toBe(0o640);
  });

  it("an existing file without -f: REQUEST_FILE_BCAST(node): File exists, exit 17; a relative DEST is in the working directory", () => {
    const { out } = batch('sbcast src.txt copy; echo "rc=$?"; sbcast src.txt copy; echo "rc=$?"');
    expect(out).toBe("rc=0\nsbcast: error: REQUEST_FILE_BCAST(n1): File exists\nrc=17\n");
  });

  it("-p keeps the modification time; without it the copy is new", () => {
    const { dir } = batch("sbcast -p src.txt kept; sbcast src.txt fresh");
    expect(statSync(join(dir, "kept")).mtime.toISOString()).toBe("2020-01-02T03:04:05.000Z");
    expect(statSync(join(dir, "fresh")).mtime.getUTCFullYear()).not.toBe(2020);
  });

  it("a file of many blocks (-s 1k) arrives whole", () => {
    const body = "0123456789abcdef".repeat(1000);
    const { dir } = batch(`printf '%s' '${body}' > big; sbcast -s 1k big big.copy`);
    expect(readFileSync(join(dir, "big.copy"), "utf8")).toBe(body);
  });

  it("a missing source, a directory, an empty file, a missing directory on the node (oracle wording and codes)", () => {
    const { out } = batch(
      'sbcast nosuch.txt x; echo "rc=$?"; sbcast /tmp y; echo "rc=$?"; : > empty; sbcast empty e; echo "rc=$?"; sbcast src.txt /nonexistent-dir/x; echo "rc=$?"',
    );
    expect(out).toBe(
      "sbcast: error: Can't open `nosuch.txt`: No such file or directory\nrc=255\n" +
        "sbcast: error: Can't mmap file `/tmp`, No such device.\nrc=255\n" +
        "sbcast: error: Warning: file `empty` is empty.\nrc=0\n" +
        "sbcast: error: REQUEST_FILE_BCAST(n1): No such file or directory\nrc=2\n",
    );
  });

  it("-j JOB.STEP sends to the step's nodes while the step runs", () => {
    const { dir, out } = batch(
      'srun -n1 sleep 30 & until squeue -s -h -j "$SLURM_JOB_ID" -o %i | grep -q "\\.0$"; do sleep 0.2; done; ' +
        'sbcast -j "$SLURM_JOB_ID.0" src.txt "$PWD/by-step"; echo "rc=$?"; kill %1',
    );
    expect(out).toContain("rc=0\n");
    expect(readFileSync(join(dir, "by-step"), "utf8")).toBe("hello sbcast\n");
  });

  it("a step that does not exist: lookup error, exit 255", () => {
    const { out } = batch('sbcast -j "$SLURM_JOB_ID.7" src.txt x; echo "rc=$?"');
    expect(out).toMatch(/^sbcast: error: Slurm job \d+\.7 lookup error: Invalid job id specified\nrc=255\n$/);
  });
});

describe("sbcast's checks before anything is sent", () => {
  it("the command line: two names, a job id", () => {
    const env = { ...c.env };
    delete env.SLURM_JOB_ID;
    expect(c.run(["sbcast", "only-one"])).toEqual({ stdout: "", stderr: 'Need two file names, have 1 names\nTry "sbcast --help" for more information\n', code: 1 });
    expect(c.run(["sbcast", "a", "b"])).toEqual({
      stdout: "", stderr: "sbcast: error: Need a job id to run this command.  Run from within a Slurm job or use the --jobid option.\n", code: 1,
    });
    expect(c.run(["sbcast", "--usage"]).stdout).toBe("Usage: sbcast [--exclude] [-CfFjpvV] [--send-libs] SOURCE DEST\n");
  });

  it("a job that does not exist, is pending or has ended (exit 255)", () => {
    const src = join(c.work, "sb-src.txt");
    writeFileSync(src, "x\n");
    expect(c.run(["sbcast", "-j", "999999", src, "/tmp/x"]).stderr).toBe("sbcast: error: Slurm job 999999 lookup error: Invalid job id specified\n");
    const held = c.run(["sbatch", "--parsable", "-H", "--wrap", "true"]).stdout.trim();
    const pending = c.run(["sbcast", "-j", held, src, "/tmp/x"]);
    expect(pending).toEqual({ stdout: "", stderr: `sbcast: error: Slurm job ${held} lookup error: Job is pending execution\n`, code: 255 });
    c.run(["scancel", held]);
    const done = c.run(["sbatch", "--parsable", "--wait", "--wrap", "true"]).stdout.trim();
    expect(c.run(["sbcast", "-j", done, src, "/tmp/x"]).stderr).toBe(`sbcast: error: Slurm job ${done} lookup error: Job/step already completing or completed\n`);
  });
});

describe.skipIf(!isRoot())("sbcast writes as the job's user", () => {
  const A = "spursbcasta";
  const B = "spursbcastb";
  const ready = isRoot() && ensureUser(A) && ensureUser(B);

  it.skipIf(!ready)("the user's copy is the user's; where the user may not write: Permission denied, exit 13", () => {
    const { dir, out } = batch('sbcast src.txt "$PWD/mine"; echo "rc=$?"; sbcast src.txt /root/spur-sbcast-nope; echo "rc=$?"', [], A, 0o644);
    expect(out).toBe("rc=0\nsbcast: error: REQUEST_FILE_BCAST(n1): Permission denied\nrc=13\n");
    const uid = Number(spawnSync("id", ["-u", A], { encoding: "utf8" }).stdout.trim() || "-1");
    expect(statSync(join(dir, "mine")).uid).toBe(uid);
  });

  it.skipIf(!ready)("another user's job: Invalid user id, exit 255, nothing written", () => {
    const src = join(c.work, "sb-pub.txt");
    writeFileSync(src, "x\n", { mode: 0o644 });
    const job = c.run(["sbatch", "--parsable", "--wrap", "sleep 30"], { user: A }).stdout.trim();
    const r = c.run(["sbcast", "-j", job, src, join(c.work, "sb-stolen")], { user: B });
    expect(r).toEqual({ stdout: "", stderr: `sbcast: error: Slurm job ${job} lookup error: Invalid user id\n`, code: 255 });
    c.run(["scancel", job]);
  });
});
