/**
 * @module agent/node-load
 * What the agent tells the controller with each heartbeat about its host's load, as slurmd
 * reports it: the one-minute load average (scontrol CPULoad, sinfo %O) and the free memory in
 * MiB (scontrol FreeMem, sinfo %e): the kernel's MemFree, not MemAvailable (oracle 22.05:
 * FreeMem=22831 beside MemFree 23.4 million kB and MemAvailable 24.0 million a moment later).
 * Failure policy: a /proc file that cannot be read or parsed reports 0, as a node that says nothing.
 */
import { readFileSync } from "node:fs";

export interface NodeLoad {
  cpuLoad: number;
  freeMemoryMib: number;
}

/** The first field of /proc/loadavg; 0 when it is not a number. Pure. */
export function loadAverageOf(text: string): number {
  const first = Number(text.trim().split(/\s+/)[0]);
  return Number.isFinite(first) && first >= 0 ? first : 0;
}

/** MemFree of /proc/meminfo in whole MiB; 0 without it. Pure. */
export function freeMemoryMibOf(meminfo: string): number {
  const m = /^MemFree:\s+(\d+)\s*kB$/m.exec(meminfo);
  return m === null ? 0 : Math.floor(Number(m[1]) / 1024);
}

const readOr = (path: string): string => {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
};

/** The host's load now (Linux /proc; elsewhere zeros). */
export function readNodeLoad(): NodeLoad {
  return { cpuLoad: loadAverageOf(readOr("/proc/loadavg")), freeMemoryMib: freeMemoryMibOf(readOr("/proc/meminfo")) };
}
