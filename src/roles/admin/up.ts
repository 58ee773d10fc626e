/**
 * @module roles/admin/up
 * `spur up`: a local cluster (spurctld + N spurd + spurrestd) in a state directory, on
 * this host or (--netns) as hosts of their own in network namespaces. The cluster's
 * shape (clusterArgs) is `spur demo`'s too. The cluster code loads when the command runs.
 */
import type { ParsedArgs } from "citty";
import type { UpOptions } from "../local-cluster.ts";
import { defineAdminCommand } from "./command.ts";

/** The cluster's shape: `spur up`'s flags that `spur demo` takes too. */
export const clusterArgs = {
  nodes: { type: "string", valueHint: "N", default: "4", description: "node agents (spurd)" },
  "cpus-per-node": { type: "string", valueHint: "N", default: "4", description: "CPUs of each node" },
  "sockets-per-node": { type: "string", valueHint: "N", default: "1", description: "sockets of each node (GPUs split over them: gres.conf Cores=)" },
  "threads-per-core": { type: "string", valueHint: "N", default: "1", description: "SMT threads per core (Cores= stay core ids)" },
  "mem-per-node": { type: "string", valueHint: "MB", default: "4000", description: "memory of each node" },
  "gpus-per-node": { type: "string", valueHint: "N", default: "0", description: "declared GPUs of each node" },
  "gpu-model": { type: "string", valueHint: "NAME", description: "their model (GRES type)" },
  "gpu-topology": { type: "string", valueHint: "xgmi|pairs|hives:N|pcie", default: "xgmi", description: "declared links between a node's GPUs" },
  "nodes-per-switch": { type: "string", valueHint: "N", default: "0", description: "nodes per leaf switch in topology.conf (0: none)" },
  "devices-root": { type: "string", valueHint: "DIR", description: "GPUs discovered from this sysfs snapshot instead of declared" },
  "slurmd-timeout": { type: "string", valueHint: "SECONDS", default: "30", description: "SlurmdTimeout: a silent node is DOWN after it" },
  controllers: { type: "string", valueHint: "N", default: "1", description: "replicated spurctld (Raft): 3 or 5" },
  tls: { type: "boolean", description: "TLS on every listener (CA and host certificates in STATE/tls)" },
} as const;

/** `spur up`'s flags. */
export const upArgs = {
  detach: { type: "boolean", alias: "d", description: "return once the cluster is up (else: run until Ctrl-C, then stop it)" },
  "state-dir": { type: "string", valueHint: "DIR", default: "/tmp/spur", description: "where the configuration, state and logs go" },
  ...clusterArgs,
  "slurm-conf": { type: "string", valueHint: "DIR|FILE", description: "nodes and partitions from a site's slurm.conf/gres.conf" },
  "site-ports": { type: "boolean", description: "with --slurm-conf: keep its ports (else free ones)" },
  netns: { type: "boolean", description: "each controller and node (and a login host) a host of its own: own network, UTS and mount namespace on a private bridge" },
  login: { type: "boolean", description: "with --netns: a login host too" },
  auth: { type: "string", valueHint: "spur|munge", description: "with --netns: auth/spur (default) or auth/munge with a munged per host" },
  overlay: { type: "string", valueHint: "wireguard", description: "with --netns: all daemons' traffic over a WireGuard overlay between the hosts" },
} as const;

export type UpArgs = ParsedArgs<typeof upArgs>;
export type ClusterArgs = ParsedArgs<typeof clusterArgs>;

type NumberFlag = "nodes" | "cpus-per-node" | "sockets-per-node" | "threads-per-core" | "mem-per-node" | "gpus-per-node" | "nodes-per-switch" | "slurmd-timeout" | "controllers";

/** The cluster `spur up` (or `spur demo`) starts in `stateDir`, from its typed flags; a bad number throws. */
export function upOptionsOf(a: ClusterArgs, stateDir: string): UpOptions {
  const n = (name: NumberFlag): number => {
    const v = a[name];
    const x = Number(v);
    if (!Number.isInteger(x) || x < 0 || v.trim() === "") throw new Error(`spur: error: --${name} takes a whole number, got "${v}"`);
    return x;
  };
  const devicesRoot = a["devices-root"];
  return {
    stateDir,
    nodes: Math.max(1, n("nodes")),
    cpusPerNode: Math.max(1, n("cpus-per-node")),
    socketsPerNode: Math.max(1, n("sockets-per-node")),
    threadsPerCore: Math.max(1, n("threads-per-core")),
    memPerNodeMiB: Math.max(1, n("mem-per-node")),
    gpusPerNode: n("gpus-per-node"),
    gpuModel: a["gpu-model"] ?? "",
    gpuTopology: a["gpu-topology"],
    nodesPerSwitch: n("nodes-per-switch"),
    ...(devicesRoot !== undefined ? { devicesRoot } : {}),
    slurmdTimeoutSec: n("slurmd-timeout"),
    controllers: Math.max(1, n("controllers")),
    ...(a.tls === true ? { tls: true } : {}),
  };
}

export default defineAdminCommand({
  meta: { name: "spur up", description: "start a local cluster (spurctld + N spurd + spurrestd)" },
  args: upArgs,
  run: async ({ args }) => (await import("../up-run.ts")).upMain(args, upOptionsOf(args, args["state-dir"])),
});
