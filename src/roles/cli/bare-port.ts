/**
 * @module roles/cli/bare-port
 * A CliPort for the runs that only print something fixed (`--version`, `-V`, `--help`,
 * `--usage`): it reads nothing from the host (no spur.conf, passwd, group or host name:
 * about 1.5-2 ms of start-up, docs/startup.md) and loads no controller client. Anything a
 * command asks of the host through it (the controller, the invoking user's names, stdin,
 * a file, output written while it runs) throws NeedsHost before doing anything, and runCli
 * runs the command again on the real port: a command whose `--help` did need the host
 * prints exactly what it printed before, only later.
 */
import type { CliPort } from "../../net/ctl-port.ts";

/** Thrown by the bare port when a command needs what only the real port has. */
export class NeedsHost extends Error {
  constructor(what: string) {
    super(`the bare CLI port has no ${what}`);
  }
}

/** The arguments that print fixed text in every command (never `-h`: squeue's and sinfo's --noheader). */
const FIXED_TEXT_ARGS = new Set(["--version", "-V", "--help", "--usage"]);

/** Whether a command line is one of the fixed-text requests, alone. */
export const printsFixedText = (argv: readonly string[]): boolean => argv.length === 1 && FIXED_TEXT_ARGS.has(argv[0] ?? "");

export function barePort(): CliPort {
  const refuse = (what: string) => (): never => {
    throw new NeedsHost(what);
  };
  const ctl = new Proxy({}, { get: (_t, name) => refuse(`controller (${String(name)})`) }) as CliPort["ctl"];
  return {
    ctl,
    // The ids come from the process; the names and the host name need the host's files.
    invoker: {
      uid: process.getuid?.() ?? 0,
      gid: process.getgid?.() ?? 0,
      get user(): string {
        throw new NeedsHost("user name");
      },
      get group(): string {
        throw new NeedsHost("group name");
      },
      get hostname(): string {
        throw new NeedsHost("host name");
      },
      cwd: process.cwd(),
      umask: process.umask(),
    },
    env: process.env,
    now: () => Date.now() / 1000,
    readFile: refuse("files"),
    readStdin: refuse("stdin"),
    write: refuse("output stream"),
    sleep: refuse("sleep"),
    readLine: refuse("terminal"),
    userKnown: refuse("user table"),
    agentListPids: refuse("node agents"),
  };
}
