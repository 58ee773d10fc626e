/**
 * How heterogeneous jobs print: squeue %i "N+K" and the HetJob* -O columns, scontrol show
 * job's HetJobId/HetJobOffset and HetJobIdSet lines, sacct's JobID, and the batch script's
 * per-component variables (SLURM_*_HET_GROUP_n, SLURM_HET_SIZE).
 */
import { describe, expect, it } from "vitest";
import { displayJobId } from "../../../src/compat/format/job-values.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import { NAME_ONLY_FIELDS } from "../../../src/compat/format/squeue-fields-long.ts";
import { hetBatchEnv, hetGroupEnv, hetGroupJobId } from "../../../src/compat/het-env.ts";
import { makeJob } from "../job-env/golden.ts";
import { buildStepTaskEnv } from "../../../src/compat/job-env.ts";
import { testOnlyText } from "../../../src/compat/options/sbatch-flow.ts";
import { jobToOpenapi } from "../../../src/compat/format/json-jobs.ts";
import { sacctJson } from "../../../src/compat/format/json-sacct.ts";

const leader = makeJob({ jobId: 30, hetJobId: 30, hetJobOffset: 0, hetJobIdSet: "30-31", name: "h", partition: "debug", nodelist: "n1", numNodes: 1, memPerCpuMib: 256 });
const other = makeJob({
  jobId: 31, hetJobId: 30, hetJobOffset: 1, hetJobIdSet: "30-31", name: "h", partition: "gpu", nodelist: "n[3-4]", numNodes: 2,
  alloc: [{ node: "n3", cpus: 2, memMib: 512, gpuIndices: [], tasks: 2 }, { node: "n4", cpus: 2, memMib: 512, gpuIndices: [], tasks: 1 }], memPerNodeMib: 512,
});

describe("het job ids in listings", () => {
  it("squeue %i and sacct JobID show leader+offset", () => {
    expect([displayJobId(leader), displayJobId(other), displayJobId(makeJob({ jobId: 7 }))]).toEqual(["30+0", "30+1", "7"]);
  });

  it("the -O HetJob columns: ids, or N/A for an ordinary job", () => {
    const col = (key: string) => NAME_ONLY_FIELDS.find((f) => f.key === key);
    const row = (job: typeof leader) => ({ job, now: 0 }) as never;
    expect(["HetJobId", "HetJobOffset", "HetJobIdSet"].map((k) => col(k)?.get(row(other), 20))).toEqual(["30", "1", "30-31"]);
    expect(["HetJobId", "HetJobOffset", "HetJobIdSet"].map((k) => col(k)?.get(row(makeJob({})), 20))).toEqual(["N/A", "N/A", "N/A"]);
  });

  it("scontrol show job: HetJobId and HetJobOffset before JobName, then a HetJobIdSet line", () => {
    const lines = formatJobRecord(other, { now: 0, oneLiner: false, detail: false }).split("\n");
    expect(lines.slice(0, 3)).toEqual(["JobId=31 HetJobId=30 HetJobOffset=1 JobName=h", "   HetJobIdSet=30-31", "   UserId=root(0) GroupId=root(0) MCS_label=N/A"]);
    expect(formatJobRecord(makeJob({}), { now: 0, oneLiner: false, detail: false })).not.toContain("HetJob");
  });
});

describe("the batch script's het variables", () => {
  it("one copy of each component's variables under _HET_GROUP_n and _PACK_GROUP_n, and the size", () => {
    const env = hetBatchEnv([leader, other], [1, 2]);
    expect(env).toMatchObject({
      SLURM_HET_SIZE: "2", SLURM_PACK_SIZE: "2",
      SLURM_JOB_ID_HET_GROUP_0: "30", SLURM_JOB_ID_HET_GROUP_1: "31", SLURM_JOB_ID_PACK_GROUP_1: "31",
      SLURM_JOB_NODELIST_HET_GROUP_1: "n[3-4]", SLURM_JOB_NUM_NODES_HET_GROUP_1: "2", SLURM_JOB_PARTITION_HET_GROUP_1: "gpu",
      SLURM_JOB_CPUS_PER_NODE_HET_GROUP_1: "2(x2)", SLURM_TASKS_PER_NODE_HET_GROUP_1: "2,1",
      SLURM_MEM_PER_CPU_HET_GROUP_0: "256", SLURM_MEM_PER_NODE_HET_GROUP_1: "512",
      SLURM_NTASKS_HET_GROUP_1: "2", SLURM_NPROCS_HET_GROUP_1: "2", SLURM_NTASKS_PACK_GROUP_0: "1",
    });
    expect(env.SLURM_JOB_ID).toBeUndefined();
  });

  it("srun --het-group=N finds component N's job id, or refuses past the last one", () => {
    const env = { SLURM_JOB_ID: "30", SLURM_HET_SIZE: "2", SLURM_JOB_ID_HET_GROUP_0: "30", SLURM_JOB_ID_HET_GROUP_1: "31" };
    expect([hetGroupJobId(env, 0), hetGroupJobId(env, 1)]).toEqual([30, 31]);
    // oracle (22.05): `srun --het-group=2` in a two-component job
    expect(hetGroupJobId(env, 2)).toBe("Requested het-group offset exceeds highest hetjob index (2 > 1)");
    expect(hetGroupJobId({ SLURM_JOB_ID: "9" }, 1)).toBe("Requested het-group offset exceeds highest hetjob index (1 > 0)");
  });

  it("srun --het-group=N reads component N's variables as the job's, SLURM_JOB_ID staying the leader's", () => {
    const env = hetGroupEnv(["--het-group=1", "hostname"], {
      SLURM_JOB_ID: "30", SLURM_NNODES: "1", SLURM_NTASKS: "1", SLURM_JOB_ID_HET_GROUP_1: "31",
      SLURM_JOB_NUM_NODES_HET_GROUP_1: "2", SLURM_JOB_NODELIST_HET_GROUP_1: "n[3-4]", SLURM_TASKS_PER_NODE_HET_GROUP_1: "2(x2)",
    });
    expect([env.SLURM_JOB_ID, env.SLURM_NNODES, env.SLURM_JOB_NUM_NODES, env.SLURM_NODELIST, env.SLURM_NTASKS]).toEqual(["30", "2", "2", "n[3-4]", "4"]);
    // an option after the command is the command's
    expect(hetGroupEnv(["-n1", "x", "--het-group=1"], { SLURM_NNODES: "1", SLURM_JOB_NUM_NODES_HET_GROUP_1: "2" }).SLURM_NNODES).toBe("1");
  });

  it("a step in a component: its tasks see the leader's id as SLURM_JOB_ID (Slurm's srun --het-group)", () => {
    const step = { stepId: 0, nodelist: "n[3-4]", ntasks: 2, tasksPerNode: [1, 1], nodeNames: ["n3", "n4"] };
    const task = { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [], constrainDevices: false };
    expect(buildStepTaskEnv(other, step, task, {}).SLURM_JOB_ID).toBe("30");
    expect(buildStepTaskEnv(makeJob({ jobId: 9 }), step, task, {}).SLURM_JOB_ID).toBe("9");
  });

  it("sbatch --test-only of a het job: all components' CPUs on the union of their nodes, no partition (oracle)", () => {
    const resp = { jobId: 677, warnings: [], startEstimate: 0, nodelist: "n[1-2]", cpus: 3, partition: "", hetComponents: 2 };
    expect(testOnlyText("sbatch", resp)).toMatch(/^sbatch: Job 677 to start at \S+ using 3 processors on n\[1-2\]\n$/);
  });

  it("squeue --json (22.05 shape): het_job_id, het_job_id_set and het_job_offset of each component", () => {
    const pick = (j: Record<string, unknown>) => [j.het_job_id, j.het_job_id_set, j.het_job_offset];
    expect(pick(jobToOpenapi(other, "c"))).toEqual([30, "30-31", 1]);
    expect(pick(jobToOpenapi(makeJob({}), "c"))).toEqual([0, "", 0]);
  });

  it("sacct --json (22.05 shape): het.job_id and het.job_offset of each component, {0, null} otherwise", () => {
    const hets = (JSON.parse(sacctJson([leader, other, makeJob({ jobId: 7 })], "c", 0)) as { jobs: { het: unknown }[] }).jobs.map((j) => j.het);
    expect(hets).toEqual([{ job_id: 30, job_offset: 0 }, { job_id: 30, job_offset: 1 }, { job_id: 0, job_offset: null }]);
  });
});
