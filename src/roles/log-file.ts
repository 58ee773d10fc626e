/**
 * @module roles/log-file
 * Where this daemon's log goes, for `scontrol show config` (SlurmctldLogFile): `spur up`
 * and systemd units send stdout to a file, so the file behind fd 1 is the log; a terminal
 * or a pipe is no log file (Slurm prints "(null)" then).
 */
import { readlinkSync, statSync } from "node:fs";

export function logFileOf(): { logFile?: string } {
  try {
    const target = readlinkSync("/proc/self/fd/1");
    return statSync(target).isFile() ? { logFile: target } : {};
  } catch {
    return {};
  }
}
