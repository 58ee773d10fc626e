/**
 * @module roles/cli/srun-terminal
 * srun --pty's side of the user's terminal. As Slurm's srun, --pty needs srun's
 * stdout to be a terminal (its window size is read there with TIOCGWINSZ); when
 * it is not, srun says so and runs the step without a pseudo-terminal. While
 * the step runs, srun's stdin (when a terminal) is in raw mode: every key,
 * Ctrl-C and Ctrl-D included, goes to the task's terminal, whose line
 * discipline makes the signals and the end of input there. A changed window
 * size (SIGWINCH) is passed on.
 *
 * Failure policy: the terminal is restored however srun ends: when the step is
 * over, on process exit, and on SIGTERM/SIGHUP/SIGQUIT (srun then exits with
 * 128 + the signal, as a process killed by it).
 */
import { makeRaw, restoreTerminal, windowSize, type WindowSize } from "../../agent/pty.ts";

/** Slurm's srun's lines when its stdout is no terminal (oracle: `srun --pty tty >file`). */
export const PTY_REFUSED_LINES =
  "srun: error: ioctl(TIOCGWINSZ): Inappropriate ioctl for device\nsrun: error: Not using a pseudo-terminal, disregarding --pty option\n";

export interface SrunTerminal {
  /** The window size when the step starts. */
  size: WindowSize;
  /** Raw mode on (when stdin is a terminal); `onResize` is called with every new size until `restore`. */
  start(onResize: (size: WindowSize) => void): void;
  /** Back to the mode srun found (idempotent). */
  restore(): void;
}

const SIGNALS = { SIGTERM: 15, SIGHUP: 1, SIGQUIT: 3 } as const;

/** The terminal for `srun --pty`, or undefined when stdout is none (the caller prints PTY_REFUSED_LINES). */
export function srunTerminal(): SrunTerminal | undefined {
  const size = windowSize(1);
  if (size === undefined) return undefined;
  let saved: Uint8Array | undefined;
  let resize: (() => void) | undefined;
  const onSignal: Array<[NodeJS.Signals, () => void]> = [];
  const restore = (): void => {
    if (resize !== undefined) process.off("SIGWINCH", resize);
    resize = undefined;
    for (const [sig, h] of onSignal) process.off(sig, h);
    onSignal.length = 0;
    process.off("exit", restore);
    if (saved === undefined) return;
    restoreTerminal(0, saved);
    saved = undefined;
  };
  return {
    size,
    start(onResize) {
      resize = () => {
        const now = windowSize(1);
        if (now !== undefined) onResize(now);
      };
      process.on("SIGWINCH", resize);
      process.on("exit", restore);
      for (const [sig, n] of Object.entries(SIGNALS) as Array<[NodeJS.Signals, number]>) {
        const h = () => {
          restore();
          process.exit(128 + n);
        };
        onSignal.push([sig, h]);
        process.on(sig, h);
      }
      // as Slurm's srun: raw input and output (no CR added to LF: the task's terminal adds it)
      saved = makeRaw(0);
    },
    restore,
  };
}
