/**
 * @module compat/gpu-locality
 * Which socket a GPU belongs to, in Slurm's logical numbering (pure): CPU id c of a node
 * with C CPUs on S sockets lies on socket floor(c / (C / S)), and a GPU's socket is the one
 * holding most of its local CPUs (gres.conf `Cores=` or discovery). Shared by the display
 * (`Gres=gpu:...(S:0-1)`) and the scheduler's socket-aware placement, so it sits below both.
 */
import { parseCpuList } from "../lib/cpu-list.ts";

/** Socket of each GPU from its local CPU lists ("0-15"), for a node of `cpus` CPUs on `sockets` sockets. */
export function gpuSocketsOf(gpuCpus: readonly string[], gpuCount: number, cpus: number, sockets: number): number[] {
  const perSocket = sockets > 0 ? cpus / sockets : 0;
  return Array.from({ length: gpuCount }, (_, g) => {
    const ids = parseCpuList(gpuCpus[g] ?? "").filter((c) => c < cpus);
    if (ids.length === 0 || perSocket <= 0) return -1;
    const votes = new Array<number>(sockets).fill(0);
    for (const c of ids) votes[Math.floor(c / perSocket)] = (votes[Math.floor(c / perSocket)] ?? 0) + 1;
    return votes.indexOf(Math.max(...votes));
  });
}

/** "8,0" ⇄ [8,0]: the wire form of NodeAlloc.socketCpus. */
export const socketCpusText = (counts: readonly number[]): string => counts.join(",");
export function parseSocketCpus(text: string | undefined): number[] {
  if (!text) return [];
  return text.split(",").map((t) => Number(t) || 0);
}
