/**
 * @module tests/unit/gres/scene
 * The cluster the GRES tests share: counted nvme on n[1-2] (tracked as TRES), shards on
 * n3, nothing on n4, and g1 with GPUs, MPS and a no_consume bandwidth.
 */
import { schedule } from "../../../src/sched/plan/schedule.ts";
import type { cluster } from "../sched/builders.ts";

export const CONF = `ClusterName=t
GresTypes=gpu,nvme,shard,mps,bandwidth
DefMemPerCPU=256
AccountingStorageTRES=gres/gpu,gres/nvme
NodeName=n[1-2] CPUs=4 RealMemory=4000 Gres=nvme:2
NodeName=n3 CPUs=4 RealMemory=4000 Gres=shard:8
NodeName=n4 CPUs=4 RealMemory=4000
NodeName=g1 CPUs=4 RealMemory=4000 Gres=gpu:2,mps:200,bandwidth:lustre:no_consume:4G
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
PartitionName=mps Nodes=g1 MaxTime=INFINITE
PartitionName=plain Nodes=n4 MaxTime=INFINITE
`;

export function startAll(c: ReturnType<typeof cluster>, at: number) {
  const r = schedule(c.state, at);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r;
}
