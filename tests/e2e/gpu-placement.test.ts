/**
 * End-to-end GPU placement on `spur up --nodes 4 --gpus-per-node 8 --gpu-model
 * mi300x` with the declared XGMI links (gres.conf written by spur up) and a switch
 * tree of two leaves (topology.conf, --nodes-per-switch 2): GRES in sinfo and
 * scontrol, the visible-device variables, best fit across nodes, a gang under
 * one leaf switch, a required node (-w) that is full, and the device files in
 * the launch record.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster([
    "--nodes", "4", "--cpus-per-node", "8", "--mem-per-node", "8000", "--gpus-per-node", "8", "--gpu-model", "mi300x", "--nodes-per-switch", "2",
  ]);
}, 120_000);
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};
const squeue = (id: string, fmt: string) => c.run(["squeue", "-h", "-j", id, "-o", fmt]).stdout.trim();
const running = (id: string) => eventually(`job ${id} running`, () => (squeue(id, "%T") === "RUNNING" ? true : undefined), 60_000);
const finished = (id: string) => eventually(`job ${id} done`, () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
const ENV = "echo CUDA=$CUDA_VISIBLE_DEVICES ROCR=$ROCR_VISIBLE_DEVICES JOB=$SLURM_JOB_GPUS ORD=$GPU_DEVICE_ORDINAL ON=$SLURM_GPUS_ON_NODE";

describe("GPU placement on a declared XGMI cluster", () => {
  it("shows the registered GRES as Slurm does", () => {
    expect(c.run(["sinfo", "-h", "-N", "-o", "%N %G"]).stdout).toBe(
      ["n1", "n1", "n2", "n2", "n3", "n3", "n4", "n4"].map((n) => `${n} gpu:mi300x:8\n`).join(""),
    );
    const node = c.run(["scontrol", "show", "node", "n2"]).stdout;
    expect(node).toContain("   Gres=gpu:mi300x:8\n");
    expect(node).toContain("   CfgTRES=cpu=8,mem=8000M,billing=8,gres/gpu=8\n");
  });

  let holder = "";
  it("records GPU indices and their device files in the launch record", async () => {
    holder = submit(["-w", "n1", "--gpus-per-node=6", "--wrap", "sleep 120"]);
    await running(holder);
    const launch = join(c.dir, "cluster", "spool", "n1", "jobs", holder, "launch.json");
    await eventually("launch.json", () => (existsSync(launch) ? true : undefined));
    const record = JSON.parse(readFileSync(launch, "utf8")) as { gpuIndices: number[]; gpuDeviceFiles: string[] };
    expect(record.gpuIndices).toEqual([0, 1, 2, 3, 4, 5]);
    expect(record.gpuDeviceFiles).toEqual([128, 129, 130, 131, 132, 133].map((m) => `/dev/dri/renderD${m}`));
    expect(squeue(holder, "%b")).toBe("gres/gpu:6");
  });

  it("fills the partly used node first and sets the device variables", async () => {
    const id = submit(["--gpus=2", "--wrap", ENV]);
    await finished(id);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("CUDA=6,7 ROCR=6,7 JOB=6,7 ORD=6,7 ON=2\n");
    expect(c.run(["sacct", "-n", "-X", "-P", "-j", id, "-o", "NodeList,AllocTRES"]).stdout).toBe("n1|billing=1,cpu=1,gres/gpu=2,mem=256M,node=1\n");
  });

  it("starts a 2-node gang under one leaf switch, on all its nodes at once", async () => {
    c.write("gang.sh", "#!/bin/bash\nsrun -l bash -c 'echo $SLURMD_NODENAME $CUDA_VISIBLE_DEVICES' | sort\n");
    const id = submit(["-N2", "--exclusive", "--gpus-per-node=8", "gang.sh"]);
    await finished(id);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("0: n3 0,1,2,3,4,5,6,7\n1: n4 0,1,2,3,4,5,6,7\n");
  });

  it("binds each srun task to its own GPU under --gpus-per-task, and follows --gpu-bind", async () => {
    c.write("pertask.sh", "#!/bin/bash\nsrun -l bash -c 'echo $CUDA_VISIBLE_DEVICES' | sort\nsrun -l --gpu-bind=single:2 bash -c 'echo $ROCR_VISIBLE_DEVICES' | sort\n");
    const id = submit(["-w", "n2", "-n", "4", "--gpus-per-task=1", "pertask.sh"]);
    await finished(id);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("0: 0\n1: 1\n2: 2\n3: 3\n0: 0\n1: 0\n2: 1\n3: 1\n");
  });

  it("shows per-task TRES and the switch request in squeue", () => {
    const id = submit(["-H", "-n", "2", "--gpus-per-task=mi300x:2", "--switches=1@5:00", "--wrap", "true"]);
    expect(c.run(["squeue", "-h", "-j", id, "-O", "tres-per-task:30,ReqSwitch:10,Wait4Switch:12"]).stdout).toBe(
      // the GRES alone, in scontrol's form, as 22.05's squeue prints it (differential seed 9983)
      `${"gres:gpu:mi300x:2".padEnd(30)}${"1".padEnd(10)}${"5:00".padEnd(12)}\n`,
    );
    expect(c.run(["scancel", id]).code).toBe(0);
  });

  it("sizes CPUs and memory from --cpus-per-gpu / --mem-per-gpu and echoes the GPU options in the job's environment", async () => {
    const vars = "SLURM_GPUS_ON_NODE SLURM_CPUS_PER_GPU SLURM_MEM_PER_GPU SLURM_TRES_BIND SLURM_GPUS_PER_NODE SLURM_JOB_GPUS";
    c.write("surface.sh", `#!/bin/bash\nfor v in ${vars}; do echo "$v=\${!v}"; done\n`);
    const id = submit(["-w", "n4", "--gres=gpu:mi300x:2", "--cpus-per-gpu=2", "--mem-per-gpu=512", "--gpu-bind=closest", "surface.sh"]);
    await finished(id);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe(
      "SLURM_GPUS_ON_NODE=2\nSLURM_CPUS_PER_GPU=2\nSLURM_MEM_PER_GPU=512\nSLURM_TRES_BIND=gres/gpu:closest\nSLURM_GPUS_PER_NODE=\nSLURM_JOB_GPUS=0,1\n",
    );
    expect(c.run(["sacct", "-n", "-X", "-P", "-j", id, "-o", "AllocTRES"]).stdout).toBe("billing=4,cpu=4,gres/gpu=2,mem=1G,node=1\n");
    expect(c.run(["scontrol", "show", "job", id]).stdout).toContain("   TresPerNode=gres:gpu:mi300x:2\n");
  });

  it("keeps a job for a full required node pending with reason Resources", async () => {
    const id = submit(["-w", "n1", "--gpus-per-node=8", "--wrap", ENV]);
    await eventually("reason Resources", () => (squeue(id, "%T %r") === "PENDING Resources" ? true : undefined));
    expect(c.run(["scancel", holder]).code).toBe(0);
    await finished(id);
    expect(c.run(["sacct", "-n", "-X", "-P", "-j", id, "-o", "NodeList"]).stdout).toBe("n1\n");
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("CUDA=0,1,2,3,4,5,6,7 ROCR=0,1,2,3,4,5,6,7 JOB=0,1,2,3,4,5,6,7 ORD=0,1,2,3,4,5,6,7 ON=8\n");
  });
});
