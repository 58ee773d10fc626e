/**
 * @module roles/cli/stdio
 * A user command's output through Bun.write on fds 1 and 2, never process.stdout:
 * creating Node's stream objects loads node:stream and friends, measured at about
 * 18 ms of start-up, more than a whole Slurm command (docs/startup.md). Writes are
 * chained so they land in call order; `flushOutput` waits for all of them.
 * Failure policy: a closed reader (`squeue | head -1`) ends the command quietly with the
 * status a C program killed by SIGPIPE leaves (141), as Slurm's commands end.
 */
const SIGPIPE_STATUS = 141;

let tail: Promise<void> = Promise.resolve();

export function writeOutput(stream: "stdout" | "stderr", text: string): Promise<void> {
  if (text === "") return tail;
  const target = stream === "stdout" ? Bun.stdout : Bun.stderr;
  tail = tail.then(
    () => Bun.write(target, text).then(() => undefined),
  ).catch((error: NodeJS.ErrnoException) => {
    if (error?.code === "EPIPE") process.exit(SIGPIPE_STATUS);
  });
  return tail;
}

export function flushOutput(): Promise<void> {
  return tail;
}
