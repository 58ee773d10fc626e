/**
 * `scontrol reconfigure` as a replicated command: what spur.conf defines is read once
 * (ctld/reconfigure-read.ts) and applied from the log (sched/model/apply-reconfigure.ts).
 * Settings, partitions, licenses and node settings change at run time; a changed node set
 * and SchedulerType keep their old values with Slurm's texts, as do a node's CPUs and memory; only root and operators may;
 * two replicas applying the same entry end equal, and one restored from a snapshot runs the
 * replicated configuration rather than its own file's.
 */
import { describe, expect, it } from "vitest";
import { configReading } from "../../../src/ctld/reconfigure-read.ts";
import { encodeSnapshot, restoreSnapshot } from "../../../src/ctld/state-snapshot.ts";
import { restoreReconfigured } from "../../../src/sched/model/apply-reconfigure.ts";
import type { Command, Requester } from "../../../src/sched/model/commands.ts";
import { ALICE, CONF, ROOT, cluster, spec, submit } from "./builders.ts";

function reconfigure(text: string, by: Requester = ROOT, topology?: string): Command {
  const r = configReading(topology === undefined ? { conf: text } : { conf: text, topology });
  if (!r.ok) throw new Error(r.error.message);
  return { v: 1, type: "reconfigure", at: 50, by, ...r.value };
}

const NEXT = CONF.replace("DefMemPerCPU=256", "DefMemPerCPU=512\nPriorityWeightAge=77\nLicenses=matlab:3")
  .replace("NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001", "NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001 Weight=9")
  .replace("PartitionName=gpu Nodes=g[1-2] MaxTime=60", "PartitionName=gpu Nodes=g1 MaxTime=120\nPartitionName=short Nodes=n[1-2] MaxTime=10");

describe("reconfigure", () => {
  it("applies settings, partitions, licenses and node settings from the file", () => {
    const c = cluster();
    const r = c.run(reconfigure(NEXT));
    expect([r.error, r.text]).toEqual(["", undefined]);
    expect([c.state.config.defMemPerCpuMiB, c.state.config.sched.weights.age]).toEqual([512, 77]);
    expect(c.state.partitions.map((p) => [p.info.name, p.info.nodes, p.info.maxTimeMin, p.info.totalCpus])).toEqual([
      ["debug", "n[1-4],g[1-2]", undefined, 32], ["gpu", "g1", 120, 8], ["short", "n[1-2]", 10, 8],
    ]);
    expect([...(c.state.licenses ?? [])]).toEqual([["matlab", 3]]);
    expect([c.state.nodes.get("n1")?.info.weight, c.state.nodes.get("n1")?.info.partitions, c.state.nodes.get("g2")?.info.partitions]).toEqual([9, ["debug", "short"], ["debug"]]);
  });

  it("keeps the node set and SchedulerType, with Slurm's texts, and applies the rest", () => {
    const c = cluster();
    const more = NEXT.replace("NodeName=n[1-4]", "NodeName=n[1-5]").replace("ClusterName=test", "ClusterName=test\nSchedulerType=sched/builtin");
    const r = c.run(reconfigure(more));
    expect(r.text?.split("\n")).toEqual([
      "SchedulerType change requires restart of the slurmctld daemon to take effect",
      "node count has changed before reconfiguration from 6 to 7. You have to restart slurmctld.",
    ]);
    expect([c.state.nodes.size, c.state.config.sched.schedulerType, c.state.config.defMemPerCpuMiB]).toEqual([6, "sched/backfill", 512]);
    expect(c.state.partitions.find((p) => p.info.name === "short")?.nodeNames).toEqual(["n1", "n2"]);
    const typed = cluster(`${CONF}SelectType=select/cons_tres\n`);
    const r3 = typed.run(reconfigure(`${CONF}SelectType=select/linear\nAuthType=auth/munge\nDefMemPerCPU=100\n`));
    expect(r3.text?.split("\n")).toEqual([
      "AuthType change requires restart of all Slurm daemons and commands to take effect",
      "SelectType change requires restart of the slurmctld daemon to take effect",
    ]);
    expect([typed.state.config.restartTypes, typed.state.config.defMemPerCpuMiB]).toEqual([{ selecttype: "select/cons_tres" }, 100]);
    const bigger = cluster();
    const r2 = bigger.run(reconfigure(CONF.replace("NodeName=n[1-4] CPUs=4 RealMemory=4000", "NodeName=n[1-4] CPUs=8 RealMemory=8000 Features=fast")));
    expect(r2.text).toBe("The node configuration changes that were made require restart of the slurmctld daemon to take effect");
    expect([bigger.state.nodes.get("n1")?.info.cpus, bigger.state.nodes.get("n1")?.info.realMemoryMib, bigger.state.nodes.get("n1")?.info.features]).toEqual([4, 4000, "fast"]);
    const renamed = cluster();
    expect(renamed.run(reconfigure(CONF.replace("NodeName=g[1-2]", "NodeName=h[1-2]").replace(/g\[1-2\]/g, "h[1-2]"))).text).toBe("node names changed before reconfiguration. You have to restart slurmctld.");
  });

  it("is for root and operators: anyone else gets 'Invalid user id' and nothing changes", () => {
    const c = cluster();
    const r = c.run(reconfigure(NEXT, ALICE));
    expect([r.error, r.errorCode, c.state.config.defMemPerCpuMiB, c.state.partitions.length]).toEqual(["Invalid user id", "UserIdMissing", 256, 2]);
    const ops = cluster(CONF.replace("ClusterName=test", "ClusterName=test\nSpurOperators=alice"));
    expect(ops.run(reconfigure(NEXT.replace("ClusterName=test", "ClusterName=test\nSpurOperators=alice"), ALICE)).error).toBe("");
  });

  it("two replicas applying the same log end equal; a snapshot carries the replicated configuration", () => {
    const a = cluster();
    const b = cluster();
    const log = [submit(spec()), reconfigure(NEXT), submit(spec({ partition: "short" }))];
    for (const cmd of log) {
      a.run(JSON.parse(JSON.stringify(cmd)) as Command);
      b.run(JSON.parse(JSON.stringify(cmd)) as Command);
    }
    expect(JSON.stringify([b.state.config, b.state.partitions])).toBe(JSON.stringify([a.state.config, a.state.partitions]));
    expect(b.state.jobs.get(2)?.info.partition).toBe("short");
    const fresh = cluster(CONF, false);
    restoreSnapshot(fresh.state, encodeSnapshot(a.state, 9));
    restoreReconfigured(fresh.state);
    expect([fresh.state.config.defMemPerCpuMiB, fresh.state.partitions.map((p) => p.info.name)]).toEqual([512, ["debug", "gpu", "short"]]);
  });

  it("reads topology.conf with it; a file that does not parse is refused before anything is proposed", () => {
    const c = cluster();
    c.run(reconfigure(CONF, ROOT, "SwitchName=s1 Nodes=n[1-4]\nSwitchName=s2 Nodes=g[1-2]\nSwitchName=top Switches=s[1-2]\n"));
    expect(c.state.topology?.leafOf.get("g1")).toBe("s2");
    expect(configReading({ conf: "NodeName=n[1-2 CPUs=4\n" }).ok).toBe(false);
    expect(configReading({ conf: `${CONF}PartitionName=p Nodes=zz9\n` })).toMatchObject({ ok: false, error: { message: "spur.conf line 7: unknown node zz9" } });
  });
});

describe("ReconfigFlags", () => {
  const down = (c: ReturnType<typeof cluster>) => {
    c.run({ v: 1, type: "partition", at: 20, action: "update", name: "gpu", fields: { State: "DOWN", MaxTime: "30" }, by: ROOT });
    c.run({ v: 1, type: "partition", at: 20, action: "create", name: "mine", fields: { Nodes: "n1" }, by: ROOT });
  };
  const view = (c: ReturnType<typeof cluster>) => c.state.partitions.map((p) => [p.info.name, p.info.state, p.info.maxTimeMin]);

  it("none: the file's partitions as written", () => {
    const c = cluster();
    down(c);
    c.run(reconfigure(CONF));
    expect(view(c)).toEqual([["debug", "UP", undefined], ["gpu", "UP", 60]]);
  });

  it("KeepPartState keeps each partition's state; KeepPartInfo its settings and the partitions the file lacks", () => {
    const state = cluster();
    down(state);
    state.run(reconfigure(`${CONF}ReconfigFlags=KeepPartState\n`));
    expect(view(state)).toEqual([["debug", "UP", undefined], ["gpu", "DOWN", 60]]);
    const info = cluster();
    down(info);
    info.run(reconfigure(`${CONF}ReconfigFlags=KeepPartInfo\n`));
    expect(view(info)).toEqual([["debug", "UP", undefined], ["gpu", "DOWN", 30], ["mine", "UP", undefined]]);
    expect(info.state.nodes.get("n1")?.info.partitions).toEqual(["debug", "mine"]);
  });
});

describe("controller scripts after a reconfigure", () => {
  it("PrologSlurmctld/EpilogSlurmctld/PrologFlags come from what the reconfigure read, else from the start", async () => {
    const { scriptsInForce } = await import("../../../src/ctld/ctld-scripts.ts");
    const atStart = { prolog: "/a", epilog: "", timeoutSec: 0, prologFlags: [] };
    const c = cluster();
    expect(scriptsInForce(c.state.reconfigured, atStart)).toBe(atStart);
    c.run(reconfigure(`${CONF}PrologSlurmctld=/b\nPrologFlags=Alloc\nPrologEpilogTimeout=9\n`));
    expect(scriptsInForce(c.state.reconfigured, atStart)).toEqual({ prolog: "/b", epilog: "", timeoutSec: 9, prologFlags: ["alloc"] });
  });
});
