/**
 * End-to-end: no user becomes root through spurd/stepd (issue 14, part 1). Two
 * ordinary Unix users submit the attacks that worked when the root stepd opened
 * the job's files and started setpriv with the job's environment:
 * - `-o` naming a root-owned 0600 file, `-o /root/x`, `-i /root/secret`, and
 *   another user's output file: each job FAILED (Slurm 22.05's 0:53) and the
 *   file untouched, not created, not printed;
 * - PATH=/evil:$PATH with an /evil/setpriv (and sh, taskset, runc...) that leave
 *   a marker naming the uid they ran as, LD_DEBUG_OUTPUT (ld.so's own trace
 *   files, owned by each process's euid), and LD_PRELOAD of a library that
 *   leaves a marker (where a C compiler exists): never root, for sbatch and srun;
 * - an srun client claiming gid 0: its tasks get the user's own group;
 * - output files take the submitter's umask (077 → 0600, 022 → 0644);
 * - a work directory the user may not enter: /tmp, with Slurm's error line.
 * Skips, saying why, when not root (it needs two users and a root spurd).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, startCluster, ensureUser, eventually, isRoot, jobEnded, type Cluster } from "./cluster.ts";

const A = "spurpriva";
const B = "spurprivb";
const ready = isRoot() && ensureUser(A) && ensureUser(B);
const EVIL_TOOLS = ["setpriv", "sh", "bash", "taskset", "env", "cat", "runc", "crun", "tar", "id", "true"];

let c: Cluster;
let markers = "";
let evil = "";
const idOf = (user: string, flag = "-u"): number => Number(spawnSync("id", [flag, user], { encoding: "utf8" }).stdout.trim());
const rootFiles: string[] = [];

beforeAll(() => {
  if (!ready) return;
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2"]);
  markers = join(c.dir, "markers");
  mkdirSync(markers, { mode: 0o777 });
  chmodSync(markers, 0o777);
  // The attacker's own directory of look-alikes: each records who ran it, then runs the real one.
  evil = join(c.dir, "evil");
  mkdirSync(evil);
  for (const tool of EVIL_TOOLS) {
    const real = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"].map((d) => join(d, tool)).find((p) => existsSync(p)) ?? "/bin/false";
    writeFileSync(join(evil, tool), `#!/bin/sh\n: > ${markers}/${tool}-ran-as-$(/usr/bin/id -u)\nexec ${real} "$@"\n`, { mode: 0o755 });
  }
  spawnSync("chown", ["-R", `${idOf(A)}:${idOf(A, "-g")}`, evil]);
});
afterAll(() => {
  c?.down();
  for (const f of rootFiles) rmSync(f, { force: true });
});

/** Run a Spur command as `user` with the cluster's environment plus `env`, under `umask`. */
function runAs(user: string, args: string[], opts: { env?: Record<string, string>; umask?: string } = {}): { stdout: string; stderr: string; code: number } {
  const ids = [`--reuid=${idOf(user)}`, `--regid=${idOf(user, "-g")}`, "--init-groups", "--"];
  // The attacker's variables are set after the switch: this test's own setpriv runs as root.
  const vars = Object.entries(opts.env ?? {}).map(([k, v]) => `${k}=${v}`);
  const sh = ["/bin/sh", "-c", `umask ${opts.umask ?? "022"}; exec /usr/bin/env "$@"`, "sh", ...vars, BIN, ...args];
  const r = spawnSync("/usr/bin/setpriv", [...ids, ...sh], { env: c.env, cwd: c.work, encoding: "utf8", timeout: 120_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

function sbatch(user: string, args: string[], opts: { env?: Record<string, string>; umask?: string } = {}): string {
  const r = runAs(user, ["sbatch", "--parsable", ...args], opts);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
}

const exitCode = (id: string): string => c.run(["sacct", "-n", "-X", "-P", "-o", "ExitCode", "-j", id]).stdout.trim();

/** A root-owned 0600 file with `text`, removed after the run. */
function rootOnly(path: string, text: string): string {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
  chownSync(path, 0, 0);
  rootFiles.push(path);
  return path;
}

/** The markers left by look-alikes or the preload library that ran as root. */
const ranAsRoot = (): string[] => readdirSync(markers).filter((m) => m.endsWith("-as-0"));

describe.runIf(ready)("files a job names are opened as its user", () => {
  it("-o naming a root-owned 0600 file: FAILED 0:53, the file neither truncated nor given away", async () => {
    const file = rootOnly(join(c.dir, "root-only"), "root's data\n");
    const id = sbatch(A, ["-o", file, "--wrap", "echo pwned"]);
    expect(await jobEnded(c, id)).toBe("FAILED");
    expect(exitCode(id)).toBe("0:53");
    expect(readFileSync(file, "utf8")).toBe("root's data\n");
    const st = statSync(file);
    expect([st.uid, st.gid, st.mode & 0o777]).toEqual([0, 0, 0o600]);
  });

  it("-o /root/x: FAILED, nothing created in /root", async () => {
    const target = `/root/spur-priv-${process.pid}.out`;
    rootFiles.push(target);
    const id = sbatch(A, ["-o", target, "--wrap", "echo pwned"]);
    expect(await jobEnded(c, id)).toBe("FAILED");
    expect(existsSync(target)).toBe(false);
  });

  it("-i /root/secret --wrap cat: FAILED, the secret nowhere in the user's output", async () => {
    const secret = rootOnly(`/root/spur-priv-secret-${process.pid}`, "top secret\n");
    const out = join(c.work, "stolen.out");
    const id = sbatch(A, ["-i", secret, "-o", out, "--wrap", "cat"]);
    expect(await jobEnded(c, id)).toBe("FAILED");
    expect(exitCode(id)).toBe("0:53");
    expect(existsSync(out) ? readFileSync(out, "utf8") : "").not.toContain("top secret");
  });

  it("output files take the submitter's umask; another user cannot write into them", async () => {
    const mine = join(c.work, "a-private.out");
    const a = sbatch(A, ["-o", mine, "--wrap", "echo mine"], { umask: "077" });
    expect(await jobEnded(c, a)).toBe("COMPLETED");
    const st = statSync(mine);
    expect([st.uid, st.mode & 0o777]).toEqual([idOf(A), 0o600]);
    const open = join(c.work, "b-open.out");
    const b = sbatch(B, ["-o", open, "--wrap", "echo theirs"], { umask: "022" });
    expect(await jobEnded(c, b)).toBe("COMPLETED");
    expect([statSync(open).uid, statSync(open).mode & 0o777]).toEqual([idOf(B), 0o644]);
    // B aims at A's file: refused as B, A's output stays A's.
    const intruder = sbatch(B, ["-o", mine, "--wrap", "echo overwritten"]);
    expect(await jobEnded(c, intruder)).toBe("FAILED");
    expect(readFileSync(mine, "utf8")).toBe("mine\n");
    expect(statSync(mine).uid).toBe(idOf(A));
  });

  it("a work directory the user may not enter: /tmp, and Slurm's error line", async () => {
    const out = join(c.work, "wd.out");
    const id = sbatch(A, ["-D", "/root", "-o", out, "--wrap", "pwd"]);
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    expect(readFileSync(out, "utf8")).toBe("slurmstepd-n1: error: couldn't chdir to `/root': Permission denied: going to /tmp instead\n/tmp\n");
  });
});

describe.runIf(ready)("srun's request is not trusted beyond the caller's uid", () => {
  it("a client claiming root's group: the tasks run with the user's own group", () => {
    // srun sends its own gid; this one runs with gid 0, as a forged request would claim.
    const ids = [`--reuid=${idOf(A)}`, "--regid=0", "--clear-groups", "--"];
    const r = spawnSync("/usr/bin/setpriv", [...ids, BIN, "srun", "-N1", "-n1", "id", "-g"], { env: c.env, cwd: c.work, encoding: "utf8", timeout: 120_000 });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(`${idOf(A, "-g")}\n`);
  });
});

/** A RunTasks call made straight to spurd as `user` (no srun, no controller): the stderr its tasks got. */
function forgedRunTasks(user: string, body: Record<string, unknown>): string {
  const port = /NodeName=n1 .*?Port=(\d+)/.exec(readFileSync(c.conf, "utf8"))?.[1] ?? "";
  const json = Buffer.from(JSON.stringify(body));
  const envelope = Buffer.alloc(5 + json.length);
  envelope.writeUInt32BE(json.length, 1);
  json.copy(envelope, 5);
  const file = join(c.dir, `forged-${user}.bin`);
  writeFileSync(file, envelope, { mode: 0o644 });
  const ids = [`--reuid=${idOf(user)}`, `--regid=${idOf(user, "-g")}`, "--init-groups", "--"];
  const r = spawnSync("/usr/bin/setpriv", [...ids, "curl", "-s", "--max-time", "30", "-H", "Content-Type: application/connect+json", "--data-binary", `@${file}`,
    `http://127.0.0.1:${port}/spur.v1.Agent/RunTasks`], { encoding: "buffer", timeout: 60_000 });
  let out = "";
  for (let at = 0, raw = r.stdout; at + 5 <= raw.length; ) {
    const len = raw.readUInt32BE(at + 1);
    const msg = JSON.parse(raw.subarray(at + 5, at + 5 + len).toString()) as { stderr?: string; error?: { message?: string } };
    if (msg.stderr) out += Buffer.from(msg.stderr, "base64").toString();
    if (msg.error?.message) out += msg.error.message;
    at += 5 + len;
  }
  return out;
}

describe.runIf(ready)("srun requests are checked against the controller's record of the job", () => {
  it("a step in another user's job, or beyond the job's share of the node, is refused before anything runs", async () => {
    const id = sbatch(A, ["-o", "/dev/null", "--wrap", "sleep 60"]);
    await eventually("A's job running", () => (c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim() === "RUNNING" ? true : undefined));
    const marker = join(markers, "forged-ran");
    const base = { jobId: Number(id), stepId: 0, argv: ["/bin/sh", "-c", `touch ${marker}`], workDir: "/tmp", tasks: [{ taskId: 0, env: {} }] };
    const intruder = forgedRunTasks(B, { ...base, uid: idOf(B), gid: idOf(B, "-g"), user: B, alloc: { node: "n1", cpus: 1 } });
    expect(intruder).toContain(`Invalid job credential: job ${id} is not the caller's`);
    const greedy = forgedRunTasks(A, { ...base, uid: idOf(A), gid: idOf(A, "-g"), user: A, alloc: { node: "n1", cpus: 64 } });
    expect(greedy).toMatch(/Invalid job credential: the step asks for 64 CPUs, the job holds \d+ on n1/);
    expect(existsSync(marker)).toBe(false);
    c.run(["scancel", id]);
  });
});

describe.runIf(ready)("nothing runs as root with the job's environment", () => {
  it("PATH=/evil:$PATH: no look-alike (setpriv, sh, taskset, ...) runs as root, for sbatch and srun; the job sees the PATH", async () => {
    const env = { PATH: `${evil}:${c.env.PATH ?? "/usr/bin:/bin"}` };
    const out = join(c.work, "evil-path.out");
    const id = sbatch(A, ["-o", out, "--wrap", "id -u"], { env });
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    const step = runAs(A, ["srun", "-N1", "-n1", "id", "-u"], { env });
    expect(step.code).toBe(0);
    expect(ranAsRoot()).toEqual([]);
    // The attack reached the job itself (as the user): the test would see it had root run it.
    expect(readFileSync(out, "utf8")).toBe(`${idOf(A)}\n`);
    expect(existsSync(join(markers, `id-ran-as-${idOf(A)}`))).toBe(true);
  });

  it("the dynamic loader's variables reach no root process (LD_DEBUG_OUTPUT files are all the user's; no compiler needed)", async () => {
    // ld.so writes LD_DEBUG_OUTPUT.<pid> with the euid of every process that starts with these variables.
    const trace = join(markers, "ld");
    const env = { LD_DEBUG: "files", LD_DEBUG_OUTPUT: trace };
    const id = sbatch(A, ["-o", join(c.work, "lddebug.out"), "--wrap", "true"], { env });
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    expect(runAs(A, ["srun", "-N1", "-n1", "true"], { env }).code).toBe(0);
    const traces = readdirSync(markers).filter((m) => m.startsWith("ld."));
    expect(traces.length).toBeGreaterThan(0);
    expect(traces.filter((t) => statSync(join(markers, t)).uid === 0)).toEqual([]);
  });

  const cc = spawnSync("cc", ["--version"]).status === 0;
  it.runIf(cc)("LD_PRELOAD: the library never loads into a root process, for sbatch and srun; the job has it", async () => {
    const src = join(c.dir, "preload.c");
    const lib = join(c.dir, "preload.so");
    writeFileSync(src, `#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void mark(void) {\n  char p[512]; snprintf(p, sizeof p, "${markers}/preload-ran-as-%d", (int)geteuid());\n  FILE *f = fopen(p, "w"); if (f) fclose(f);\n}\n`);
    const built = spawnSync("cc", ["-shared", "-fPIC", "-o", lib, src], { encoding: "utf8" });
    expect(built.stderr).toBe("");
    chmodSync(lib, 0o755);
    const out = join(c.work, "preload.out");
    const id = sbatch(A, ["-o", out, "--wrap", 'echo "$LD_PRELOAD"'], { env: { LD_PRELOAD: lib } });
    expect(await jobEnded(c, id)).toBe("COMPLETED");
    const step = runAs(A, ["srun", "-N1", "-n1", "true"], { env: { LD_PRELOAD: lib } });
    expect(step.code).toBe(0);
    expect(ranAsRoot()).toEqual([]);
    expect(readFileSync(out, "utf8")).toBe(`${lib}\n`);
    expect(existsSync(join(markers, `preload-ran-as-${idOf(A)}`))).toBe(true);
  });
});
