/**
 * @module roles/cli/run
 * Runs one user command's pure logic against the real port and turns its
 * result into output and an exit code. Output goes through stdio.ts (Bun.write),
 * not process.stdout, whose stream machinery costs more start-up than a command.
 */
import type { CliPort, CliResult } from "../../cli/io.ts";
import { realPort } from "./port-core.ts";
import { flushOutput, writeOutput } from "./stdio.ts";

export async function runCli(fn: (argv: string[], port: CliPort) => Promise<CliResult>, argv: string[]): Promise<number> {
  const result = await fn(argv, await realPort());
  void writeOutput("stdout", result.stdout);
  void writeOutput("stderr", result.stderr);
  await flushOutput();
  return result.exitCode;
}
