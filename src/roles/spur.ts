/**
 * @module roles/spur
 * The admin tool: `spur up|down|demo|init|...` (the command tree is admin/commands.ts,
 * run through citty by admin/dispatch.ts). Roles themselves are reached as `spur <role>`
 * by main.ts. `spur version` alone is answered here, before citty and the command tree load
 * (start-up, tests/unit/startup); everything else, `spur --help` included, loads them.
 */
import { SPUR_VERSION, buildCommit, buildDate } from "../version.ts";
import { writeOutput } from "./cli/stdio.ts";

export const versionLine = (): string => `spur ${SPUR_VERSION} (commit ${buildCommit()}, built ${buildDate()})\n`;

export async function main(argv: string[]): Promise<number> {
  if (argv.length === 1 && (argv[0] === "version" || argv[0] === "--version" || argv[0] === "-V")) {
    await writeOutput("stdout", versionLine());
    return 0;
  }
  const [{ runAdmin }, { spurCommand, ROLES_FOOTER }] = await Promise.all([import("./admin/dispatch.ts"), import("./admin/commands.ts")]);
  return runAdmin(spurCommand, argv, ROLES_FOOTER);
}
