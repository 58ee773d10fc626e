/**
 * @module roles/admin/command
 * The shape of one `spur` sub-command: citty's CommandDef (meta, typed args, run or
 * sub-commands) plus what citty cannot say, the operands beyond the declared positionals
 * (`spur check PATH...`, `spur exec HOST -- CMD...`). `run` answers the exit status.
 * A command module holds its declarations and loads its implementation when it runs, so
 * that `spur --help` (which reads every command's meta) stays cheap (docs/startup.md).
 */
import type { ArgsDef, CommandDef } from "citty";

/** Words a command takes after its declared positionals. */
export interface RestOperands {
  /** Their name in the usage line (`PATH`, `CMD`). */
  readonly name: string;
  /** Only after `--` (`spur exec HOST -- CMD...`); else anywhere, any number (`spur check PATH...`). */
  readonly afterDash?: boolean;
}

export type AdminCommand<T extends ArgsDef = ArgsDef> = CommandDef<T> & { readonly rest?: RestOperands };

/**
 * citty's `defineCommand` (an identity that types `run`'s args from `args`), with the rest
 * operands (the dispatcher's strict check reads them). Written out rather than imported so
 * that `spur --help`, which reads every command module, does not load citty's runtime
 * (citty and node:util: measured ~3.5 ms of the binary's start-up).
 */
export function defineAdminCommand<const T extends ArgsDef>(def: CommandDef<T> & { readonly rest?: RestOperands }): AdminCommand<T> {
  return def;
}

/** What the ops shells return; written as is, with a last newline added to stdout. */
export interface OpsOutput {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export function writeOps(r: OpsOutput): number {
  process.stdout.write(r.stdout && !r.stdout.endsWith("\n") ? `${r.stdout}\n` : r.stdout);
  process.stderr.write(r.stderr);
  return r.exitCode;
}
