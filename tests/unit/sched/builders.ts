/**
 * Small builders for controller-state tests: a cluster from config text, a
 * registered node set, and submit/start/end commands.
 */
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../../src/sched/model/state.ts";
import { apply } from "../../../src/sched/model/apply.ts";
import { emptyJobSpec } from "../../../src/sched/model/records.ts";
import type { ClusterState, JobSpecP } from "../../../src/sched/model/types.ts";
import type { Command, Requester } from "../../../src/sched/model/commands.ts";

export const ROOT: Requester = { uid: 0, gid: 0, user: "root", group: "root" };
export const ALICE: Requester = { uid: 1000, gid: 1000, user: "alice", group: "alice" };

export const CONF = `ClusterName=test
DefMemPerCPU=256
NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001
NodeName=g[1-2] CPUs=8 RealMemory=8000 Gres=gpu:mi300x:8 Port=17101
PartitionName=debug Nodes=n[1-4],g[1-2] Default=YES MaxTime=INFINITE
PartitionName=gpu Nodes=g[1-2] MaxTime=60
`;

export function cluster(conf = CONF, register = true): { state: ClusterState; log: Command[]; run(c: Command): ReturnType<typeof apply> } {
  const parsed = parseConf(conf);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const made = createState(parsed.value);
  if (!made.ok) throw new Error(made.error.message);
  const state = made.value;
  const log: Command[] = [];
  const run = (c: Command) => {
    log.push(c);
    return apply(state, c);
  };
  if (register) {
    for (const node of [...state.nodes.values()]) {
      run({ v: 1, type: "registerNode", at: 1, node: { ...node.info, addr: "127.0.0.1" }, runningJobIds: [] });
    }
  }
  return { state, log, run };
}

export function spec(over: Partial<JobSpecP> = {}): JobSpecP {
  return { ...emptyJobSpec(), name: "job", script: "#!/bin/sh\ntrue\n", workDir: "/tmp", ...over };
}

export const submit = (s: JobSpecP, at = 10, by: Requester = ROOT): Command => ({ v: 1, type: "submit", at, spec: s, by, priority: 0 });
