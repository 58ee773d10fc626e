/**
 * PMI's wire framing (compat/pmi/wire.ts), PMI_process_mapping in Slurm's vector format
 * (compat/pmi/mapping.ts; oracle values for 2 nodes x 2 tasks, block and cyclic) and srun's
 * fence rounds across nodes (compat/pmi/fence.ts).
 */
import { describe, expect, it } from "vitest";
import { formatV2, parseV1, PmiReader } from "../../../src/compat/pmi/wire.ts";
import { nodeOfRanks, processMapping } from "../../../src/compat/pmi/mapping.ts";
import { FenceRounds } from "../../../src/compat/pmi/fence.ts";
import { chooseMpi } from "../../../src/compat/mpi-type.ts";
import { taskSetText, waitExpiredLines } from "../../../src/compat/srun-wait.ts";

describe("wire", () => {
  it("parses PMI-1 lines and cuts a stream into lines, then into PMI-2 frames", () => {
    expect(parseV1("cmd=put kvsname=1.0 key=k value=v")).toEqual({ cmd: "put", attrs: new Map([["kvsname", "1.0"], ["key", "k"], ["value", "v"]]) });
    expect(parseV1("bogus")).toBeUndefined();
    const r = new PmiReader();
    expect(r.feed("cmd=init pmi_version=2 ")).toEqual([]);
    expect(r.feed("pmi_subversion=0\n")).toEqual([{ cmd: "init", attrs: new Map([["pmi_version", "2"], ["pmi_subversion", "0"]]) }]);
    r.useWire(2);
    const frame = formatV2("kvs-put", [["key", "a"], ["value", "b"]]);
    expect(frame).toBe("26    cmd=kvs-put;key=a;value=b;");
    expect(r.feed(frame.slice(0, 10))).toEqual([]);
    expect(r.feed(frame.slice(10) + frame)).toHaveLength(2);
    expect(r.feed("xx    ")).toEqual(["error"]);
  });
});

describe("PMI_process_mapping", () => {
  it("block and cyclic as the oracle writes them", () => {
    expect(processMapping(nodeOfRanks([[0, 1], [2, 3]]))).toBe("(vector,(0,2,2))");
    expect(processMapping(nodeOfRanks([[0, 2], [1, 3]]))).toBe("(vector,(0,2,1),(0,2,1))");
    expect(processMapping(nodeOfRanks([[0, 1], [2, 3], [4, 5], [6, 7]]))).toBe("(vector,(0,4,2))");
    // uneven: 3 on the first node, 1 on the second
    expect(processMapping(nodeOfRanks([[0, 1, 2], [3]]))).toBe("(vector,(0,1,3),(1,1,1))");
  });
});

describe("fence rounds at srun", () => {
  it("completes a round when every node is in, with all their puts", () => {
    const f = new FenceRounds(2);
    expect(f.arrive(0, "n1", { a: "1" })).toEqual({ error: "" });
    expect(f.arrive(0, "n1", {}).error).toContain("twice");
    expect(f.arrive(0, "n2", { b: "2" })).toEqual({ complete: { a: "1", b: "2" }, error: "" });
    expect(f.arrive(1, "n2", {})).toEqual({ error: "" });
  });
});

describe("--mpi", () => {
  const none = { kind: "missing", reason: "plugin_load_from_file: dlopen(libpmix.so.2): libpmix.so.2: cannot open shared object file: No such file or directory" } as const;
  const v4 = { kind: "found", major: 4 } as const;
  it("list, default, MpiDefault= and unknown types", () => {
    expect(chooseMpi("list", undefined, none)).toEqual({ kind: "list", stdout: "MPI plugin types are...\n\tnone\n\tpmi2\n" });
    expect(chooseMpi(undefined, undefined, none)).toEqual({ kind: "ok", type: "none" });
    expect(chooseMpi(undefined, "pmi2", none)).toEqual({ kind: "ok", type: "pmi2" });
    expect(chooseMpi("none", "pmi2", none)).toEqual({ kind: "ok", type: "none" });
    const bad = chooseMpi("bogus", undefined, v4);
    expect(bad.kind === "error" && bad.stderr.split("\n")[0]).toBe("srun: error: Couldn't find the specified plugin name for mpi/bogus looking at all files");
  });

  it("pmix where libpmix loads: listed as the oracle lists it, with its version; pmix and pmix_v4 accepted", () => {
    // oracle (Slurm 22.05 with libpmix 4.2): pmix, none, cray_shasta, pmi2, then the versions line
    expect(chooseMpi("list", undefined, v4)).toEqual({ kind: "list", stdout: "MPI plugin types are...\n\tpmix\n\tnone\n\tpmi2\nspecific pmix plugin versions available: pmix_v4\n" });
    expect(chooseMpi("pmix", undefined, v4)).toEqual({ kind: "ok", type: "pmix" });
    expect(chooseMpi(undefined, "pmix_v4", v4)).toEqual({ kind: "ok", type: "pmix" });
    expect(chooseMpi("pmix_v3", undefined, v4).kind).toBe("error");
  });

  it("pmix without libpmix: the loader's reason, then Slurm's lines for a plugin that cannot load", () => {
    const r = chooseMpi("pmix", undefined, none);
    expect(r.kind === "error" && r.stderr.split("\n").slice(0, -1)).toEqual([
      "srun: error: plugin_load_from_file: dlopen(libpmix.so.2): libpmix.so.2: cannot open shared object file: No such file or directory",
      "srun: error: Couldn't load specified plugin name for mpi/pmix: Dlopen of plugin file failed",
      "srun: error: MPI: Cannot create context for mpi/pmix",
      "srun: error: MPI: Unable to load any plugin",
      "srun: error: Invalid MPI type 'pmix', --mpi=list for acceptable types",
    ]);
  });
});

describe("srun -W", () => {
  it("names task sets as srun does and reports every state once the time ran out", () => {
    expect(taskSetText([3])).toBe("task 3");
    expect(taskSetText([5, 0, 1, 2])).toBe("tasks 0-2,5");
    const states = new Map([[0, "exited" as const], [1, "running" as const], [2, "abnormal" as const], [3, "running" as const]]);
    expect(waitExpiredLines(2, "7.0", states, 30)).toEqual([
      "srun: First task exited 2s ago",
      "srun: StepId=7.0 tasks 1,3: running",
      "srun: StepId=7.0 task 0: exited",
      "srun: StepId=7.0 task 2: exited abnormally",
      "srun: launch/slurm: _step_signal: Terminating StepId=7.0",
      "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.",
    ]);
  });
});
