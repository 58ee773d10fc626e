/**
 * End-to-end: srun forwards its own stdin (issue 19, part 1). By default and
 * with `-i all` every task reads it (Slurm 22.05: fname_create's IO_ALL default,
 * srun.1 "redirects stdin from the terminal to all tasks"); `-i N` feeds task N
 * only and the others read /dev/null; `-i none` feeds nobody. The agent pulls
 * the bytes from srun's message port and writes them into the task's stdin
 * pipe: no file is opened by root. Also `-u/--unbuffered` against the default
 * line buffering of task output. Waits on conditions, never fixed sleeps.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { BIN, eventually, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--mem-per-node", "4000"]);
});
afterAll(() => c?.down());

/** The lines of labelled output for task `t`, without the label. */
const linesOf = (out: string, t: number): string[] => out.split("\n").filter((l) => l.startsWith(`${t}: `)).map((l) => l.slice(3));

describe("srun's stdin reaches the tasks", () => {
  it("every task by default, across nodes", () => {
    const r = c.run(["srun", "-N2", "-n2", "-l", "cat"], { input: "hi\nthere\n" });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(linesOf(r.stdout, 0)).toEqual(["hi", "there"]);
    expect(linesOf(r.stdout, 1)).toEqual(["hi", "there"]);
  });

  it("-i all feeds every task; -i none feeds none", () => {
    const all = c.run(["srun", "-n2", "-i", "all", "-l", "cat"], { input: "x\n" });
    expect(all.stdout.split("\n").filter(Boolean).sort()).toEqual(["0: x", "1: x"]);
    const none = c.run(["srun", "-n2", "--input=none", "-l", "cat"], { input: "x\n" });
    expect(none).toEqual({ stdout: "", stderr: "", code: 0 });
  });

  it("-i N feeds task N only; the others read end of input at once", () => {
    const r = c.run(["srun", "-N2", "-n3", "-i", "1", "-l", "bash", "-c", 'read -r l; echo "got:$l"'], { input: "one\n" });
    expect(r.code).toBe(0);
    expect(linesOf(r.stdout, 1)).toEqual(["got:one"]);
    expect(linesOf(r.stdout, 0)).toEqual(["got:"]);
    expect(linesOf(r.stdout, 2)).toEqual(["got:"]);
  });

  it("a task id the step does not have is a file name (Slurm: -i 7 with 2 tasks reads the file 7)", () => {
    const cwd = mkdtempSync(join(c.work, "in-"));
    writeFileSync(join(cwd, "7"), "from-file\n");
    const r = c.run(["srun", "-n2", "-i", "7", "-l", "cat"], { input: "from-srun\n", cwd });
    expect(r.stdout.split("\n").filter(Boolean).sort()).toEqual(["0: from-file", "1: from-file"]);
  });

  it("a file srun cannot open: Slurm's error and exit 1, nothing runs (oracle: -i 5 with 2 tasks)", () => {
    const cwd = mkdtempSync(join(c.work, "in-"));
    const r = c.run(["srun", "-n2", "-i", "5", "touch", "ran"], { cwd });
    expect(r).toEqual({ stdout: "", stderr: "srun: error: Could not open stdin file: No such file or directory\n", code: 1 });
    expect(existsSync(join(cwd, "ran"))).toBe(false);
  });

  it("carries a megabyte byte for byte, and the task's stdin is the agent's pipe, no file", () => {
    const input = "0123456789abcdef".repeat(65536);
    const r = c.run(["srun", "bash", "-c", "readlink /proc/self/fd/0; md5sum"], { input });
    expect(r.code).toBe(0);
    const [fd0, sum] = r.stdout.trim().split("\n");
    // a pipe, as slurmstepd's: bash takes a socket on stdin for a remote login and reads ~/.bashrc
    expect(fd0).toMatch(/^pipe:\[\d+\]$/);
    const expected = new Bun.CryptoHasher("md5").update(input).digest("hex");
    expect(sum).toBe(`${expected}  -`);
  });

  it("srun ends with its tasks even while its own stdin stays open", async () => {
    const srun = spawn(BIN, ["srun", "true"], { env: c.env, cwd: c.work, stdio: ["pipe", "pipe", "pipe"] });
    let code: number | null | undefined;
    srun.on("exit", (rc) => (code = rc));
    srun.stdin.write("never read\n"); // and never closed
    await eventually("srun exited", () => (code === undefined ? undefined : code), 30_000);
    expect(code).toBe(0);
    srun.stdin.destroy();
  });
});

describe("srun in the background of a terminal", () => {
  const hasScript = spawnSync("script", ["--version"]).status === 0;
  it.skipIf(!hasScript)("does not stop for terminal input: its tasks read end of input (oracle: read gives 1)", () => {
    // script(1) gives the shell a terminal; an interactive bash puts `srun ... &` in the background
    const inner = `export SPUR_CONF=${c.conf} PATH=${c.env.PATH}; srun bash -c "read -t 5 x; echo read rc=\\$?" & wait`;
    const r = spawnSync("script", ["-qec", `bash -ic '${inner}'`, "/dev/null"], { env: c.env, cwd: c.work, encoding: "utf8", timeout: 60_000 });
    expect(r.stdout).toContain("read rc=1");
    expect(r.stdout).not.toContain("Stopped");
  });
});

describe("-u/--unbuffered against line-buffered output", () => {
  /** Task 0 prints half a line, then task 1 a whole line, then task 0 ends its line (ordered by marker files). */
  const script = (dir: string) => [
    "bash", "-c",
    `cd ${dir}; if [ "$SLURM_PROCID" = 0 ]; then printf A1; touch t0; until [ -e m1 ]; do sleep 0.05; done; printf 'A2\\n';` +
    ` else until [ -e t0 ]; do sleep 0.05; done; printf 'B\\n'; touch m1; fi`,
  ];

  it("without -u a task's half line waits for its newline", () => {
    const dir = mkdtempSync(join(c.work, "lb-"));
    const r = c.run(["srun", "-n2", ...script(dir)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("B\nA1A2\n");
  });

  it("with -u output passes as it comes", () => {
    const dir = mkdtempSync(join(c.work, "ub-"));
    const r = c.run(["srun", "-u", "-n2", ...script(dir)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("A1B\nA2\n");
  });

  it("-u -l labels each piece as it comes, ending a partial line (oracle: printf a, then b: `0: a` `0: b`)", async () => {
    const dir = mkdtempSync(join(c.work, "ul-"));
    const srun = spawn(BIN, ["srun", "-u", "-l", "bash", "-c", `printf a; until [ -e ${dir}/go ]; do sleep 0.05; done; printf 'b\\nc'`], {
      env: c.env, cwd: c.work, stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let code: number | null | undefined;
    srun.stdout.on("data", (b: Buffer) => (out += b.toString()));
    srun.on("exit", (rc) => (code = rc));
    await eventually("the labelled half line", () => (out === "0: a\n" ? true : undefined));
    writeFileSync(join(dir, "go"), "");
    await eventually("srun's end", () => (code === undefined ? undefined : code));
    expect(out).toBe("0: a\n0: b\n0: c\n");
  });

  it("a partial line is printed when its task ends", () => {
    const r = c.run(["srun", "bash", "-c", "printf 'no newline'"]);
    expect(r.stdout).toBe("no newline");
    expect(existsSync(c.work)).toBe(true);
  });
});
