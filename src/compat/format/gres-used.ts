/**
 * @module format/gres-used
 * A node's GresUsed as Slurm 22.05 shows it in sinfo (GresUsed), scontrol show node -d and
 * sinfo --json: what the node's GRES hold now; a node without GRES shows "gpu:0", the gpu plugin
 * being loaded on every Spur cluster as on a Slurm one with GresTypes=gpu (oracle: sinfo -O GresUsed
 * and scontrol -d show node for a node without Gres=). Exporters split it at ":" and read the
 * count (prometheus-slurm-exporter's GPU collector), which "(null)" does not have.
 */
import type { Node } from "./sinfo-records.ts";

/** "gpu:mi300x:8" → "gpu:mi300x:0(IDX:N/A)" when nothing is recorded; no GRES → "gpu:0". */
export function gresUsedShown(node: Pick<Node, "gres" | "gresUsed">): string {
  if (node.gresUsed !== "") return node.gresUsed;
  if (node.gres === "") return "gpu:0";
  return node.gres
    .split(",")
    .map((g) => `${g.replace(/:\d+$/, "")}:0(IDX:N/A)`)
    .join(",");
}
