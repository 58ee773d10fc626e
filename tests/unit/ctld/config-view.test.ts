/**
 * `scontrol show config` entries (ctld/config-view): Slurm's key order (golden
 * 022) for the settings Spur has, values from the configuration in force.
 */
import { describe, expect, it } from "vitest";
import { configEntries } from "../../../src/ctld/config-view.ts";
import { loadGolden } from "../sacct-scontrol/helpers.ts";
import { cluster } from "../sched/builders.ts";

describe("scontrol show config entries", () => {
  it("follow Slurm's order and carry the configured values", () => {
    const c = cluster(`ClusterName=oracle
DefMemPerCPU=256
DependencyParameters=kill_invalid_depend
NodeName=n[1-2] CPUs=4 RealMemory=4000 Gres=gpu:mi300x:8
PartitionName=debug Nodes=n[1-2] Default=YES MaxTime=INFINITE
`);
    const e = configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf", startedAt: 1_700_000_000, selfUid: 0, port: 6817 });
    const golden = loadGolden("022").stdout.split("\n").map((l) => /^(\S+)\s*= /.exec(l)?.[1]).filter((k): k is string => k !== undefined);
    const keys = Object.keys(e);
    // Every key of Slurm's list, in its order
    expect(keys).toEqual(golden);
    expect(e).toMatchObject({
      ClusterName: "oracle", DefMemPerCPU: "256", DependencyParameters: "kill_invalid_depend", GresTypes: "gpu",
      AcctGatherNodeFreq: "0 sec", SchedulerTimeSlice: "30 sec", MaxNodeCount: "2", SlurmUser: "root(0)", NEXT_JOB_ID: String(c.state.nextJobId),
    });
    expect(keys.length).toBeGreaterThan(200);
  });

  it("the keys harnesses read: SlurmctldHost[0], SlurmctldPort, SlurmctldLogFile, MaxTasksPerNode, SlurmdUser; spur.conf's own text", () => {
    const c = cluster(`ClusterName=x
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n1 Default=YES
`);
    const globals = new Map([["prolog", "/etc/spur/prolog.sh"], ["maxtaskspernode", "128"]]);
    const e = configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf", selfUid: 0, port: 6817, address: "127.0.0.1", logFile: "/var/log/spurctld.log", globals });
    expect(e).toMatchObject({
      "SlurmctldHost[0]": "vm(127.0.0.1)", SlurmctldPort: "6817", SlurmctldLogFile: "/var/log/spurctld.log", SlurmdUser: "root(0)",
      MaxTasksPerNode: "128", Prolog: "/etc/spur/prolog.sh", Epilog: "(null)", SLURM_VERSION: "26.05.0", AuthType: "auth/loopback",
    });
    // a cluster of several hosts says which identity it runs (auth/loopback is for one host only)
    expect(configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf", globals: new Map([["authtype", "auth/spur"]]) }).AuthType).toBe("auth/spur");
    const bare = configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf" });
    expect([bare["SlurmctldHost[0]"], bare.SlurmctldLogFile, bare.MaxTasksPerNode, bare.SlurmctldPort]).toEqual(["vm", "(null)", "512", undefined]);
  });
});

describe("ReconfigFlags", () => {
  it("shows Slurm's names of the flags in force (they may change with scontrol reconfigure)", () => {
    const c = cluster(`ClusterName=x
ReconfigFlags=keeppartinfo,KeepPartState
NodeName=n1 CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n1 Default=YES
`);
    expect(configEntries(c.state, { controllerName: "vm", confPath: "/etc/spur.conf", selfUid: 0 }).ReconfigFlags).toBe("KeepPartInfo,KeepPartState");
  });
});

describe("after scontrol reconfigure", () => {
  it("shows spur.conf's settings as the reconfigure read them, not as at start", async () => {
    const { configReading } = await import("../../../src/ctld/reconfigure-read.ts");
    const text = "ClusterName=x\nNodeName=n1 CPUs=4 RealMemory=4000\nPartitionName=debug Nodes=n1 Default=YES\n";
    const c = cluster(text);
    const site = { controllerName: "vm", confPath: "/etc/spur.conf", selfUid: 0, globals: new Map([["prolog", "/old.sh"]]) };
    expect(configEntries(c.state, site).Prolog).toBe("/old.sh");
    const r = configReading({ conf: `${text}Prolog=/new.sh\n` });
    if (!r.ok) throw new Error(r.error.message);
    c.run({ v: 1, type: "reconfigure", at: 5, by: { uid: 0, gid: 0, user: "root", group: "root" }, ...r.value });
    expect(configEntries(c.state, site).Prolog).toBe("/new.sh");
  });
});
