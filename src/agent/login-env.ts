/**
 * @module agent/login-env
 * A job with SLURM_GET_USER_ENV=1 (sbatch --get-user-env, and --export=NONE or an export
 * list, which imply it) starts with the user's login environment under its own: on the node,
 * before the script starts, the user's login shell prints its environment and every variable
 * the job does not already have is added (oracle 22.05: --export=NONE gets HOME, PATH, USER,
 * LOGNAME, SHELL, MAIL and what the user's profile exports; a submitted PATH or FOO is kept).
 * A user without a login shell (nologin) adds nothing, as on the oracle. Pure: the shell that
 * runs the command is stepd's (login-env-run.ts).
 */

/** Whether the job asked for its user's login environment. */
export const wantsLoginEnv = (env: Readonly<Record<string, string>>): boolean => env.SLURM_GET_USER_ENV === "1";

/** Printed before the environment, so what a profile script echoes on the way is skipped. */
export const LOGIN_ENV_MARK = "SPUR_LOGIN_ENV_BEGIN";

/** How long the login shell may take; a slower one adds nothing (the script starts without it). */
export const LOGIN_ENV_TIMEOUT_MS = 8000;

/**
 * The command that prints it, run by root with a fixed environment: util-linux su with "-" starts the
 * user's login shell (its profile, PAM's environment, MAIL) as Slurm's node daemon does.
 */
export function loginEnvCommand(su: string, user: string): string[] {
  return [su, "-", user, "-c", PRINT_ENV];
}

/**
 * What the login shell runs: the mark, then its environment. env must not be the shell's last command:
 * bash would exec it and lower SHLVL (22.05's job shows the login's 1).
 */
export const PRINT_ENV = `printf '\\0${LOGIN_ENV_MARK}\\0'; /usr/bin/env -0; exit $?`;

/** The variables in env -0's output after the mark; nothing when the mark is missing (the shell failed). */
export function parseLoginEnv(out: string): Record<string, string> {
  const at = out.indexOf(`\0${LOGIN_ENV_MARK}\0`);
  if (at < 0) return {};
  const env: Record<string, string> = {};
  for (const item of out.slice(at + LOGIN_ENV_MARK.length + 2).split("\0")) {
    const eq = item.indexOf("=");
    if (eq > 0) env[item.slice(0, eq)] = item.slice(eq + 1);
  }
  return env;
}

/**
 * The job's environment with the login one's variables it lacks added after its own. Left out: `_`
 * (the login shell's last command, meaningless to the script) and SLURM_* (the job's are the truth).
 */
export function withLoginEnv(job: Readonly<Record<string, string>>, login: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = { ...job };
  for (const [k, v] of Object.entries(login)) {
    if (k === "_" || k.startsWith("SLURM_") || Object.hasOwn(out, k)) continue;
    out[k] = v;
  }
  return out;
}
