/**
 * The pure part of `srun --mpi=pmix` (compat/pmix/job-info.ts): what a node's PMIx server
 * registers for a step, the inputs of PMIx's regex generators, the rank map read back from Slurm's
 * vector mapping, and the refusal of maps that do not describe a step.
 */
import { describe, expect, it } from "vitest";
import { namespaceInfo, nodeListText, pmixNamespace, ppnText, ranksFromMapping, stepProblem, type PmixEntry, type PmixStep } from "../../../src/compat/pmix/job-info.ts";
import { nodeOfRanks, processMapping } from "../../../src/compat/pmi/mapping.ts";

const step = (over: Partial<PmixStep> = {}): PmixStep => ({
  nspace: pmixNamespace(25, 0), nodes: ["n1", "n2"], ranksOfNode: [[0, 2], [1, 3]], nodeIndex: 1, tmpDir: "/tmp/x", ...over,
});
const value = (entries: readonly PmixEntry[], key: string) => entries.find((e) => e.key === key)?.value;

describe("PMIx namespace info", () => {
  it("names the namespace as Slurm does (oracle PMIX_NAMESPACE=slurm.pmix.25.0)", () => {
    expect(pmixNamespace(25, 0)).toBe("slurm.pmix.25.0");
  });

  it("gives the regex generators the node list and each node's ranks", () => {
    expect(nodeListText(step())).toBe("n1,n2");
    expect(ppnText(step())).toBe("0,2;1,3");
  });

  it("holds the job's sizes, the maps, this node's peers and one array per rank of every node", () => {
    const info = namespaceInfo(step(), { nodeMap: "pmix[n[1-2]]", procMap: "pmix[0,2;1,3]" });
    expect(value(info, "pmix.job.size")).toEqual({ type: "uint32", value: 4 });
    expect(value(info, "pmix.univ.size")).toEqual({ type: "uint32", value: 4 });
    expect(value(info, "pmix.num.nodes")).toEqual({ type: "uint32", value: 2 });
    expect(value(info, "pmix.nmap")).toEqual({ type: "string", value: "pmix[n[1-2]]" });
    expect(value(info, "pmix.pmap")).toEqual({ type: "string", value: "pmix[0,2;1,3]" });
    expect(value(info, "pmix.lpeers")).toEqual({ type: "string", value: "1,3" });
    expect(value(info, "pmix.local.size")).toEqual({ type: "uint32", value: 2 });
    const procs = info.filter((e) => e.key === "pmix.pdata").map((e) => (e.value.type === "info" ? e.value.value : []));
    expect(procs).toHaveLength(4);
    // rank 3 is node n2's second task: local and node rank 1, node id 1
    const r3 = procs.find((p) => value(p, "pmix.rank")?.value === 3) ?? [];
    expect(r3[0]?.key).toBe("pmix.rank"); // PMIx wants the rank first in a proc array
    expect([value(r3, "pmix.lrank"), value(r3, "pmix.nrank"), value(r3, "pmix.nodeid"), value(r3, "pmix.hname")]).toEqual([
      { type: "uint16", value: 1 }, { type: "uint16", value: 1 }, { type: "uint32", value: 1 }, { type: "string", value: "n2" },
    ]);
    // no node-level key PMIx refuses at job level (PMIX_LOCALLDR made register_nspace answer BAD-PARAM)
    expect(info.some((e) => e.key === "pmix.localldr")).toBe(false);
  });

  it("reads the ranks of each node back from Slurm's vector mapping (block and cyclic)", () => {
    const block = [[0, 1], [2, 3], [4, 5], [6, 7]];
    expect(ranksFromMapping(processMapping(nodeOfRanks(block)), 4)).toEqual(block);
    expect(ranksFromMapping("(vector,(0,2,1),(0,2,1))", 2)).toEqual([[0, 2], [1, 3]]);
    expect(ranksFromMapping("(vector,(0,1,3),(1,1,1))", 2)).toEqual([[0, 1, 2], [3]]);
    expect(ranksFromMapping("(vector,(0,3,1))", 2)).toBe("the mapping names node 2 of 2");
    expect(ranksFromMapping("nonsense", 2)).toBe("not a process mapping: nonsense");
  });

  it("refuses maps that are not a step: missing ranks, a node without tasks, a node not in the step", () => {
    expect(stepProblem(step())).toBe("");
    expect(stepProblem(step({ ranksOfNode: [[0], [2]] }))).toBe("the step's ranks are not 0..N-1, each once");
    expect(stepProblem(step({ ranksOfNode: [[0, 1], []] }))).toBe("this node runs no task of the step");
    expect(stepProblem(step({ nodeIndex: -1 }))).toBe("node index -1 is not in the step");
    expect(stepProblem(step({ nodes: ["n1"] }))).toBe("the step's node list and its rank map disagree");
  });
});
