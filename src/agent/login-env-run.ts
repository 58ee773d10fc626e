/**
 * @module agent/login-env-run
 * Runs login-env.ts's command for stepd: su by absolute path, as root with the fixed root
 * environment (never the job's), stdin closed, killed after LOGIN_ENV_TIMEOUT_MS. An agent that
 * is not root runs jobs of its own user only and has no su to use: it starts that user's login
 * shell itself. Any failure gives an empty environment (the job starts with its own), and so
 * does a profile that prints more than LOGIN_ENV_BYTES_MAX (it is killed: stepd keeps no more).
 */
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { LOGIN_ENV_TIMEOUT_MS, loginEnvCommand, parseLoginEnv, PRINT_ENV } from "./login-env.ts";
import { rootEnv } from "./user-launch.ts";

/** More output than an environment can be: the user's profile is flooding stdout. */
export const LOGIN_ENV_BYTES_MAX = 4 * 2 ** 20;

const suPath = (): string | undefined => ["/usr/bin/su", "/bin/su"].find((p) => existsSync(p));

export function captureLoginEnv(user: string, timeoutMs = LOGIN_ENV_TIMEOUT_MS): Promise<Record<string, string>> {
  const asRoot = (process.getuid?.() ?? 0) === 0;
  const su = suPath();
  const shell = process.env.SHELL || "/bin/sh";
  const argv = asRoot
    ? su === undefined ? undefined : loginEnvCommand(su, user)
    : [shell, "-l", "-c", PRINT_ENV];
  if (argv === undefined) return Promise.resolve({});
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd as string, args, { cwd: "/", env: asRoot ? rootEnv() : { PATH: rootEnv().PATH ?? "", HOME: process.env.HOME ?? "/", USER: user, LOGNAME: user, SHELL: shell }, stdio: ["ignore", "pipe", "ignore"] });
    const chunks: Buffer[] = [];
    let bytes = 0;
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.stdout?.on("data", (b: Buffer) => {
      bytes += b.length;
      if (bytes > LOGIN_ENV_BYTES_MAX) child.kill("SIGKILL");
      else chunks.push(b);
    });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      resolve(ok && bytes <= LOGIN_ENV_BYTES_MAX ? parseLoginEnv(Buffer.concat(chunks).toString()) : {});
    };
    child.once("error", () => done(false));
    child.once("close", (code) => done(code === 0));
  });
}
