/**
 * @module format/sreport-tres
 * What sreport's `--tres=` reports count: the TRES names asked for (default cpu), a job's
 * count of one TRES from its AllocTRES text (memory in MB, as Slurm's TRES count), a
 * cluster's count from its nodes, and the words of the "Usage reported in ..." line.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobInfo, NodeInfo } from "../../net/gen/spur/v1/types_pb.ts";

type Job = Plain<JobInfo>;
type Node = Plain<NodeInfo>;

/** Slurm's TRES order: the fixed ones by id, then gres and licenses as configured. */
export const TRES_ORDER = ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages"] as const;

/**
 * `--tres=cpu,gres/gpu`: lower-cased names in the order given, each once (oracle 22.05:
 * `--tres=gres/gpu,cpu` prints the gres/gpu line first); "ALL" lists what is tracked.
 */
export function parseTresOption(text: string, tracked: readonly string[]): string[] | string {
  const names = text.split(",").map((s) => s.trim().toLowerCase()).filter((s) => s !== "");
  if (names.includes("all")) return [...tracked];
  for (const n of names) if (!tracked.includes(n)) return `Invalid TRES: ${n}`;
  return [...new Set(names)];
}

/** "mem=512M" and the like to MB. */
function countOf(name: string, value: string): number {
  if (name !== "mem") return Number.parseInt(value, 10) || 0;
  const n = Number.parseFloat(value);
  const unit = value.slice(-1).toUpperCase();
  const scale = unit === "G" ? 1024 : unit === "T" ? 1024 * 1024 : unit === "K" ? 1 / 1024 : 1;
  return Math.round(n * scale) || 0;
}

/** name -> count of a TRES text ("cpu=2,mem=512M,node=1,billing=2,gres/gpu=2"). */
export function parseTresText(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const part of text.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).toLowerCase();
    out.set(name, countOf(name, part.slice(eq + 1)));
  }
  return out;
}

/** A job's count of one TRES (what it was allocated; CPUs from its CPU count when no text). */
export function jobTresCount(job: Job, tres: string): number {
  const counts = parseTresText(job.tresAlloc !== "" ? job.tresAlloc : job.tresReq);
  if (tres === "cpu") return job.numCpus > 0 ? job.numCpus : (counts.get("cpu") ?? 0);
  return counts.get(tres) ?? 0;
}

/** The cluster's count of one TRES: CPUs, memory, nodes, GPUs (billing as CPUs). */
export function clusterTresCount(nodes: readonly Node[], tres: string): number {
  const sum = (pick: (n: Node) => number): number => nodes.reduce((s, n) => s + pick(n), 0);
  switch (tres) {
    case "cpu":
    case "billing":
      return sum((n) => n.cpus);
    case "mem":
      return sum((n) => n.realMemoryMib);
    case "node":
      return nodes.length;
    case "gres/gpu":
      return sum((n) => n.gpuCount);
    default:
      return 0;
  }
}

/** A stretch a node was out of service (ListNodesResponse.down_spans; end 0 = still). */
export interface DownSpan {
  node: string;
  start: number;
  end: number;
}

/**
 * The cluster's TRES-seconds in the window: each node's count times the part of the window
 * since the controller first heard from it (slurmdbd counts a cluster's time from its
 * registration; a node without that time counts the whole window).
 */
export function clusterTresSeconds(nodes: readonly Node[], tres: string, w: { start: number; end: number }): number {
  let total = 0;
  for (const n of nodes) {
    const from = Math.max(w.start, Math.floor(n.firstRegisteredTime ?? w.start));
    if (w.end > from) total += clusterTresCount([n], tres) * (w.end - from);
  }
  return total;
}
