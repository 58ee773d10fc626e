/**
 * The login environment a --get-user-env / --export=NONE job starts with (agent/login-env.ts), and
 * sbatch's --get-user-env values as 22.05 takes them.
 */
import { describe, expect, it } from "vitest";
import { LOGIN_ENV_MARK, loginEnvCommand, parseLoginEnv, wantsLoginEnv, withLoginEnv } from "../../../src/agent/login-env.ts";
import type { Built } from "../../../src/compat/options/build-spec.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import type { Result } from "../../../src/lib/result.ts";

function buildSbatch(argv: string[], env: Record<string, string> = {}): Result<Built> {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed;
  const ctx = { cmd: "sbatch" as const, argv, env, invoker: { cwd: "/home/alice", hostname: "login1" }, now: 1796214958 };
  return sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
}

const out = (profileNoise: string, vars: string[]): string => `${profileNoise}\0${LOGIN_ENV_MARK}\0${vars.join("\0")}\0`;

describe("login environment", () => {
  it("reads env -0's variables after the mark, skipping what a profile printed first", () => {
    const env = parseLoginEnv(out("Welcome!\nHOME=/fake\n", ["HOME=/home/u", "PATH=/usr/bin:/bin", "MULTI=a\nb", "EQ=x=y"]));
    expect(env).toEqual({ HOME: "/home/u", PATH: "/usr/bin:/bin", MULTI: "a\nb", EQ: "x=y" });
  });

  it("gives nothing when the shell never printed the mark (nologin, su refused)", () => {
    expect(parseLoginEnv("This account is currently not available.\n")).toEqual({});
  });

  it("adds only what the job lacks; never _ or SLURM_*", () => {
    const job = { PATH: "/opt/bin", FOO: "bar", SLURM_JOB_ID: "7", SLURM_GET_USER_ENV: "1" };
    const login = { PATH: "/usr/bin", HOME: "/home/u", USER: "u", _: "/usr/bin/env", SLURM_JOB_ID: "1", SLURM_X: "y" };
    expect(withLoginEnv(job, login)).toEqual({ ...job, HOME: "/home/u", USER: "u" });
  });

  it("is asked for by SLURM_GET_USER_ENV=1 only", () => {
    expect(wantsLoginEnv({ SLURM_GET_USER_ENV: "1" })).toBe(true);
    expect(wantsLoginEnv({ SLURM_GET_USER_ENV: "0" })).toBe(false);
    expect(wantsLoginEnv({})).toBe(false);
  });

  it("runs the user's login shell through su -", () => {
    const argv = loginEnvCommand("/usr/bin/su", "alice");
    expect(argv.slice(0, 4)).toEqual(["/usr/bin/su", "-", "alice", "-c"]);
    expect(argv[4]).toContain("/usr/bin/env -0");
  });
});

describe("sbatch --get-user-env (oracle 22.05)", () => {
  it.each(["", "=L", "=10S", "=", "=-5", "=10l"])("--get-user-env%s is accepted and sets SLURM_GET_USER_ENV=1", (v) => {
    const r = buildSbatch([`--get-user-env${v}`]);
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.value.spec.env.SLURM_GET_USER_ENV).toBe("1");
      expect(r.value.warnings).toEqual([]);
    }
  });

  it.each(["=x", "=10x", "=10L "])("--get-user-env%s is refused as 22.05 refuses it (exit 255)", (v) => {
    const r = buildSbatch([`--get-user-env${v}`]);
    expect(r).toMatchObject({ ok: false, error: { message: "Invalid --get-user-env specification", exitCode: 255 } });
  });

  it("SBATCH_GET_USER_ENV takes the same values", () => {
    expect(buildSbatch([], { SBATCH_GET_USER_ENV: "1" })).toMatchObject({ ok: true, value: { spec: { env: { SLURM_GET_USER_ENV: "1" } } } });
    expect(buildSbatch([], { SBATCH_GET_USER_ENV: "x" })).toMatchObject({ ok: false, error: { message: "Invalid --get-user-env specification" } });
  });

  it("without it, an exported environment does not ask for the login one", () => {
    const r = buildSbatch([]);
    expect(r.ok && r.value.spec.env.SLURM_GET_USER_ENV).toBe(undefined);
  });
});
