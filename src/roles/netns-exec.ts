/**
 * @module roles/netns-exec
 * `spur exec HOST [--user NAME] [--state-dir DIR] -- CMD ...`: run a command on a host of
 * `spur up --netns` (its network and UTS namespaces), as root or, with --user, as that
 * user the way a login would make it (setpriv: the user's uid, gid and groups, HOME,
 * USER, LOGNAME), with SPUR_CONF and STATE/bin (sbatch, srun, ... links) on PATH.
 * The state directory defaults to the directory of $SPUR_CONF. Exit status: the command's.
 */
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { existsSync } from "node:fs";
import { lookupUserName } from "../net/users.ts";
import { enterArgs, readPlan } from "./netns-cluster.ts";

export interface ExecFlags {
  host?: string | undefined;
  /** Run as this user (setpriv), else as root. */
  user?: string | undefined;
  /** Default: the directory of $SPUR_CONF, else /tmp/spur. */
  stateDir?: string | undefined;
  /** The command and its arguments (what follows `--`). */
  cmd: readonly string[];
}

/** The command's exit status (flags: admin/exec.ts). */
export async function execMain(flags: ExecFlags): Promise<number> {
  const { host, user, cmd } = flags;
  const stateDir = flags.stateDir ?? (process.env.SPUR_CONF ? dirname(process.env.SPUR_CONF) : "/tmp/spur");
  const dir = resolve(stateDir);
  const plan = readPlan(dir);
  if (host === undefined || cmd.length === 0) {
    process.stderr.write(`spur: error: exec needs a HOST and -- CMD\nTry "spur exec --help" for more information\n`);
    return 1;
  }
  const h = plan?.hosts.find((x) => x.name === host);
  if (plan === undefined || h === undefined) {
    process.stderr.write(`spur: error: exec: no host "${host}" in ${dir} (${plan === undefined ? "no spur up --netns cluster there" : `hosts: ${plan.hosts.map((x) => x.name).join(", ")}`})\n`);
    return 1;
  }
  const bin = join(dir, "bin");
  const env: Record<string, string | undefined> = { ...process.env, SPUR_CONF: join(dir, "spur.conf"), PATH: `${existsSync(bin) ? `${bin}:` : ""}${process.env.PATH ?? "/usr/bin:/bin"}` };
  let prefix: string[] = [];
  if (user !== undefined) {
    const u = lookupUserName(user);
    if (u === undefined) {
      process.stderr.write(`spur: error: exec: no user "${user}"\n`);
      return 1;
    }
    prefix = ["setpriv", `--reuid=${u.uid}`, `--regid=${u.gid}`, "--init-groups", "--"];
    Object.assign(env, { HOME: u.home || "/", USER: u.name, LOGNAME: u.name });
  }
  const r = spawnSync("nsenter", [...enterArgs(dir, h), ...prefix, ...cmd], { stdio: "inherit", env });
  if (r.error !== undefined) {
    process.stderr.write(`spur: error: exec: ${r.error.message}\n`);
    return 1;
  }
  return r.status ?? 128 + 9;
}
