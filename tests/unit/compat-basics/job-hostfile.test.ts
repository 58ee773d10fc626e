/**
 * SLURM_HOSTFILE for sbatch/salloc (src/compat/job-hostfile.ts) and the -w node count rules
 * (withRequiredNodes, nodeListCountError in src/compat/job-layout.ts), against what Slurm
 * 22.05's sbatch/salloc did with the file "n2 n2 n1 n3" (one per line): -N1-3 reads three
 * entries (n2 n2 n1), -n6 is refused ("Too few NodeNames"), -w wins over the file, a missing
 * or empty file fails before anything is submitted; entries are counted per comma ("n[1-2]"
 * is one, "-n2" on it is refused); `-N1 -w n[1-2]` says "invalid number of
 * nodes (-N 2-1)".
 */
import { describe, expect, it } from "vitest";
import { arbitraryNodelist, hostfileEntries, hostfileRequest, sallocArbitraryCheck, sallocTaskCount, type HostfileAsk } from "../../../src/compat/job-hostfile.ts";
import { nodeListCountError, normaliseAsk, withRequiredNodes } from "../../../src/compat/job-layout.ts";
import { expandHostlist } from "../../../src/compat/hostlist.ts";

const FILE = "n2\nn2\nn1\nn3\n";
const expand = (e: string): string[] | undefined => {
  const r = expandHostlist(e);
  return r.ok ? r.value : undefined;
};
const ask = (over: Partial<HostfileAsk> = {}): HostfileAsk => ({ ntasks: 0, ntasksPerNode: 0, nodesMin: 0, nodesMax: 0, nodelist: "", ...over });

describe("SLURM_HOSTFILE for sbatch and salloc", () => {
  it("without -n: every entry is read, one task per distinct node, in node order", () => {
    expect(hostfileRequest(ask(), "/h", FILE, expand)).toEqual({ kind: "use", nodelist: "n1,n2,n3", ntasks: 3, distribution: "arbitrary", hosts: ["n2", "n2", "n1", "n3"] });
  });
  it("-n4 reads four entries and keeps the task count", () => {
    expect(hostfileRequest(ask({ ntasks: 4 }), "/h", FILE, expand)).toMatchObject({ kind: "use", nodelist: "n1,n2,n3", ntasks: 0, distribution: "arbitrary" });
  });
  it("-n2 reads n2 n2: one node", () => {
    expect(hostfileRequest(ask({ ntasks: 2 }), "/h", FILE, expand)).toMatchObject({ nodelist: "n2", ntasks: 0 });
  });
  it("-N2 reads two entries (n2 n2), -N1-3 three (n2 n2 n1)", () => {
    expect(hostfileRequest(ask({ nodesMin: 2, nodesMax: 2 }), "/h", FILE, expand)).toMatchObject({ nodelist: "n2", ntasks: 1 });
    expect(hostfileRequest(ask({ nodesMin: 1, nodesMax: 3 }), "/h", FILE, expand)).toMatchObject({ nodelist: "n1,n2", ntasks: 2 });
  });
  it("--ntasks-per-node leaves the task count to the layout", () => {
    expect(hostfileRequest(ask({ ntasksPerNode: 2 }), "/h", FILE, expand)).toMatchObject({ ntasks: 0 });
  });
  it("more tasks than entries is refused with Slurm's two lines", () => {
    expect(hostfileRequest(ask({ ntasks: 6 }), "/h", FILE, expand)).toEqual({
      kind: "error", lines: ["Too few NodeNames in Slurm Hostfile", "Failure getting NodeNames from hostfile"],
    });
  });
  it("a missing file and an empty one are refused", () => {
    expect(hostfileRequest(ask(), "/tmp/nope", undefined, expand)).toEqual({
      kind: "error", lines: ["slurm_allocate_resources error opening file /tmp/nope, No such file or directory", "Failure getting NodeNames from hostfile"],
    });
    expect(hostfileRequest(ask(), "nope", undefined, expand)).toMatchObject({ lines: ["slurm_allocate_resources error opening file ./nope, No such file or directory", "Failure getting NodeNames from hostfile"] });
    expect(hostfileRequest(ask(), "/h", "\n\n", expand)).toEqual({ kind: "error", lines: ["Hostlist is empty!", "Failure getting NodeNames from hostfile"] });
  });
  it("-w, or no variable, leaves the request alone; comments and blank lines are skipped", () => {
    expect(hostfileRequest(ask({ nodelist: "n4" }), "/h", FILE, expand)).toEqual({ kind: "none" });
    expect(hostfileRequest(ask(), undefined, FILE, expand)).toEqual({ kind: "none" });
    expect(hostfileRequest(ask(), "", FILE, expand)).toEqual({ kind: "none" });
    expect(hostfileRequest(ask(), "/h", "n1\n\n# x\nn2\n", expand)).toMatchObject({ nodelist: "n1,n2", ntasks: 2 });
  });
  it("entries are counted per comma, not per host: a range or a space stays one entry (oracle)", () => {
    expect(hostfileEntries("n1,n2 n3\n# c\nn4\n")).toEqual(["n1", "n2 n3", "n4"]);
    const twoLines = "n1,n2 n3\n# c\nn4\n";
    expect(hostfileRequest(ask({ ntasks: 2 }), "/h", twoLines, expand)).toMatchObject({ nodelist: "n1,n2,n3" });
    expect(hostfileRequest(ask({ ntasks: 4 }), "/h", twoLines, expand)).toMatchObject({ kind: "error" });
    expect(hostfileRequest(ask({ ntasks: 1 }), "/h", "n[1-2]\n", expand)).toMatchObject({ nodelist: "n1,n2" });
    expect(hostfileRequest(ask({ ntasks: 2 }), "/h", "n[1-2]\n", expand)).toMatchObject({ kind: "error", lines: ["Too few NodeNames in Slurm Hostfile", "Failure getting NodeNames from hostfile"] });
    expect(hostfileRequest(ask({ ntasks: 2 }), "/h", "n1 n2\n", expand)).toMatchObject({ kind: "error" });
  });
  it("salloc -m arbitrary wants as many tasks as the list has entries (Slurm's step layout over SLURM_ARBITRARY_NODELIST)", () => {
    expect(sallocArbitraryCheck(4, 4)).toBe("");
    expect(sallocArbitraryCheck(3, 4)).toBe("Asked for 3 tasks have 4 in the nodelist.  Check your nodelist, or set the -n option to be 4");
  });
  it("salloc's task count: -n, else --ntasks-per-node on each node, else what the CPUs hold", () => {
    expect(sallocTaskCount(4, 0, 3, 3, 1)).toBe(4);
    expect(sallocTaskCount(0, 2, 3, 6, 1)).toBe(6);
    expect(sallocTaskCount(0, 0, 3, 3, 1)).toBe(3);
    expect(sallocTaskCount(0, 0, 2, 8, 2)).toBe(4);
  });
  it("SLURM_ARBITRARY_NODELIST: the file's hosts as Slurm prints them, else -w as given, only for -m arbitrary", () => {
    expect(arbitraryNodelist("arbitrary", "n1,n2,n3", ["n2", "n2", "n1", "n3"])).toBe("n[2,2,1,3]");
    expect(arbitraryNodelist("arbitrary", "n[1,1,2]")).toBe("n[1,1,2]");
    expect(arbitraryNodelist("block", "n[1-2]")).toBe("");
    expect(arbitraryNodelist("arbitrary", "")).toBe("");
  });
});

describe("a required node list sets the least node count", () => {
  const shape = (nodesMin: number, nodesMax: number, ntasks = 0) =>
    normaliseAsk({ nodesMin, nodesMax, ntasks, cpusPerTask: 0, ntasksPerNode: 0, overcommit: false, exclusive: false }).shape;
  it("-w n[1-3] alone: three nodes, a task on each", () => {
    const s = withRequiredNodes(shape(0, 0), 3);
    expect([s.nodesMin, s.ntasks]).toEqual([3, 3]);
  });
  it("-n2 -w n[1-3]: three nodes, two tasks kept", () => {
    expect(withRequiredNodes(shape(0, 0, 2), 3).ntasks).toBe(2);
  });
  it("a list within -N changes nothing", () => {
    const s = shape(2, 4);
    expect(withRequiredNodes(s, 2)).toBe(s);
  });
  it("-N below the list is refused as the client does", () => {
    expect(nodeListCountError(1, 1, 2)).toBe("invalid number of nodes (-N 2-1)");
    expect(nodeListCountError(1, 2, 3)).toBe("invalid number of nodes (-N 3-2)");
    expect(nodeListCountError(0, 0, 3)).toBe("");
    expect(nodeListCountError(2, 4, 3)).toBe("");
  });
});
