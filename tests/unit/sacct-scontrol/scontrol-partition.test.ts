/**
 * `scontrol create partition`, `update PartitionName=` and `delete partition` from the
 * command line through the "partition" command's apply (the controller's replicated path)
 * and back out through `scontrol show partition`: Slurm's key abbreviations and value
 * checks, its error texts ("Invalid user id", "Invalid partition name specified",
 * "Partition is in use", "Error creating the partition: ..."; the update texts checked on the oracle with a partition name it does not have), one default partition,
 * and the nodes' Partitions= lists kept in step.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { RpcError, type CliPort } from "../../../src/net/ctl-port.ts";
import { apply } from "../../../src/sched/model/apply.ts";
import { parsePartitionOptions } from "../../../src/cli/scontrol-partition.ts";
import { ALICE, ROOT, cluster, spec, submit } from "../sched/builders.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";
import { fakePort } from "./helpers.ts";

function world(by: Requester = ROOT) {
  const c = cluster();
  const { port } = fakePort({ now: 1000, uid: by.uid, user: by.user });
  const ctl = port.ctl as CliPort["ctl"];
  ctl.partition = async (req) => {
    const r = apply(c.state, { v: 1, type: "partition", at: 1000, action: req.action as "create", name: req.name, fields: { ...req.fields }, by });
    if (r.error !== "") throw new RpcError("invalid_argument", r.error);
    return {};
  };
  ctl.listNodes = async () => ({ nodes: [...c.state.nodes.values()].map((n) => n.info), partitions: c.state.partitions.map((p) => p.info), now: 1000, licenses: [], downSpans: [] });
  return { c, run: (...argv: string[]) => scontrolMain(argv, port) };
}

describe("scontrol create/update/delete partition", () => {
  it("creates a partition that shows like a configured one and joins its nodes' lists", async () => {
    const w = world();
    expect(await w.run("create", "partition", "PartitionName=short", "Nodes=n[1-2]", "MaxTime=30", "Pri=5", "State=D")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    const shown = await w.run("show", "partition", "short");
    expect(shown.stdout).toContain("PartitionName=short\n");
    expect(shown.stdout).toContain("MaxTime=00:30:00");
    expect(shown.stdout).toContain("Nodes=n[1-2]\n");
    expect(shown.stdout).toContain("PriorityJobFactor=5 PriorityTier=5");
    expect(shown.stdout).toContain("State=DOWN TotalCPUs=8 TotalNodes=2");
    expect(w.c.state.nodes.get("n1")?.info.partitions).toEqual(["debug", "short"]);
    expect(w.c.state.nodes.get("n3")?.info.partitions).toEqual(["debug"]);
  });

  it("updates settings and node sets; Default=YES takes the default from the others", async () => {
    const w = world();
    expect((await w.run("update", "PartitionName=gpu", "Nodes=g1", "Default=yes", "MaxNodes=UNLIMITED")).exitCode).toBe(0);
    const gpu = w.c.state.partitions.find((p) => p.info.name === "gpu");
    expect([gpu?.info.nodes, gpu?.info.totalNodes, gpu?.info.isDefault, gpu?.info.maxNodes]).toEqual(["g1", 1, true, undefined]);
    expect(w.c.state.partitions.find((p) => p.info.name === "debug")?.info.isDefault).toBe(false);
    expect(w.c.state.nodes.get("g2")?.info.partitions).toEqual(["debug"]);
  });

  it("deletes an idle partition; one with a queued job is in use", async () => {
    const w = world();
    w.c.run(submit(spec({ partition: "gpu" })));
    expect(await w.run("delete", "PartitionName=gpu")).toEqual({ stdout: "", stderr: "delete_partition PartitionName=gpu: Partition is in use\n", exitCode: 1 });
    await w.run("create", "PartitionName=tmp", "Nodes=n4");
    expect((await w.run("delete", "partition", "tmp")).exitCode).toBe(0);
    expect(w.c.state.partitions.map((p) => p.info.name)).toEqual(["debug", "gpu"]);
    expect(w.c.state.nodes.get("n4")?.info.partitions).toEqual(["debug"]);
  });

  it("answers Slurm's errors", async () => {
    const w = world();
    const err = async (...argv: string[]) => (await w.run(...argv)).stderr;
    expect(await err("create", "PartitionName=debug", "Nodes=n1")).toBe("Error creating the partition: Invalid partition name specified\n");
    expect(await err("create", "PartitionName=x", "Nodes=n9")).toBe("Error creating the partition: Invalid node name specified\n");
    expect(await err("update", "PartitionName=nope", "State=UP")).toBe("slurm_update error: Invalid partition name specified\n");
    expect(await err("delete", "PartitionName=nope")).toBe("delete_partition PartitionName=nope: Invalid partition name specified\n");
    expect(await err("update", "PartitionName=gpu")).toBe("scontrol: error: No changes specified\n");
    expect(await err("create", "PartitionName=default")).toBe('scontrol: error: PartitionName cannot be "DEFAULT".\n');
    expect(await err("create", "Nodes=n1", "PartitionName")).toBe("scontrol: error: Invalid input: PartitionName  Request aborted\n");
    expect(await err("create", "bogus=1")).toBe("scontrol: error: Invalid creation entity: bogus=1\n");
    expect(await err("delete", "bogus=1")).toBe("Invalid deletion entity: bogus=1\n");
    // texts and the trailing "slurm_update error: No error" as the oracle printed them
    const noError = "slurm_update error: No error\n";
    expect(await err("update", "PartitionName=gpu", "State=sideways")).toBe(`scontrol: error: Invalid input: State=sideways\nscontrol: error: Acceptable State values are UP, DOWN, DRAIN and INACTIVE\n${noError}`);
    expect(await err("update", "PartitionName=gpu", "MaxTime=soon")).toBe(`scontrol: error: Invalid input MaxTime=soon\n${noError}`);
    expect(await err("update", "PartitionName=gpu", "Foo=1")).toBe(`scontrol: error: Update of this parameter is not supported: Foo=1\n\nscontrol: error: Request aborted\n${noError}`);
    expect(await err("update", "PartitionName=gpu", "Def=YES")).toBe(`scontrol: error: Update of this parameter is not supported: Def=YES\n\nscontrol: error: Request aborted\n${noError}`);
    expect(await err("update", "PartitionName=gpu", "PriorityTier=x")).toBe(`scontrol: error: Invalid PriorityTier value: x\n${noError}`);
    expect(await err("update", "PartitionName=gpu", "Nodes")).toBe(`scontrol: error: Invalid input: Nodes  Request aborted\n${noError}`);
    expect(await err("update", "PartitionName=nope", "MaxNodes=x")).toBe('scontrol: error: Invalid numeric value "x" for MaxNodes.\nslurm_update error: Invalid partition name specified\n');
    expect(await err("update", "PartitionName=nope", "MinNodes=x")).toBe('scontrol: error: "x" is not a valid node count\nslurm_update error: Invalid partition name specified\n');
    expect(await err("delete", "partition", "nope")).toBe("delete_partition partition: Invalid partition name specified\n");
  });

  it("is for operators: anyone else gets Slurm's 'Invalid user id' and nothing changes", async () => {
    const w = world(ALICE);
    expect(await w.run("create", "PartitionName=mine", "Nodes=n1")).toEqual({ stdout: "", stderr: "Error creating the partition: Invalid user id\n", exitCode: 1 });
    expect((await w.run("update", "PartitionName=gpu", "State=DOWN")).stderr).toBe("slurm_update error: Invalid user id\n");
    expect((await w.run("delete", "PartitionName=gpu")).stderr).toBe("delete_partition PartitionName=gpu: Invalid user id\n");
    expect(w.c.state.partitions.map((p) => [p.info.name, p.info.state])).toEqual([["debug", "UP"], ["gpu", "UP"]]);
  });

  it("parses values as scontrol does", () => {
    expect(parsePartitionOptions(["PartitionName=p", "Shared=FORCE", "OverSub=yes:2", "Hid=n", "RootOnly=Y", "DefaultTime=1:00:00", "MinN=2", "GraceT=30"])).toEqual({
      ok: true, name: "p", fields: { OverSubscribe: "YES:2", Hidden: "NO", RootOnly: "YES", DefaultTime: "1:00:00", MinNodes: "2", GraceTime: "30" }, notes: [],
    });
    expect(parsePartitionOptions(["Default=maybe"])).toEqual({ ok: false, errors: ["Invalid input: Default=maybe", "Acceptable Default values are YES and NO"] });
  });
});
