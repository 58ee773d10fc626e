/**
 * @module roles/self-exec
 * The command line that runs this same program again (for stepd and for the
 * daemons `spur up` starts): the compiled binary itself, or bun + src/main.ts
 * when running from source.
 */
import { join } from "node:path";

export function selfExec(): string[] {
  if (Bun.main.startsWith("/$bunfs/") || Bun.main.includes("~BUN")) return [process.execPath];
  return [process.execPath, join(import.meta.dir, "..", "main.ts")];
}
