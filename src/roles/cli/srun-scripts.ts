/**
 * @module roles/cli/srun-scripts
 * srun's own prolog and epilog (--prolog/--epilog, else SrunProlog/SrunEpilog of the
 * configuration; "none" turns them off): run by srun on its host, as its user, with the step's
 * command as arguments and compat/srun-script-env.ts's variables, output on srun's own. A
 * program that cannot be run is reported as Slurm's srun does ("Access denied for PATH: ...")
 * and the step goes on; a prolog that fails aborts the step.
 */
import { strerrorOf } from "../../lib/strerror.ts";
import { accessSync, constants } from "node:fs";

/** The program to run: the option's, else the configuration's; undefined for none. */
export function srunScriptPath(option: string | undefined, configured: string | undefined): string | undefined {
  const path = option ?? configured ?? "";
  return path === "" || path.toLowerCase() === "none" ? undefined : path;
}

/** Runs `path COMMAND...`; its exit status (0 when it could not be run: srun said so and goes on). */
export async function runSrunScript(path: string, command: readonly string[], env: Record<string, string>): Promise<number> {
  try {
    accessSync(path, constants.X_OK);
  } catch (error) {
    process.stderr.write(`srun: Access denied for ${path}: ${strerrorOf(error)}\n`);
    return 0;
  }
  const base = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  const child = Bun.spawn([path, ...command], { env: { ...base, ...env }, stdin: "ignore", stdout: "inherit", stderr: "inherit" });
  const code = await child.exited;
  return child.signalCode !== null ? 128 : code;
}
