/**
 * Pins what spurd/stepd run as root for a job, and with which environment
 * (agent/user-launch.ts): root processes get exactly { PATH: ROOT_PATH } whatever
 * the job's environment says; setpriv is named by absolute path; the job's
 * environment reaches only the user's shell, as text on fd 3, never argv; and
 * the user's shell really opens files, enters directories and applies variables
 * in that order (run here with /bin/sh, as the current user).
 */
import { describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { envScript, parseOpenReport, ROOT_PATH, rootEnv, stepdEnv, umaskOf, userSpawn, type UserLaunch } from "../../../src/agent/user-launch.ts";
import { adminScriptEnv } from "../../../src/agent/prolog.ts";

const HOSTILE = { PATH: "/evil:/usr/bin", LD_PRELOAD: "/evil/lib.so", LD_LIBRARY_PATH: "/evil", SECRET: "s3cr3t", SLURM_UMASK: "0077" };
const launch = (over: Partial<UserLaunch> = {}): UserLaunch => ({ uid: 1001, gid: 1001, workDir: "/home/u", node: "n1", umask: "0077", env: HOSTILE, ...over });
const HOST = { asRoot: true, setpriv: "/usr/bin/setpriv" };

describe("the environment of root processes", () => {
  it("is fixed: a PATH of system directories and nothing else", () => {
    expect(rootEnv()).toEqual({ PATH: "/usr/sbin:/usr/bin:/sbin:/bin" });
    expect(ROOT_PATH.split(":").every((d) => d.startsWith("/") && !d.includes(".."))).toBe(true);
  });

  it("of stepd keeps only spurd's own SPUR_* switches", () => {
    const daemon = { PATH: "/root/bin:/usr/bin", LD_PRELOAD: "/x.so", HOME: "/root", SPUR_KEEP_CONTAINER_SCRATCH: "1", SPUR_CONF: "/etc/spur.conf" };
    expect(stepdEnv(daemon)).toEqual({ PATH: ROOT_PATH, SPUR_KEEP_CONTAINER_SCRATCH: "1", SPUR_CONF: "/etc/spur.conf" });
  });

  it("of Prolog/Epilog holds the job's facts only (no PATH, no job environment), as Slurm's", () => {
    const facts = {
      jobId: 7, user: "u", uid: 1001, gid: 1001, partition: "p", nodelist: "n1", account: "a", name: "LD_PRELOAD=/x", clusterName: "c",
      node: "n1", gpuIndices: [], workDir: "/w",
    };
    const env = adminScriptEnv(facts, "prolog_slurmd");
    expect(Object.keys(env).filter((k) => !k.startsWith("SLURM")).sort()).toEqual([]);
    expect(env.PATH).toBeUndefined();
    expect(env.LD_PRELOAD).toBeUndefined();
  });
});

describe("userSpawn", () => {
  it("as root: absolute setpriv with uid, gid and groups first, then /bin/sh; the job's environment only on fd 3", () => {
    const s = userSpawn(launch(), ["/spool/jobs/7/script", "arg"], HOST);
    expect(s.argv.slice(0, 5)).toEqual(["/usr/bin/setpriv", "--reuid=1001", "--regid=1001", "--init-groups", "--"]);
    expect(s.argv[5]).toBe("/bin/sh");
    expect(s.argv.slice(-2)).toEqual(["/spool/jobs/7/script", "arg"]);
    expect(s.argv.join(" ")).not.toContain("s3cr3t");
    expect(s.argv.join(" ")).not.toContain("/evil");
    expect(s.envText).toContain("export SECRET='s3cr3t'");
    expect(s.envText).toContain("export LD_PRELOAD='/evil/lib.so'");
    expect(s.reportsOpens).toBe(false);
  });

  it("a root job or an unprivileged agent: no setpriv, the same shell", () => {
    expect(userSpawn(launch({ uid: 0, gid: 0 }), ["x"], HOST).argv[0]).toBe("/bin/sh");
    expect(userSpawn(launch(), ["x"], { ...HOST, asRoot: false }).argv[0]).toBe("/bin/sh");
  });

  it("batch files are the shell's arguments, stderr joined to stdout when they are the same", () => {
    const s = userSpawn(launch({ stdio: { out: "/w/o", err: "/w/o", in: "", append: false } }), ["x"], HOST);
    const sh = s.argv.indexOf("/bin/sh");
    expect(s.argv.slice(sh + 3, sh + 11)).toEqual(["spur-user", "/w/o", "&1", "", "0", "0077", "/home/u", "n1"]);
    expect(s.reportsOpens).toBe(true);
  });

  it("the umask is the job's SLURM_UMASK when octal", () => {
    expect(umaskOf({ SLURM_UMASK: "0077" })).toBe("0077");
    expect(umaskOf({ SLURM_UMASK: "; rm -rf /" })).toBe("");
    expect(umaskOf({})).toBe("");
  });
});

describe("envScript", () => {
  it("quotes every value; names a shell cannot export go through env(1)", () => {
    const text = envScript({ A: "it's", "BASH_FUNC_m%%": "() { echo hi\n}", UID: "5" });
    expect(text).toContain("export A='it'\\''s'");
    expect(text).toContain("set -- /usr/bin/env 'BASH_FUNC_m%%=() { echo hi\n}' 'UID=5' \"$@\"");
  });
});

describe("parseOpenReport", () => {
  const stdio = { out: "/w/o", err: "/w/e", in: "/w/i", append: false };
  it("every file opened: nothing to report", () => {
    expect(parseOpenReport("stdin\nstdout\nstderr\n", stdio)).toBeUndefined();
  });
  it("a failed open names the file and the system's reason, whatever the shell's wording", () => {
    expect(parseOpenReport("stdin\nstdout\n/bin/sh: 2: cannot create /w/o: Permission denied\n", stdio)).toEqual({ stream: "stdout", path: "/w/o", reason: "Permission denied" });
    expect(parseOpenReport("stdin\nstdout\n/bin/sh: 1: cannot create /w/o: Directory nonexistent\n", stdio)?.reason).toBe("No such file or directory");
    expect(parseOpenReport("stdin\n/bin/sh: line 1: /w/i: No such file or directory\n", stdio)).toEqual({ stream: "stdin", path: "/w/i", reason: "No such file or directory" });
  });
});

describe("the user's shell (run as this user)", () => {
  const run = (l: UserLaunch, cmd: string[]): Promise<{ code: number; report: string }> => {
    const s = userSpawn(l, cmd, { asRoot: false, setpriv: "" });
    const child = spawn(s.argv[0] as string, s.argv.slice(1), { env: rootEnv(), cwd: "/", stdio: ["ignore", "ignore", "ignore", "pipe", "pipe"] });
    // As run-as.ts does: a shell that fails before reading its environment closes fd 3 (EPIPE is
    // expected), and the report is complete only when fd 4 itself has closed.
    const envPipe = child.stdio[3] as Writable;
    envPipe.on("error", () => undefined);
    envPipe.end(s.envText);
    let report = "";
    const reportPipe = child.stdio[4] as Readable;
    reportPipe.on("data", (b: Buffer) => {
      report += b.toString();
    });
    const reportClosed = new Promise<void>((resolve) => reportPipe.once("close", () => resolve()));
    const exited = new Promise<number>((resolve) => child.once("exit", (code) => resolve(code ?? -1)));
    return Promise.all([exited, reportClosed]).then(([code]) => ({ code, report }));
  };

  it("opens the files with the umask, enters the work dir, applies the environment, execs the command", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    const r = await run(launch({ workDir: dir, env: { GREETING: "hi there", PATH: "/usr/bin:/bin" }, stdio: { out, err: out, in: "", append: false } }), [
      "/bin/sh", "-c", 'echo "$GREETING $(pwd) $SLURM_TASK_PID"; echo err >&2',
    ]);
    expect(r.code).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text).toMatch(new RegExp(`^hi there ${dir} \\d+\\nerr\\n$`));
    expect(statSync(out).mode & 0o777).toBe(0o600);
  });

  it("a missing work dir: Slurm's line on stderr and /tmp", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    await run(launch({ workDir: `${dir}/none`, env: {}, umask: "", stdio: { out, err: out, in: "", append: false } }), ["/bin/pwd"]);
    expect(readFileSync(out, "utf8")).toBe(`slurmstepd-n1: error: couldn't chdir to \`${dir}/none': No such file or directory: going to /tmp instead\n/tmp\n`);
  });

  it("a command missing on the job's PATH: Slurm's execve line and exit 2, looked up with the job's PATH", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    const stdio = { out, err: out, in: "", append: false };
    const missing = await run(launch({ workDir: dir, env: { PATH: dir }, stdio, checkCommand: "ls" }), ["ls"]);
    expect(missing.code).toBe(2);
    expect(readFileSync(out, "utf8")).toBe("slurmstepd-n1: error: execve(): ls: No such file or directory\n");
    const found = await run(launch({ workDir: dir, env: { PATH: "/usr/bin:/bin" }, stdio, checkCommand: "ls" }), ["ls", "-d", "."]);
    expect(found.code).toBe(0);
    expect(readFileSync(out, "utf8")).toBe(".\n");
  });

  it("a job that exports no PATH gets none (not root's): a bare command name is not found, as slurmstepd", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    const stdio = { out, err: out, in: "", append: false };
    const none = await run(launch({ workDir: dir, env: { BAR: "1" }, stdio, checkCommand: "ls" }), ["ls"]);
    expect(none.code).toBe(2);
    expect(readFileSync(out, "utf8")).toBe("slurmstepd-n1: error: execve(): ls: No such file or directory\n");
    // (a shell started without PATH makes up its own default: env(1) shows what the task really got)
    await run(launch({ workDir: dir, env: { BAR: "1" }, stdio }), ["/usr/bin/env"]);
    const got = readFileSync(out, "utf8").split("\n").filter((l) => l.startsWith("PATH=") || l.startsWith("BAR="));
    expect(got).toEqual(["BAR=1"]);
  });

  it("a relative command that cannot be executed is shown under the task's directory, not the submitter's PWD", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    writeFileSync(join(dir, "notexec.sh"), "echo hi\n", { mode: 0o644 });
    const r = await run(launch({ workDir: dir, env: { PATH: "/usr/bin:/bin", PWD: "/somewhere/else" }, stdio: { out, err: out, in: "", append: false }, checkCommand: "./notexec.sh" }), ["./notexec.sh"]);
    expect(r.code).toBe(13);
    expect(readFileSync(out, "utf8")).toBe(`slurmstepd-n1: error: execve(): ${dir}/./notexec.sh: Permission denied\n`);
  });

  it("an input file that cannot be opened is reported on fd 4 and nothing runs", async () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-ul-"));
    const out = join(dir, "out");
    writeFileSync(join(dir, "ran"), "");
    const stdio = { out, err: out, in: `${dir}/missing`, append: false };
    const r = await run(launch({ workDir: dir, env: {}, stdio }), ["/bin/sh", "-c", `echo ran > ${dir}/ran`]);
    expect(r.code).not.toBe(0);
    expect(parseOpenReport(r.report, stdio)).toEqual({ stream: "stdin", path: `${dir}/missing`, reason: "No such file or directory" });
    expect(readFileSync(join(dir, "ran"), "utf8")).toBe("");
  });
});
