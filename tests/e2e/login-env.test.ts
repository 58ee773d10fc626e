/**
 * sbatch --export=NONE and --get-user-env on a real cluster: the batch script starts with its user's
 * login environment under the job's own, read on the node by the user's login shell (as slurmd does
 * with su -). Oracle 22.05 (2026-12-05, as root and as a user with a login shell): --export=NONE gets
 * HOME, PATH, USER, LOGNAME, SHELL from the login; --get-user-env keeps every submitted variable (PATH
 * and FOO as given) and adds the rest; a user whose shell is nologin gets nothing added.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureUser, eventually, isRoot, jobEnded, startCluster, type Cluster } from "./cluster.ts";

let c: Cluster;
beforeAll(() => {
  c = startCluster(["--nodes", "1", "--cpus-per-node", "2"]);
});
afterAll(() => c?.down());

/** Submit with exactly `env` (plus SPUR_CONF) and return the job's environment as its script saw it. */
async function jobEnv(args: string[], env: Record<string, string>, user?: string): Promise<Record<string, string>> {
  const out = join(c.work, `env-${Date.now()}-${Math.random().toString(36).slice(2)}.out`);
  const r = c.run(["sbatch", "--parsable", "-o", out, ...args, "--wrap", "/usr/bin/env -0"], { user, env: { ...env, SPUR_CONF: c.conf } });
  expect(r.stderr).toBe("");
  const id = r.stdout.trim();
  expect(await jobEnded(c, id)).toBe("COMPLETED");
  const text = await eventually("output", () => readFileSync(out, "utf8") || undefined);
  return Object.fromEntries(text.split("\0").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

describe.skipIf(!isRoot())("the user's login environment", () => {
  it("--export=NONE: the login shell's HOME, PATH, USER, LOGNAME, SHELL; nothing submitted", async () => {
    const e = await jobEnv(["--export=NONE"], { PATH: "/usr/bin:/bin", FOO: "bar" });
    expect(e.SLURM_GET_USER_ENV).toBe("1");
    expect([e.HOME, e.USER, e.LOGNAME]).toEqual(["/root", "root", "root"]);
    expect(e.SHELL).toMatch(/^\//);
    expect(e.PATH).toMatch(/\/usr\/bin/);
    expect(e.FOO).toBeUndefined();
  });

  it("--get-user-env: what was submitted stays, what the login adds fills in", async () => {
    const e = await jobEnv(["--get-user-env=10L"], { PATH: "/usr/bin:/bin", HOME: "/tmp", FOO: "bar" });
    expect([e.PATH, e.HOME, e.FOO]).toEqual(["/usr/bin:/bin", "/tmp", "bar"]);
    expect([e.USER, e.LOGNAME, e.SLURM_GET_USER_ENV]).toEqual(["root", "root", "1"]);
    expect(e._).toBeUndefined();
  });

  it("another user gets their own login environment; a nologin user gets none added", async () => {
    expect(ensureUser("spurlogin")).toBe(true);
    const e = await jobEnv(["--export=NONE"], { PATH: "/usr/bin:/bin" }, "spurlogin");
    expect([e.USER, e.LOGNAME, e.HOME]).toEqual(["spurlogin", "spurlogin", "/home/spurlogin"]);
    const none = await jobEnv(["--export=NONE"], { PATH: "/usr/bin:/bin" }, "nobody");
    expect([none.USER, none.HOME, none.SLURM_GET_USER_ENV]).toEqual([undefined, undefined, "1"]);
  });

  it("a profile that floods its output adds nothing, and the job still runs", async () => {
    expect(ensureUser("spurflood")).toBe(true);
    writeFileSync("/home/spurflood/.profile", "head -c 8000000 /dev/zero | tr '\\0' x\n");
    const e = await jobEnv(["--export=NONE"], { PATH: "/usr/bin:/bin" }, "spurflood");
    expect([e.USER, e.HOME, e.SLURM_GET_USER_ENV]).toEqual([undefined, undefined, "1"]);
  });

  it("without either, a job's environment is what was submitted", async () => {
    const e = await jobEnv([], { PATH: "/usr/bin:/bin", FOO: "bar" });
    expect([e.FOO, e.USER, e.SLURM_GET_USER_ENV]).toEqual(["bar", undefined, undefined]);
  });
});
