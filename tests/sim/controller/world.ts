/**
 * @module sim/controller/world
 * The simulated cluster: a spur.conf with CPU and GPU nodes in two overlapping
 * partitions, a fresh ClusterState from it, and the requesters the generator uses.
 * Configuration is not replicated (every replica reads the same file), so a replay
 * starts from the same fresh state.
 */
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../../src/sched/model/state.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";
import type { ClusterState } from "../../../src/sched/model/types.ts";

export const ROOT: Requester = { uid: 0, gid: 0, user: "root", group: "root" };
export const ALICE: Requester = { uid: 1000, gid: 1000, user: "alice", group: "alice" };
export const BOB: Requester = { uid: 1001, gid: 1001, user: "bob", group: "bob" };

export const SIM_CONF = `ClusterName=sim
DefMemPerCPU=256
MinJobAge=20
MaxArraySize=64
NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001
NodeName=g[1-2] CPUs=8 RealMemory=8000 Gres=gpu:mi300x:4 Port=17101
PartitionName=debug Nodes=n[1-4],g[1-2] Default=YES MaxTime=INFINITE
PartitionName=gpu Nodes=g[1-2] MaxTime=60
PartitionName=small Nodes=n[1-2] MaxTime=30
`;

/**
 * Three worlds, by seed: no preemption; partition_prio preemption by SUSPEND (the gpu
 * partition's jobs start on CPUs and GPUs that suspended victims give back, in the same
 * command); and by REQUEUE.
 */
export function confFor(seed: number): string {
  const variant = seed % 3;
  if (variant === 0) return SIM_CONF;
  const mode = variant === 1 ? "SUSPEND" : "REQUEUE";
  return `PreemptType=preempt/partition_prio\nPreemptMode=${mode}\n${SIM_CONF.replace("PartitionName=gpu Nodes=g[1-2] MaxTime=60", "PartitionName=gpu Nodes=g[1-2] MaxTime=60 PriorityTier=2")}`;
}

export function freshState(conf = SIM_CONF): ClusterState {
  const parsed = parseConf(conf);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const made = createState(parsed.value);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}
