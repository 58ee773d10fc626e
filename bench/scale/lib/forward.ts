/**
 * @module bench/scale/lib/forward
 * Runs one of the stand-alone benches (`bun bench/<x>.ts ...`, which print one JSON object
 * per line) as a child process and hands each object to `each`; other lines go to stderr.
 * A section that wraps an existing bench thus adds goals without a second copy of its code,
 * and the bench's daemons live and die with the child.
 */
import { spawn } from "node:child_process";

export async function forwardBench(script: string, args: string[], each: (o: Record<string, unknown>) => void): Promise<void> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ["ignore", "pipe", "inherit"] });
  let buf = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    buf += chunk;
    for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === "") continue;
      try {
        each(JSON.parse(line) as Record<string, unknown>);
      } catch {
        process.stderr.write(`${line}\n`);
      }
    }
  });
  const code = await new Promise<number>((resolve) => child.on("close", (c) => resolve(c ?? 1)));
  if (code !== 0) throw new Error(`${script} ${args.join(" ")} exited ${code}`);
}

/** An integer knob from the environment. */
export const envNum = (name: string, dflt: number): number => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && process.env[name] !== "" && process.env[name] !== undefined ? v : dflt;
};
