/**
 * @module roles/cli/run
 * Runs one user command's pure logic against the real port and turns its
 * result into output and an exit code.
 */
import type { CliPort, CliResult } from "../../cli/io.ts";
import { realPort } from "./port.ts";
import { endQuietlyOnClosedPipe } from "../closed-pipe.ts";

export async function runCli(fn: (argv: string[], port: CliPort) => Promise<CliResult>, argv: string[]): Promise<number> {
  endQuietlyOnClosedPipe();
  const result = await fn(argv, realPort());
  if (result.stdout) await write(process.stdout, result.stdout);
  if (result.stderr) await write(process.stderr, result.stderr);
  return result.exitCode;
}

function write(stream: NodeJS.WriteStream, text: string): Promise<void> {
  // "drain" never comes once the reader is gone; the 'error' listener ends the process then.
  return new Promise((resolve) => (stream.write(text) ? resolve() : stream.once("drain", () => resolve())));
}
