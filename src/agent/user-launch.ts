/**
 * @module agent/user-launch
 * The pure core of how spurd/stepd (root) start anything for a job's user: what
 * root runs, with which environment, and what happens only after the switch to
 * the user. Two rules (see docs/security.md):
 * 1. Every process that runs as root gets a fixed, minimal environment
 *    (`rootEnv`): never the job's, whose PATH or LD_PRELOAD would otherwise pick
 *    what root runs. Root's programs are named by absolute path.
 * 2. Everything the job names (output, error and input files, the working
 *    directory) is opened by a shell that already runs as the user (after
 *    setpriv has set uid, gid and supplementary groups), with the submitter's
 *    umask; the job's environment is applied by that shell last, read from fd 3
 *    (a pipe, so it never appears on a command line that `ps` shows).
 * Nothing here touches the system: the shell (run-as.ts) supplies the setpriv
 * path and whether it runs as root.
 */
import { shellQuote as quote } from "../lib/shell-quote.ts";

/** PATH of every root process spurd/stepd start (Slurm's stepd uses its own, not the job's). */
export const ROOT_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";

/** The whole environment of a process spurd/stepd start as root (site scripts excepted: see prolog.ts). */
export function rootEnv(): Record<string, string> {
  return { PATH: ROOT_PATH };
}

/**
 * The environment spurd gives stepd (root): the fixed one plus spurd's own SPUR_* switches (set by the
 * admin who started spurd, e.g. SPUR_KEEP_CONTAINER_SCRATCH); nothing of any job.
 */
export function stepdEnv(daemonEnv: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const env = rootEnv();
  for (const [k, v] of Object.entries(daemonEnv)) if (k.startsWith("SPUR_") && v !== undefined) env[k] = v;
  return env;
}

/** Files the job names, opened as the user before its command runs (batch scripts); "-" = keep the fd given. */
export interface UserStdio {
  /** Output file (truncated unless `append`). */
  out: string;
  /** Error file; equal to `out` = the same open file (stderr joins stdout); "-" = none (/dev/null). */
  err: string;
  /** Input file ("" = /dev/null). */
  in: string;
  append: boolean;
}

export interface UserLaunch {
  uid: number;
  gid: number;
  /** The job's working directory: entered as the user, else /tmp with Slurm's error line. */
  workDir: string;
  /** This node's name, for the error lines (slurmstepd-<node>). */
  node: string;
  /** Octal umask for files the job creates ("" = keep); the job's SLURM_UMASK. */
  umask: string;
  /** The job's environment, applied after the switch. */
  env: Readonly<Record<string, string>>;
  /** Batch scripts: files to open as the user; their outcome is reported on fd 4. */
  stdio?: UserStdio;
  /** srun tasks: the command, looked for (in the work dir, on the job's PATH) as the user before anything runs. */
  checkCommand?: string;
}

/** How the process is started: argv (run with rootEnv), and the text to write on its fd 3. */
export interface UserSpawn {
  argv: string[];
  envText: string;
  /** Whether fd 4 is the open-report pipe (`parseOpenReport`). */
  reportsOpens: boolean;
}

/**
 * The user's shell. $1..$8: out, err ("&1" = stdout, "-" = /dev/null), in ("-" = keep), append (1/0), umask, work dir, node,
 * a command to look for first (srun: Slurm's execve error, exit 2, when it is missing; looked up as the user); then the command. With files to open, stderr first goes to fd 4 and a marker names each file before it is
 * opened: a failed open makes the shell print its error there and exit (POSIX: a redirection error of
 * `exec` ends a non-interactive shell). Order as Slurm's stepd: stdin, stdout, stderr.
 */
const USER_SH = [
  'o=$1 e=$2 i=$3 ap=$4 um=$5 wd=$6 node=$7 chk=$8; shift 8',
  '[ -z "$um" ] || umask "$um" || exit 1',
  'if [ -n "$o$e$i" ]; then',
  '  exec 2>&4',
  '  if [ "$i" != - ]; then echo stdin >&4; exec <"${i:-/dev/null}"; fi',
  '  if [ -n "$o" ] && [ "$o" != - ]; then echo stdout >&4; if [ "$ap" = 1 ]; then exec >>"$o"; else exec >"$o"; fi; fi',
  '  if [ "$e" != - ]; then echo stderr >&4; fi',
  '  if [ "$e" = - ]; then exec 2>/dev/null; elif [ "$e" = "&1" ]; then exec 2>&1; elif [ "$ap" = 1 ]; then exec 2>>"$e"; else exec 2>"$e"; fi',
  '  exec 4>&-',
  'fi',
  'if ! cd "$wd" 2>/dev/null; then',
  '  why="No such file or directory"',
  '  if [ -e "$wd" ]; then if [ -d "$wd" ]; then why="Permission denied"; else why="Not a directory"; fi',
  '  else p=${wd%/*}; while [ -n "$p" ] && [ ! -e "$p" ]; do p=${p%/*}; done; [ -z "$p" ] || [ -x "$p" ] || why="Permission denied"; fi',
  "  printf \"slurmstepd-%s: error: couldn't chdir to \\`%s': %s: going to /tmp instead\\n\" \"$node\" \"$wd\" \"$why\" >&2",
  '  cd /tmp || exit 1',
  'fi',
  // The directory the task runs in, before the job's environment (which may carry the submitter's PWD) is applied.
  '_spur_wd=$PWD',
  // cd leaves OLDPWD=/ behind, slurmstepd's chdir(2) nothing: a submitted OLDPWD comes back with the environment next.
  'unset OLDPWD',
  'eval "$(cat <&3)" || exit 1',
  'exec 3<&-',
  'if [ -n "$chk" ]; then',
  '  case $chk in */*) [ -e "$chk" ];; *) command -v -- "$chk" >/dev/null 2>&1;; esac ||',
  '    { printf "slurmstepd-%s: error: execve(): %s: No such file or directory\\n" "$node" "$chk" >&2; exit 2; }',
  // A path that exists but cannot be executed: EACCES (exit 13), shown as slurmstepd shows it (/cwd/./x).
  '  case $chk in */*) if [ ! -f "$chk" ] || [ ! -x "$chk" ]; then',
  '    case $chk in /*) shown=$chk;; *) shown="${_spur_wd%/}/$chk";; esac',
  '    printf "slurmstepd-%s: error: execve(): %s: Permission denied\\n" "$node" "$shown" >&2; exit 13; fi;; esac',
  'fi',
  'SLURM_TASK_PID=$$; export SLURM_TASK_PID',
  'exec "$@"',
].join("\n");

const SHELL_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Names a POSIX shell cannot export (bash's read-only ones, when /bin/sh is bash): passed through env(1). */
const SHELL_READONLY = new Set(["BASHOPTS", "BASH_VERSINFO", "EUID", "PPID", "SHELLOPTS", "UID"]);

/**
 * The job's environment as shell text for the user's shell to eval: `export NAME='value'` per variable;
 * names a shell cannot export (exported bash functions `BASH_FUNC_f%%`, dots, read-only names) go through
 * `/usr/bin/env NAME=value` in front of the command instead.
 */
export function envScript(env: Readonly<Record<string, string>>): string {
  const lines: string[] = [];
  const viaEnv: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (k === "" || k.includes("=")) continue;
    if (SHELL_NAME.test(k) && !SHELL_READONLY.has(k)) lines.push(`export ${k}=${quote(v)}`);
    else viaEnv.push(quote(`${k}=${v}`));
  }
  if (viaEnv.length > 0) lines.push(`set -- /usr/bin/env ${viaEnv.join(" ")} "$@"`);
  // The shell starts with root's fixed PATH (rootEnv); a job that exports none (--export=NONE, or a
  // list without PATH) must not get it: its command is looked up on no PATH, as slurmstepd does.
  if (!Object.hasOwn(env, "PATH")) lines.unshift("unset PATH");
  return `${lines.join("\n")}\n`;
}

/**
 * argv of the whole launch: [setpriv (root) →] the user's shell → `command`. The caller spawns it with
 * `rootEnv()`, cwd "/", fd 3 a pipe carrying `envText`, and (reportsOpens) fd 4 a pipe it reads.
 */
export function userSpawn(l: UserLaunch, command: readonly string[], host: { asRoot: boolean; setpriv: string }): UserSpawn {
  const s = l.stdio;
  const files = s === undefined ? ["", "", ""] : [s.out, s.err === s.out ? "&1" : s.err, s.in];
  const sh = ["/bin/sh", "-c", USER_SH, "spur-user", ...files, s?.append ? "1" : "0", l.umask, l.workDir || "/", l.node, l.checkCommand ?? "", ...command];
  const drop = host.asRoot && l.uid !== 0;
  const argv = drop ? [host.setpriv, `--reuid=${l.uid}`, `--regid=${l.gid}`, "--init-groups", "--", ...sh] : sh;
  return { argv, envText: envScript(l.env), reportsOpens: s !== undefined };
}

/** A umask as the user's shell takes it: SLURM_UMASK when it is octal, else "" (keep). */
export function umaskOf(env: Readonly<Record<string, string>>): string {
  const u = env.SLURM_UMASK ?? "";
  return /^[0-7]{1,4}$/.test(u) ? u : "";
}

/** dash shortens ENOENT in its own words; Slurm's line has strerror's. */
const DASH_WORDS: Record<string, string> = { "no such file": "No such file or directory", "directory nonexistent": "No such file or directory" };

export interface OpenFailure {
  /** stdin, stdout or stderr. */
  stream: string;
  path: string;
  /** The system's reason ("Permission denied"). */
  reason: string;
}

/**
 * What fd 4 said: undefined when every file opened (the shell closed it before exec), else which file
 * failed and why, from the shell's own error line (its wording varies: the reason is after the last ": ").
 */
export function parseOpenReport(text: string, stdio: UserStdio): OpenFailure | undefined {
  const lines = text.split("\n").filter((l) => l !== "");
  const markers = new Set(["stdin", "stdout", "stderr"]);
  const last = lines.at(-1);
  if (last === undefined || markers.has(last)) return undefined;
  const stream = [...lines].reverse().find((l) => markers.has(l)) ?? "stdout";
  const path = stream === "stdin" ? stdio.in || "/dev/null" : stream === "stdout" ? stdio.out : stdio.err;
  const said = last.slice(last.lastIndexOf(": ") + 2).trim();
  return { stream, path, reason: DASH_WORDS[said.toLowerCase()] ?? (said || "Unknown error") };
}

/** Slurm's stepd log line for a file the job's user may not open. */
export const openFailureLine = (f: OpenFailure): string => `error: Could not open ${f.stream} file ${f.path}: ${f.reason}`;
