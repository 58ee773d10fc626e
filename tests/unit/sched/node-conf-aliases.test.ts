/**
 * slurm.conf's NodeName= lines take Feature= and Procs= as well as Features= and CPUs= (the older
 * names Slurm's own parser still lists): a site's file with Feature=a100 must give the nodes
 * their features, or --constraint jobs never start.
 */
import { describe, expect, it } from "vitest";
import { parseConf } from "../../../src/compat/conf/slurm-conf.ts";
import { createState } from "../../../src/sched/model/state.ts";

function nodeOf(line: string) {
  const parsed = parseConf(`ClusterName=c\n${line}\nPartitionName=p Nodes=ALL Default=YES\n`);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const state = createState(parsed.value);
  if (!state.ok) throw new Error(state.error.message);
  return state.value.nodes.get("n1")?.info;
}

describe("NodeName= older parameter names", () => {
  it("Feature= gives the features, as Features= does", () => {
    expect(nodeOf("NodeName=n1 CPUs=4 Feature=a100,ib")?.features).toBe("a100,ib");
    expect(nodeOf("NodeName=n1 CPUs=4 Features=a100,ib")?.features).toBe("a100,ib");
    expect(nodeOf("NodeName=n1 CPUs=4")?.features).toBe("");
    // both: Feature= is kept, in either order (Slurm 22.05, a scratch slurmctld's scontrol show node)
    expect(nodeOf("NodeName=n1 CPUs=4 Features=x Feature=y")?.features).toBe("y");
    expect(nodeOf("NodeName=n1 CPUs=4 Feature=y Features=x")?.features).toBe("y");
  });

  it("Procs= gives the CPU count when CPUs= is absent", () => {
    expect(nodeOf("NodeName=n1 Procs=16")?.cpus).toBe(16);
    expect(nodeOf("NodeName=n1 CPUs=8 Procs=16")?.cpus).toBe(8);
  });
});
