/**
 * @module tests/e2e/tools
 * Helpers for the tests that run real client tools (Snakemake, Toil) against a
 * Spur cluster: is the tool installed (else the test is skipped with a message
 * naming the Debian package), and run it without blocking the test runner.
 */
import { spawn, spawnSync } from "node:child_process";

/** undefined when `cmd` runs here; otherwise the reason the test is skipped. */
export function toolMissing(cmd: string, debianPackage: string, probe: string[] = ["--version"]): string | undefined {
  const r = spawnSync(cmd, probe, { encoding: "utf8", timeout: 60_000 });
  if (r.status === 0) return undefined;
  return `skipped: ${cmd} is not installed here (Debian package ${debianPackage}; .ci/run installs it)`;
}

export interface ToolResult {
  code: number;
  /** stdout and stderr interleaved, for failure messages. */
  output: string;
}

/** Run argv to completion (killed after timeoutMs), collecting its output. */
export function runTool(argv: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number }): Promise<ToolResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv;
    const child = spawn(cmd ?? "true", args, { cwd: opts.cwd, env: opts.env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? (signal ? 128 : -1), output });
    });
  });
}
