/**
 * @module roles/closed-pipe
 * `squeue | head -1`: once the reader has gone, a write fails with EPIPE. Slurm's
 * commands are C programs that die of SIGPIPE there, silently, and the shell reports
 * status 141 (128 + 13). Bun ignores SIGPIPE and turns the failed write into an
 * 'error' event whose default is a stack trace; this listener ends the command the way
 * Slurm's ends instead. Installed once by each CLI entry (runCli, srun, salloc).
 */
const SIGPIPE_STATUS = 141;

let installed = false;

/** Make a closed stdout or stderr end the process quietly with the shell's SIGPIPE status. */
export function endQuietlyOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(SIGPIPE_STATUS);
      throw error;
    });
  }
}

/**
 * srun while its step runs: a reader that went away (`srun ... | head -1`) does not end srun, whose
 * step would otherwise keep its allocation with nobody left to release it. The task output that
 * cannot be written is dropped and srun waits for the step as usual (oracle: Slurm's srun exits
 * with the step's status, 0 there).
 */
export function dropOutputOnClosedPipe(): void {
  if (installed) return;
  installed = true;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EPIPE") throw error;
    });
  }
}
