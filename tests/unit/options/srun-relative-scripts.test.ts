/**
 * srun -r/--relative and srun's own prolog/epilog: the pure rules (oracle texts in the modules).
 */
import { describe, expect, it } from "vitest";
import { relativeNodes } from "../../../src/compat/srun-relative.ts";
import { srunScriptEnv } from "../../../src/compat/srun-script-env.ts";
import { srunScriptPath } from "../../../src/roles/cli/srun-scripts.ts";
import { parseSrunArgs } from "../../../src/compat/options/interactive-args.ts";
import { emptyJobInfo } from "../../../src/sched/model/records.ts";

const NODES = ["n1", "n2", "n3"];

describe("srun --relative", () => {
  it("takes the allocation's nodes from node N on", () => {
    expect(relativeNodes(NODES, 1, 1, false)).toEqual(["n2"]);
    expect(relativeNodes(NODES, 1, 2, true)).toEqual(["n2", "n3"]);
    expect(relativeNodes(NODES, 0, 3, false)).toEqual(NODES);
  });

  it("names where the node count came from when it does not fit", () => {
    expect(relativeNodes(NODES, 2, 2, true)).toBe("--relative and --nodes option incompatible with count of allocated nodes (2+2>3)");
    expect(relativeNodes(NODES, 1, 3, false)).toBe("--relative and SLURM_JOB_NUM_NODES option incompatible with count of allocated nodes (1+3>3)");
  });

  it("is parsed as a count from 0; anything else is refused", () => {
    const r = parseSrunArgs(["-r", "0", "true"], {});
    expect(r.ok && r.value.kind === "run" ? r.value.settings.relative : -1).toBe(0);
    expect(parseSrunArgs(["--relative=x", "true"], {}).ok).toBe(false);
  });
});

describe("srun's prolog and epilog", () => {
  it("the option wins over the configuration; none (any case) or empty runs nothing", () => {
    expect(srunScriptPath("/a", "/b")).toBe("/a");
    expect(srunScriptPath(undefined, "/b")).toBe("/b");
    expect(srunScriptPath("NONE", "/b")).toBeUndefined();
    expect(srunScriptPath(undefined, undefined)).toBeUndefined();
    expect(parseSrunArgs(["--prolog=/p", "--epilog", "/e", "true"], {})).toMatchObject({ ok: true, value: { settings: { srunProlog: "/p", srunEpilog: "/e" } } });
    expect(parseSrunArgs(["true"], { SLURM_PROLOG: "/p" })).toMatchObject({ ok: true, value: { settings: { srunProlog: "/p" } } });
  });

  it("gets the job's and the step's ids, shape and its context (oracle variables)", () => {
    const job = { ...emptyJobInfo(), jobId: 62, name: "true", partition: "debug", account: "root", qos: "normal", numNodes: 2,
      alloc: ["n1", "n2"].map((node) => ({ node, cpus: 1, tasks: 1, gpuIndices: [], memMib: 0 })) };
    const step = { stepId: 0, nodelist: "n[1-2]", ntasks: 2, alloc: job.alloc };
    expect(srunScriptEnv(job as never, step as never, "prolog_srun", { name: "root", uid: 0 })).toEqual({
      SLURM_JOB_ID: "62", SLURM_JOBID: "62", SLURM_JOB_NAME: "true", SLURM_JOB_PARTITION: "debug", SLURM_JOB_NUM_NODES: "2",
      SLURM_JOB_USER: "root", SLURM_JOB_UID: "0", SLURM_STEP_ID: "0", SLURM_STEPID: "0", SLURM_NODELIST: "n[1-2]", SLURM_NNODES: "2",
      SLURM_NTASKS: "2", SLURM_NPROCS: "2", SLURM_SCRIPT_CONTEXT: "prolog_srun", SLURM_JOB_ACCOUNT: "root", SLURM_JOB_QOS: "normal",
      SLURM_JOB_CPUS_PER_NODE: "1(x2)", SLURM_TASKS_PER_NODE: "1(x2)",
    });
  });
});
