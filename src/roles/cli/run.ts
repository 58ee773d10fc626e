/**
 * @module roles/cli/run
 * Runs one user command's pure logic against the real port and turns its
 * result into output and an exit code. Output goes through stdio.ts (Bun.write),
 * not process.stdout, whose stream machinery costs more start-up than a command.
 * `--version`, `--help` and `--usage` alone run on the bare port first (bare-port.ts):
 * the real port (port-core.ts, loaded only then) reads host files and brings the
 * controller client, which printing a version does not need.
 */
import type { CliPort, CliResult } from "../../net/ctl-port.ts";
import { barePort, NeedsHost, printsFixedText } from "./bare-port.ts";
import { flushOutput, writeOutput } from "./stdio.ts";

type CliFn = (argv: string[], port: CliPort) => Promise<CliResult>;

async function runOnBarePort(fn: CliFn, argv: string[]): Promise<CliResult | undefined> {
  try {
    return await fn(argv, barePort());
  } catch (error) {
    if (error instanceof NeedsHost) return undefined;
    throw error;
  }
}

export async function runCli(fn: CliFn, argv: string[]): Promise<number> {
  let result = printsFixedText(argv) ? await runOnBarePort(fn, argv) : undefined;
  if (result === undefined) {
    const { realPort } = await import("./port-core.ts");
    result = await fn(argv, await realPort());
  }
  void writeOutput("stdout", result.stdout);
  void writeOutput("stderr", result.stderr);
  // The next chunk is made while the last one is written; at most two are held.
  let previous = flushOutput();
  for (const chunk of result.stdoutMore ?? []) {
    await previous;
    previous = writeOutput("stdout", chunk);
  }
  await flushOutput();
  return result.exitCode;
}
