/**
 * @module roles/cli/tty-foreground
 * Whether srun may read its stdin: a terminal belongs to its foreground process
 * group, and a background process that reads it is stopped (SIGTTIN). Slurm's
 * srun started with `&` from an interactive shell does not stop: its tasks read
 * end of input at once (oracle: `srun bash -c 'read -t 3 x; echo $?' &` prints
 * 1 and ends). So srun reads a terminal only while it is in the foreground.
 * tcgetpgrp(3)/getpgrp(2) come through bun:ffi; without them srun reads as usual.
 */
import { dlopen, FFIType } from "bun:ffi";

/** False when stdin is a terminal whose foreground process group is not srun's. */
export function mayReadStdin(stdin: { isTTY?: boolean; fd?: number } = process.stdin): boolean {
  if (stdin.isTTY !== true) return true;
  try {
    const lib = dlopen("libc.so.6", {
      tcgetpgrp: { args: [FFIType.i32], returns: FFIType.i32 },
      getpgrp: { args: [], returns: FFIType.i32 },
    });
    try {
      const foreground = lib.symbols.tcgetpgrp(0);
      return foreground < 0 || foreground === lib.symbols.getpgrp();
    } finally {
      lib.close();
    }
  } catch {
    return true;
  }
}
