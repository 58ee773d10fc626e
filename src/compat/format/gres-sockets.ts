/**
 * @module format/gres-sockets
 * A node's GRES as Slurm shows it in `scontrol show node` Gres= and sinfo %G:
 * each GPU item followed by the sockets its GPUs are bound to when their cores
 * are known (gres.conf Cores= or discovery): "gpu:mi300x:8(S:0-1)". Without
 * core locality the text is the registered one, unchanged. Pure.
 */
import { gpuSocketsOf } from "../gpu-locality.ts";
import { gpuTypesOfGres } from "../gpu-types.ts";
import { compressIndices } from "../../lib/index-ranges.ts";

/** What the display reads of a node record. */
export interface GresNode {
  gres: string;
  gpuCount: number;
  gpuCpus?: string | undefined;
  cpus: number;
  sockets: number;
  /** Counted GRES other than GPUs as configured ("nvme:2,bandwidth:lustre:4G"), shown after the GPUs. */
  gresGeneric?: string | undefined;
}

/** The node's whole Gres= text: the GPU items (with their sockets) then the counted ones. */
export function gresWithSockets(node: GresNode): string {
  return [gpuGresWithSockets(node), node.gresGeneric ?? ""].filter((t) => t !== "").join(",");
}

function gpuGresWithSockets(node: GresNode): string {
  if (!node.gpuCpus || node.gpuCount === 0 || node.gres === "") return node.gres;
  const sockets = gpuSocketsOf(node.gpuCpus.split(";"), node.gpuCount, node.cpus, Math.max(1, node.sockets));
  const types = gpuTypesOfGres(node.gres, node.gpuCount);
  if (types === undefined || sockets.every((s) => s < 0)) return node.gres;
  let first = 0;
  return node.gres.split(",").map((item) => {
    if (!/^gpu(:|$)/.test(item)) return item;
    const count = Number(item.split(":").pop());
    const mine = sockets.slice(first, first + count).filter((s) => s >= 0);
    first += count;
    return mine.length === 0 ? item : `${item}(S:${compressIndices([...new Set(mine)])})`;
  }).join(",");
}
