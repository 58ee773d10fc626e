import { describe, expect, it } from "vitest";
import {
  buildBatchEnv,
  buildSallocEnv,
  buildStepTaskEnv,
  formatCpusPerNode,
  formatTasksPerNode,
} from "../../../src/compat/job-env.ts";
import type { Plain } from "../../../src/lib/plain.ts";
import type { JobInfo } from "../../../src/net/gen/spur/v1/types_pb.ts";
import {
  CONF,
  envDump,
  goldenDump,
  JOBS_DIR,
  NEW_SINCE_2205,
  ONLY_2205,
  oracleCtx,
  oracleJob,
  START,
  SUBMIT_ENV,
} from "./fixtures.ts";
import { goldenStdout, makeJob } from "./golden.ts";

/** Compared lines leave out what only one side has (see fixtures.ts). */
const DROP = new Set([...ONLY_2205, ...NEW_SINCE_2205]);

/** The array job of goldens 042/060/061: --ntasks=2 --gres=gpu:2 --time=10 --array=1-3. */
function arrayElement(jobId: number, task: number, node: string, gpus: number[]): Plain<JobInfo> {
  return oracleJob({
    jobId, arrayJobId: 17, arrayTaskId: task, name: "golden", numTasks: 2, timeLimitMin: 10,
    node, cpus: 2, gpus, tasks: 2,
  });
}
const ARRAY_SPEC = { ntasks: 2, array: "1-3", name: "golden" };

describe("formatCpusPerNode / formatTasksPerNode", () => {
  it("compresses repeated counts as value(xN)", () => {
    expect(formatCpusPerNode([4, 4, 2])).toBe("4(x2),2");
    expect(formatCpusPerNode([72, 72, 36])).toBe("72(x2),36");
    expect(formatCpusPerNode([1])).toBe("1");
    expect(formatCpusPerNode([2, 1, 2])).toBe("2,1,2");
    expect(formatCpusPerNode([])).toBe("");
    expect(formatTasksPerNode([2, 2, 2, 1])).toBe("2(x3),1");
  });
});

describe("buildBatchEnv against the goldens", () => {
  it("039: --gres=gpu:2 in the default partition", () => {
    const job = oracleJob({ jobId: 14, name: "gpuenv", node: "n3", cpus: 1, gpus: [0, 1] });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { name: "gpuenv" } }));
    expect(envDump(env, DROP)).toBe(goldenDump("039", DROP));
  });

  it("040: -p gpu --gpus=1 sets SLURM_GPUS", () => {
    const job = oracleJob({ jobId: 15, name: "wrap", partition: "gpu", node: "n3", cpus: 1, gpus: [0], tresPerJob: "gres/gpu:1" });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { gpus: "1", partition: "gpu" } }));
    expect(envDump(env, DROP)).toBe(goldenDump("040", DROP));
  });

  it("041: no GPUs, no GPU variables", () => {
    const job = oracleJob({ jobId: 16, name: "wrap", node: "n1", cpus: 1, gpus: [] });
    const env = buildBatchEnv(job, oracleCtx(job));
    expect(envDump(env, DROP)).toBe(goldenDump("041", DROP));
  });

  it("060: array task 1 of job 17 (job id 18) with --ntasks=2", () => {
    const job = arrayElement(18, 1, "n3", [0, 1]);
    const env = buildBatchEnv(job, oracleCtx(job, { spec: ARRAY_SPEC }));
    expect(envDump(env, DROP)).toBe(goldenDump("060", DROP));
    expect(goldenStdout("060").startsWith(
      `array task ${env.SLURM_ARRAY_TASK_ID} of job ${env.SLURM_ARRAY_JOB_ID} on ${env.SLURMD_NODENAME}\n`,
    )).toBe(true);
  });

  it("061: the three array tasks see global GPU indexes (no device constraint)", () => {
    const tasks = [arrayElement(17, 3, "n4", [0, 1]), arrayElement(18, 1, "n3", [0, 1]), arrayElement(19, 2, "n3", [2, 3])];
    const grep = /array task|_VISIBLE_DEVICES|SLURM_JOB_GPUS/;
    const out = tasks.flatMap((job) => {
      const env = buildBatchEnv(job, oracleCtx(job, { spec: ARRAY_SPEC }));
      const file = `array task ${env.SLURM_ARRAY_TASK_ID} of job ${env.SLURM_ARRAY_JOB_ID} on ${env.SLURMD_NODENAME}\n${envDump(env)}`;
      return file.split("\n").filter((line) => grep.test(line)).map((line) => `golden-${job.jobId}.out:${line}\n`);
    });
    expect(out.join("")).toBe(goldenStdout("061"));
  });

  it("sets the variables current Slurm added since 22.05", () => {
    const job = oracleJob({ jobId: 14, name: "gpuenv", node: "n3", cpus: 1, gpus: [0, 1], timeLimitMin: 60 });
    const env = buildBatchEnv(job, oracleCtx(job));
    expect(env.SLURM_JOB_GROUP).toBe("root");
    expect(env.SLURM_JOB_START_TIME).toBe(`${START}`);
    expect(env.SLURM_JOB_END_TIME).toBe(`${START + 3600}`);
    expect(env.SLURM_STEP_ID).toBe("-5");
    expect(env.SLURM_STEPID).toBeUndefined();
    expect(env.SLURM_JOB_OVERSUBSCRIBE).toBe("OK");
    expect(env.SLURM_JOB_EXCLUSIVE).toBe("NO");
    expect(env.ENVIRONMENT).toBe("BATCH");
    expect(env.HOSTNAME).toBe("n3");
    expect(env.TMPDIR).toBe("/tmp");
  });
});

describe("buildBatchEnv rules", () => {
  const single = (over: Partial<Plain<JobInfo>> = {}) => oracleJob({ jobId: 30, node: "n3", cpus: 4, gpus: [], ...over });

  it("keeps the submit environment and overrides stale SLURM_* values in it", () => {
    const job = single();
    const env = buildBatchEnv(job, oracleCtx(job, { submitEnv: { ...SUBMIT_ENV, FOO: "bar", SLURM_JOB_ID: "999" } }));
    expect(env.FOO).toBe("bar");
    expect(env.PATH).toBe("/usr/bin:/bin");
    expect(env.SLURM_JOB_ID).toBe("30");
    expect(env.SLURM_SUBMIT_DIR).toBe(JOBS_DIR);
    expect(env.SLURM_CONF).toBe(CONF);
  });

  it("renumbers visible devices from 0 under ConstrainDevices; SLURM_JOB_GPUS stays global", () => {
    const job = single({ alloc: [{ node: "n3", cpus: 4, memMib: 1024, gpuIndices: [3, 2], tasks: 0 }] });
    const env = buildBatchEnv(job, oracleCtx(job, { gpuIndicesOnNode: [3, 2], constrainDevices: true }));
    for (const name of ["CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL"]) {
      expect(env[name]).toBe("0,1");
    }
    expect(env.SLURM_JOB_GPUS).toBe("2,3");
    expect(env.SLURM_GPUS_ON_NODE).toBe("2");
    expect(env.HIP_VISIBLE_DEVICES).toBeUndefined();
  });

  it("removes visible-device variables inherited from the submit host when the job has no GPUs", () => {
    const job = single();
    const env = buildBatchEnv(job, oracleCtx(job, { submitEnv: { CUDA_VISIBLE_DEVICES: "5", SLURM_JOB_GPUS: "5" } }));
    expect(env.CUDA_VISIBLE_DEVICES).toBeUndefined();
    expect(env.SLURM_JOB_GPUS).toBeUndefined();
    expect(env.SLURM_GPUS_ON_NODE).toBeUndefined();
  });

  it("compresses per-node CPU and task counts of a multi-node job", () => {
    const job = makeJob({
      jobId: 31, numNodes: 3, nodelist: "n[1-3]", numCpus: 10, startTime: START,
      alloc: [
        { node: "n1", cpus: 4, memMib: 0, gpuIndices: [], tasks: 4 },
        { node: "n2", cpus: 4, memMib: 0, gpuIndices: [], tasks: 4 },
        { node: "n3", cpus: 2, memMib: 0, gpuIndices: [], tasks: 2 },
      ],
    });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { ntasks: 10 } }));
    expect(env.SLURM_JOB_CPUS_PER_NODE).toBe("4(x2),2");
    expect(env.SLURM_TASKS_PER_NODE).toBe("4(x2),2");
    expect(env.SLURM_NTASKS).toBe("10");
    expect(env.SLURM_NPROCS).toBe("10");
    expect(env.SLURM_NNODES).toBe("3");
    expect(env.SLURM_JOB_NUM_NODES).toBe("3");
    expect(env.SLURM_JOB_NODELIST).toBe("n[1-3]");
    expect(env.SLURM_NODELIST).toBe("n[1-3]");
    expect(env.SLURM_CPUS_ON_NODE).toBe("4");
    expect(env.SLURMD_NODENAME).toBe("n1");
    expect(env.SLURM_NODEID).toBe("0");
  });

  it("without -n: no SLURM_NTASKS, tasks per node = CPUs / cpus-per-task", () => {
    const job = makeJob({
      jobId: 32, numNodes: 2, nodelist: "n[1-2]", cpusPerTask: 2,
      alloc: [
        { node: "n1", cpus: 4, memMib: 0, gpuIndices: [], tasks: 0 },
        { node: "n2", cpus: 4, memMib: 0, gpuIndices: [], tasks: 0 },
      ],
    });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { cpusPerTask: 2 } }));
    expect(env.SLURM_NTASKS).toBeUndefined();
    expect(env.SLURM_NPROCS).toBeUndefined();
    expect(env.SLURM_TASKS_PER_NODE).toBe("2(x2)");
    expect(env.SLURM_CPUS_PER_TASK).toBe("2");
    expect(env.SLURM_TRES_PER_TASK).toBe("cpu=2");
  });

  it("derives SLURM_NTASKS from --ntasks-per-node", () => {
    const job = makeJob({ numNodes: 2, nodelist: "n[1-2]", ntasksPerNode: 2 });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { ntasksPerNode: 2 } }));
    expect(env.SLURM_NTASKS).toBe("4");
    expect(env.SLURM_NTASKS_PER_NODE).toBe("2");
  });

  it("sets memory per node or per CPU, never both", () => {
    const perNode = single({ memPerNodeMib: 4096, memPerCpuMib: 0 });
    const a = buildBatchEnv(perNode, oracleCtx(perNode, { spec: { memPerNodeMib: 4096 } }));
    expect([a.SLURM_MEM_PER_NODE, a.SLURM_MEM_PER_CPU]).toEqual(["4096", undefined]);
    const perCpu = single({ memPerCpuMib: 2048 });
    const b = buildBatchEnv(perCpu, oracleCtx(perCpu, { spec: { memPerCpuMib: 2048 } }));
    expect([b.SLURM_MEM_PER_NODE, b.SLURM_MEM_PER_CPU]).toEqual([undefined, "2048"]);
  });

  it("echoes options only when they were given", () => {
    const job = single({ dependency: "afterok:123(unfulfilled)", reservation: "maint1", restarts: 2 });
    const env = buildBatchEnv(job, oracleCtx(job, {
      spec: {
        gpusPerNode: "2", cpusPerGpu: 8, memPerGpuMib: 8192, gpusPerTask: "a100:1", distribution: "cyclic",
        overcommit: true, threadsPerCore: 1, openMode: "append", export: "NONE", umask: 0o22, licenses: "matlab:1",
        ntasksPerGpu: 2, gpuBind: "closest",
      },
    }));
    expect(env).toMatchObject({
      SLURM_GPUS_PER_NODE: "2", SLURM_CPUS_PER_GPU: "8", SLURM_MEM_PER_GPU: "8192",
      SLURM_TRES_PER_TASK: "gres/gpu:a100=1", SLURM_DISTRIBUTION: "cyclic", SLURM_OVERCOMMIT: "1",
      SLURM_THREADS_PER_CORE: "1", SLURM_OPEN_MODE: "a", SLURM_EXPORT_ENV: "NONE", SLURM_GET_USER_ENV: "1",
      SLURM_UMASK: "0022", SLURM_JOB_LICENSES: "matlab:1", SLURM_JOB_DEPENDENCY: "afterok:123(unfulfilled)",
      SLURM_JOB_RESERVATION: "maint1", SLURM_RESTART_COUNT: "2",
      SLURM_NTASKS_PER_GPU: "2", SLURM_NTASKS_PER_TRES: "2", SLURM_TRES_BIND: "gres/gpu:closest",
    });
    const plain = buildBatchEnv(single(), oracleCtx(single()));
    for (const name of [
      "SLURM_GPUS", "SLURM_GPUS_PER_NODE", "SLURM_CPUS_PER_TASK", "SLURM_TRES_PER_TASK", "SLURM_OPEN_MODE",
      "SLURM_EXPORT_ENV", "SLURM_GET_USER_ENV", "SLURM_UMASK", "SLURM_JOB_DEPENDENCY", "SLURM_RESTART_COUNT",
      "SLURM_JOB_RESERVATION", "SLURM_ARRAY_JOB_ID", "SLURM_NTASKS_PER_NODE", "SLURM_MEM_PER_NODE",
      "SLURM_NTASKS_PER_TRES", "SLURM_TRES_BIND",
    ]) {
      expect(plain[name], name).toBeUndefined();
    }
  });

  it("does not overwrite SLURM_EXPORT_ENV / SLURM_UMASK already in the submit environment", () => {
    const job = single();
    const env = buildBatchEnv(job, oracleCtx(job, {
      submitEnv: { SLURM_EXPORT_ENV: "ALL", SLURM_UMASK: "0077" },
      spec: { export: "NONE", umask: 0o22 },
    }));
    expect(env.SLURM_EXPORT_ENV).toBe("ALL");
    expect(env.SLURM_UMASK).toBe("0077");
  });

  it("takes ARRAY_* from the submitted --array, with the step after the first ':'", () => {
    const job = single({ arrayJobId: 40, arrayTaskId: 4, jobId: 42 });
    const env = buildBatchEnv(job, oracleCtx(job, { spec: { array: "1-10:3%2" } }));
    expect(env).toMatchObject({
      SLURM_ARRAY_JOB_ID: "40", SLURM_ARRAY_TASK_ID: "4", SLURM_ARRAY_TASK_COUNT: "4",
      SLURM_ARRAY_TASK_MIN: "1", SLURM_ARRAY_TASK_MAX: "10", SLURM_ARRAY_TASK_STEP: "3", SLURM_JOB_ID: "42",
    });
  });

  it("falls back to JobInfo without a spec (0 = not given)", () => {
    const job = single({ numTasks: 0, cpusPerTask: 0, tresPerJob: "gres/gpu:a100:2", arrayJobId: 40, arrayTaskId: 2, arrayTaskStr: "1-3" });
    const env = buildBatchEnv(job, { ...oracleCtx(job), spec: undefined });
    expect(env.SLURM_NTASKS).toBeUndefined();
    expect(env.SLURM_CPUS_PER_TASK).toBeUndefined();
    expect(env.SLURM_GPUS).toBe("a100:2");
    expect(env.SLURM_ARRAY_TASK_COUNT).toBe("3");
    const withTasks = single({ numTasks: 4 });
    expect(buildBatchEnv(withTasks, { ...oracleCtx(withTasks), spec: undefined }).SLURM_NTASKS).toBe("4");
  });

  it("uses the job's end time when known, else start + time limit", () => {
    const job = single({ endTime: START + 100 });
    expect(buildBatchEnv(job, oracleCtx(job)).SLURM_JOB_END_TIME).toBe(`${START + 100}`);
  });

  it("TMPDIR: ctx.tmpDir, else the submit environment's, else /tmp", () => {
    const job = single();
    expect(buildBatchEnv(job, oracleCtx(job, { tmpDir: "/tmp/job30" })).TMPDIR).toBe("/tmp/job30");
    expect(buildBatchEnv(job, oracleCtx(job, { submitEnv: { TMPDIR: "/scratch" } })).TMPDIR).toBe("/scratch");
  });

  it("exclusive jobs: OVERSUBSCRIBE=NO, EXCLUSIVE=NODE", () => {
    const job = single({ exclusive: true });
    const env = buildBatchEnv(job, oracleCtx(job));
    expect([env.SLURM_JOB_OVERSUBSCRIBE, env.SLURM_JOB_EXCLUSIVE]).toEqual(["NO", "NODE"]);
  });
});

describe("buildStepTaskEnv", () => {
  it("026: srun --gres=gpu:2 in a new allocation", () => {
    const job = oracleJob({ jobId: 4, name: "bash", node: "n3", cpus: 1, gpus: [0, 1], batchFlag: false });
    // What srun itself puts in the task environment; its listener gives the SLURM_SRUN_COMM_* variables.
    const srunEnv = { ...SUBMIT_ENV, SLURM_UMASK: "0022" };
    const env = buildStepTaskEnv(
      job,
      { stepId: 0, nodelist: "n3", ntasks: 1, tasksPerNode: [1], nodeNames: ["n3"] },
      { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [0, 1], constrainDevices: false },
      srunEnv,
      { clusterName: "oracle", confPath: CONF, submitDir: JOBS_DIR, topology: { addr: "n3", pattern: "node" }, launcher: { host: "127.0.0.1", port: 38123 } },
    );
    const drop = new Set([...ONLY_2205, "SLURM_JOB_GROUP", "SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME"]);
    expect(envDump(env, drop)).toBe(goldenDump("026", drop));
    expect(env.SLURM_JOB_GPUS).toBeUndefined();
    expect(env.SLURM_MEM_PER_CPU).toBeUndefined();
  });

  it("srun's own settings: -l sets SLURM_LABELIO, -c SLURM_CPUS_PER_TASK, its umask SLURM_UMASK unless already set", () => {
    const job = oracleJob({ jobId: 4, name: "bash", node: "n3", cpus: 2, gpus: [], batchFlag: false });
    const at = (base: Record<string, string>) => buildStepTaskEnv(
      job,
      { stepId: 0, nodelist: "n3", ntasks: 1, tasksPerNode: [1], nodeNames: ["n3"] },
      { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [], constrainDevices: false },
      base,
      { clusterName: "oracle", confPath: CONF, umask: 0o022, labelIo: true, cpusPerTask: 2 },
    );
    const own = at({ ...SUBMIT_ENV });
    expect([own.SLURM_LABELIO, own.SLURM_CPUS_PER_TASK, own.SLURM_UMASK, own.SLURM_CLUSTER_NAME]).toEqual(["1", "2", "0022", "oracle"]);
    expect(at({ ...SUBMIT_ENV, SLURM_UMASK: "0077" }).SLURM_UMASK).toBe("0077");
  });

  it("srun's listener: SLURM_SRUN_COMM_HOST/PORT name it; without one, inherited values are dropped", () => {
    const job = oracleJob({ jobId: 4, name: "bash", node: "n3", cpus: 1, gpus: [], batchFlag: false });
    const at = (base: Record<string, string>, launcher?: { host: string; port: number }) => buildStepTaskEnv(
      job,
      { stepId: 1, nodelist: "n3", ntasks: 1, tasksPerNode: [1], nodeNames: ["n3"] },
      { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [], constrainDevices: false },
      base,
      { clusterName: "oracle", confPath: CONF, ...(launcher === undefined ? {} : { launcher }) },
    );
    const names = ["SLURM_LAUNCH_NODE_IPADDR", "SLURM_SRUN_COMM_HOST", "SLURM_SRUN_COMM_PORT", "SLURM_STEP_LAUNCHER_PORT"] as const;
    const own = at({ ...SUBMIT_ENV, SLURM_SRUN_COMM_PORT: "1" }, { host: "10.0.0.5", port: 41234 });
    expect(names.map((n) => own[n])).toEqual(["10.0.0.5", "10.0.0.5", "41234", "41234"]);
    const none = at({ ...SUBMIT_ENV, SLURM_SRUN_COMM_HOST: "10.9.9.9", SLURM_SRUN_COMM_PORT: "1" });
    expect(names.map((n) => none[n])).toEqual([undefined, undefined, undefined, undefined]);
  });

  it("SLURM_DISTRIBUTION in a step only from srun -m (26.x table), else as inherited", () => {
    const job = oracleJob({ jobId: 4, name: "bash", node: "n3", cpus: 1, gpus: [], batchFlag: false });
    const at = (base: Record<string, string>, distribution?: string) => buildStepTaskEnv(
      job,
      { stepId: 1, nodelist: "n3", ntasks: 1, tasksPerNode: [1], nodeNames: ["n3"] },
      { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [], constrainDevices: false },
      base,
      { clusterName: "oracle", confPath: CONF, ...(distribution === undefined ? {} : { distribution }) },
    );
    expect(at({ ...SUBMIT_ENV }).SLURM_DISTRIBUTION).toBeUndefined();
    expect(at({ ...SUBMIT_ENV }, "block:cyclic").SLURM_DISTRIBUTION).toBe("block:cyclic");
    expect(at({ ...SUBMIT_ENV, SLURM_DISTRIBUTION: "plane" }, "").SLURM_DISTRIBUTION).toBe("plane");
  });

  describe("inside a two-node batch job", () => {
    const job = makeJob({
      jobId: 50, name: "multi", numNodes: 2, nodelist: "n[3-4]", numCpus: 8, startTime: START,
      alloc: [
        { node: "n3", cpus: 4, memMib: 0, gpuIndices: [0, 1], tasks: 2 },
        { node: "n4", cpus: 4, memMib: 0, gpuIndices: [4, 5], tasks: 2 },
      ],
    });
    const batch = buildBatchEnv(job, oracleCtx(job, { spec: { ntasks: 4 } }));
    const step = { stepId: 3, nodelist: "n[3-4]", ntasks: 4, tasksPerNode: [2, 2], nodeNames: ["n3", "n4"] };

    it("sets step, rank and node variables and keeps the batch's job variables", () => {
      const env = buildStepTaskEnv(
        job, step,
        { taskId: 3, localId: 1, nodeIndex: 1, nodeName: "n4", gpuIndicesOnNode: [5], constrainDevices: false },
        { ...batch, SLURM_SUBMIT_DIR: "/home/alice" },
      );
      expect(env).toMatchObject({
        SLURM_STEP_ID: "3", SLURM_STEPID: "3", SLURM_STEP_NODELIST: "n[3-4]", SLURM_STEP_NUM_NODES: "2",
        SLURM_STEP_NUM_TASKS: "4", SLURM_STEP_TASKS_PER_NODE: "2(x2)", SLURM_TASKS_PER_NODE: "2(x2)",
        SLURM_NTASKS: "4", SLURM_NPROCS: "4", SLURM_NNODES: "2", SLURM_NODELIST: "n[3-4]",
        SLURM_PROCID: "3", SLURM_LOCALID: "1", SLURM_NODEID: "1", SLURM_GTIDS: "2,3", SLURMD_NODENAME: "n4",
        SLURM_CPUS_ON_NODE: "4", SLURM_STEP_GPUS: "5", CUDA_VISIBLE_DEVICES: "5", SLURM_GPUS_ON_NODE: "1",
        SLURM_JOB_NAME: "multi", SLURM_SUBMIT_DIR: "/home/alice", SLURM_JOB_CPUS_PER_NODE: "4(x2)",
        SLURM_CLUSTER_NAME: "oracle", SLURM_CONF: CONF, ENVIRONMENT: "BATCH",
      });
      // the batch script's job-level GPU list is inherited, not recomputed
      expect(env.SLURM_JOB_GPUS).toBe("0,1");
    });

    it("removes GPU variables for a task without GPUs", () => {
      const env = buildStepTaskEnv(
        job, step,
        { taskId: 0, localId: 0, nodeIndex: 0, nodeName: "n3", gpuIndicesOnNode: [], constrainDevices: false },
        batch,
      );
      for (const name of ["CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL", "SLURM_STEP_GPUS", "SLURM_GPUS_ON_NODE"]) {
        expect(env[name], name).toBeUndefined();
      }
      expect(env.SLURM_GTIDS).toBe("0,1");
    });

    it("honours explicit gtids, per-node step CPUs and device constraint", () => {
      const env = buildStepTaskEnv(
        job, { ...step, cpusPerNode: [1, 1] },
        { taskId: 1, localId: 0, nodeIndex: 1, nodeName: "n4", gpuIndicesOnNode: [5], constrainDevices: true, gtids: [1, 3] },
        batch,
      );
      expect([env.SLURM_GTIDS, env.SLURM_CPUS_ON_NODE, env.CUDA_VISIBLE_DEVICES, env.SLURM_STEP_GPUS]).toEqual(["1,3", "1", "0", "5"]);
    });
  });
});

describe("buildSallocEnv", () => {
  it("sets job-level variables only", () => {
    const job = makeJob({
      jobId: 60, name: "interactive", numNodes: 2, nodelist: "n[1-2]", memPerCpuMib: 256, startTime: START,
      alloc: [
        { node: "n1", cpus: 4, memMib: 1024, gpuIndices: [], tasks: 4 },
        { node: "n2", cpus: 4, memMib: 1024, gpuIndices: [], tasks: 4 },
      ],
    });
    const env = buildSallocEnv(job, { clusterName: "oracle", submitEnv: { ...SUBMIT_ENV, CUDA_VISIBLE_DEVICES: "1" }, spec: { ntasks: 8 } });
    expect(env).toMatchObject({
      SLURM_JOB_ID: "60", SLURM_JOBID: "60", SLURM_JOB_NAME: "interactive", SLURM_JOB_NODELIST: "n[1-2]",
      SLURM_NODELIST: "n[1-2]", SLURM_NNODES: "2", SLURM_JOB_NUM_NODES: "2", SLURM_JOB_CPUS_PER_NODE: "4(x2)",
      SLURM_TASKS_PER_NODE: "4(x2)", SLURM_NTASKS: "8", SLURM_NPROCS: "8", SLURM_CLUSTER_NAME: "oracle",
      SLURM_SUBMIT_DIR: JOBS_DIR, SLURM_SUBMIT_HOST: "vm", SLURM_MEM_PER_CPU: "256", SLURM_JOB_PARTITION: "debug",
      SLURM_JOB_ACCOUNT: "root", SLURM_JOB_QOS: "normal", CUDA_VISIBLE_DEVICES: "1", PATH: "/usr/bin:/bin",
    });
    for (const name of [
      "SLURM_CPUS_ON_NODE", "SLURM_NODEID", "SLURM_PROCID", "SLURM_LOCALID", "SLURM_GTIDS", "SLURM_STEP_ID",
      "SLURMD_NODENAME", "SLURM_JOB_UID", "SLURM_JOB_GPUS", "ENVIRONMENT", "SLURM_CONF", "SLURM_PRIO_PROCESS",
      "SLURM_JOB_START_TIME", "TMPDIR", "HOSTNAME",
    ]) {
      expect(env[name], name).toBeUndefined();
    }
  });
});

describe("-m arbitrary: SLURM_TASKS_PER_NODE follows SLURM_ARBITRARY_NODELIST (SLURM_HOSTFILE n2 n2 n1 n3)", () => {
  const job = (numTasks: number) => makeJob({
    jobId: 70, numNodes: 3, nodelist: "n[1-3]", numTasks, startTime: START, batchHost: "n1",
    alloc: ["n1", "n2", "n3"].map((node) => ({ node, cpus: 1, memMib: 256, gpuIndices: [], tasks: 0 })),
  });
  const submitEnv = { ...SUBMIT_ENV, SLURM_ARBITRARY_NODELIST: "n[2,2,1,3]" };
  it("a batch script with -n4 counts each node's entries, in node order", () => {
    const env = buildBatchEnv(job(4), oracleCtx(job(4), { submitEnv, spec: { ntasks: 4, distribution: "arbitrary" } }));
    expect([env.SLURM_TASKS_PER_NODE, env.SLURM_ARBITRARY_NODELIST, env.SLURM_NTASKS]).toEqual(["1,2,1", "n[2,2,1,3]", "4"]);
  });
  it("a batch script whose task count is not the list's length gets no SLURM_TASKS_PER_NODE (oracle: 3 tasks, 4 entries)", () => {
    const env = buildBatchEnv(job(3), oracleCtx(job(3), { submitEnv, spec: { ntasks: 3, distribution: "arbitrary" } }));
    expect([env.SLURM_TASKS_PER_NODE, env.SLURM_NTASKS]).toEqual([undefined, "3"]);
  });
  it("without -m arbitrary the list is ignored", () => {
    const env = buildBatchEnv(job(4), oracleCtx(job(4), { submitEnv, spec: { ntasks: 4 } }));
    expect(env.SLURM_TASKS_PER_NODE).not.toBe("1,2,1");
  });
  it("salloc's shell gets the same count", () => {
    const env = buildSallocEnv(job(4), { clusterName: "oracle", submitEnv, spec: { ntasks: 4, distribution: "arbitrary" } });
    expect(env.SLURM_TASKS_PER_NODE).toBe("1,2,1");
  });
});
