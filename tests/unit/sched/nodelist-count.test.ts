/**
 * -w/--nodelist counts as the nodes a job needs, as Slurm 22.05 records it (oracle probes;
 * differential tester seeds 115, 137): -w n[1-2] is NumNodes=2 NumCPUs=2 NumTasks=2 without
 * a range, -n3 keeps its tasks, -n1 lowers it with sbatch's warning to the range 1-1, and
 * an -N maximum below the host count is refused by sbatch.
 */
import { describe, expect, it } from "vitest";
import { normaliseAsk, pendingCounts, type LayoutAsk } from "../../../src/compat/job-layout.ts";
import { errorText, warningText } from "../../../src/compat/options/messages.ts";
import { parseArgs } from "../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../src/compat/options/script-directives.ts";
import { cluster, spec, submit } from "./builders.ts";

const ASK: LayoutAsk = { nodesMin: 0, nodesMax: 0, ntasks: 0, cpusPerTask: 0, ntasksPerNode: 0, overcommit: false, exclusive: false };

function counts(over: Partial<LayoutAsk>) {
  const { shape, warning } = normaliseAsk({ ...ASK, ...over });
  const c = pendingCounts(shape, 4);
  return { NumNodes: c.numNodesText, NumCPUs: c.numCpus, NumTasks: c.numTasks, warning };
}

function sbatchStderr(argv: string[]): { stderr: string; nodes: [number, number] | undefined } {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const ctx = { cmd: "sbatch" as const, argv, env: {}, invoker: { cwd: "/tmp", hostname: "h" }, now: 0 };
  const r = sbatchRequest(ctx, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  if (!r.ok) return { stderr: errorText("sbatch", r.error), nodes: undefined };
  return { stderr: warningText("sbatch", r.value.warnings), nodes: [r.value.spec.nodesMin, r.value.spec.nodesMax] };
}

describe("the hosts of -w", () => {
  it("set the pending job's node count, tasks and CPUs (oracle)", () => {
    expect(counts({ listedNodes: 2 })).toEqual({ NumNodes: "2", NumCPUs: 2, NumTasks: 2, warning: "" });
    expect(counts({ listedNodes: 2, cpusPerTask: 2 })).toEqual({ NumNodes: "2", NumCPUs: 4, NumTasks: 2, warning: "" });
    expect(counts({ listedNodes: 2, ntasks: 3 })).toEqual({ NumNodes: "2", NumCPUs: 3, NumTasks: 3, warning: "" });
    expect(counts({ listedNodes: 2, ntasksPerNode: 2 })).toEqual({ NumNodes: "2", NumCPUs: 4, NumTasks: 4, warning: "" });
    expect(counts({ listedNodes: 3, ntasks: 1 })).toEqual({ NumNodes: "1-1", NumCPUs: 1, NumTasks: 1, warning: "can't run 1 processes on 3 nodes, setting nnodes to 1" });
  });

  it("are what the controller records for sbatch -w n[1-2]", () => {
    const c = cluster();
    c.run(submit(spec({ nodelist: "n[1-2]", hold: true })));
    expect(c.state.jobs.get(1)?.info).toMatchObject({ numNodes: 2, numCpus: 2, numTasks: 2 });
  });

  it("sbatch: a lowered count is sent as a range, an -N maximum below the hosts is refused", () => {
    expect(sbatchStderr(["-w", "n[1-3]", "-n1"])).toEqual({ stderr: "sbatch: Warning: can't run 1 processes on 3 nodes, setting nnodes to 1\n", nodes: [1, 1] });
    expect(sbatchStderr(["-w", "n[1-2]"])).toEqual({ stderr: "", nodes: [0, 0] });
    expect(sbatchStderr(["-w", "n[1-2]", "-N1"])).toEqual({ stderr: "sbatch: error: invalid number of nodes (-N 2-1)\n", nodes: undefined });
    expect(sbatchStderr(["-w", "n[1-2]", "-N3"]).nodes).toEqual([3, 3]);
  });
});
