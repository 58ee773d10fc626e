/**
 * @module roles/cli/strigger
 * The strigger shell: the real CliPort plus what strigger checks locally (that
 * --program names a regular file, --user names a user), then cli/strigger.ts.
 */
import { readFileSync, statSync } from "node:fs";
import { striggerMain } from "../../cli/strigger.ts";
import type { FileKind } from "../../cli/strigger-args.ts";
import { findUserByName } from "../../net/users-parse.ts";
import { runCli } from "./run.ts";

function fileKind(path: string): FileKind {
  try {
    return statSync(path).isFile() ? "file" : "other";
  } catch {
    return "missing";
  }
}

function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

export async function main(argv: string[]): Promise<number> {
  // --user=NAME only: the files are read then, and searched for the one name (users-parse.ts).
  const uidOf = (u: string): number | undefined => (/^\d+$/.test(u) ? Number(u) : findUserByName(readText("/etc/passwd"), undefined, u)?.uid);
  return runCli((args, port) => striggerMain(args, port, { fileKind, uidOf }), argv);
}
