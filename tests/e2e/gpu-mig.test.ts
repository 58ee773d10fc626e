/**
 * End-to-end MIG: `spur up --devices-root` on the H100 MIG fixture (GPU 0 split
 * into 3g.40gb + 2g.20gb + 1g.10gb, GPUs 1-7 whole; recorded nvidia-smi output).
 * The node registers four GPU types with their socket affinity; a typed request
 * gets an instance of its profile with CUDA_VISIBLE_DEVICES = its MIG UUID and
 * the parent + capability device files; a request for more instances of a
 * profile than exist is refused at submit; whole-GPU requests never take a MIG.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;
const FIXTURE = resolve(__dirname, "../fixtures/gpu/h100-sxm-8-mig");
const MIG_1G = "MIG-611edc42-8923-2d53-a76a-8cf171698dd1";

beforeAll(() => {
  // The fixture host's shape (2 sockets x 56 cores x 2 threads), so its CPU affinity places the GPUs on sockets.
  c = startCluster([
    "--nodes", "1", "--cpus-per-node", "224", "--sockets-per-node", "2", "--threads-per-core", "2", "--mem-per-node", "16000",
    "--gpus-per-node", "10", "--gpu-model", "h100", "--devices-root", FIXTURE,
  ]);
}, 120_000);
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", "--mem=100", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};
const state = (id: string) => c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim();
const finished = (id: string) => eventually(`job ${id} done`, () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
const output = (id: string) => readFileSync(join(c.work, `slurm-${id}.out`), "utf8");

describe("MIG instances as typed GRES", () => {
  it("registers every profile and the whole GPUs, with their sockets", async () => {
    const want = "gpu:3g.40gb:1(S:0),gpu:2g.20gb:1(S:0),gpu:1g.10gb:1(S:0),gpu:h100:7(S:0-1)";
    await eventually("registered", () => (c.run(["sinfo", "-h", "-N", "-o", "%G"]).stdout.split("\n")[0] === want ? true : undefined), 60_000);
    const node = c.run(["scontrol", "-d", "show", "node", "n1"]).stdout;
    expect(node).toContain(`   Gres=${want}\n`);
    expect(node).toContain("   GresUsed=gpu:3g.40gb:0(IDX:N/A),gpu:2g.20gb:0(IDX:N/A),gpu:1g.10gb:0(IDX:N/A),gpu:h100:0(IDX:N/A)\n");
    expect(node).toContain("CfgTRES=cpu=224,mem=16000M,billing=224,gres/gpu=10\n");
  });

  it("gives --gres=gpu:1g.10gb:1 the 1g.10gb instance, named by its MIG UUID", async () => {
    const holder = submit(["--gres=gpu:1g.10gb:1", "--wrap", "sleep 120"]);
    await eventually(`job ${holder} running`, () => (state(holder) === "RUNNING" ? true : undefined), 60_000);
    const launch = join(c.dir, "cluster", "spool", "n1", "jobs", holder, "launch.json");
    await eventually("launch.json", () => (existsSync(launch) ? true : undefined));
    const record = JSON.parse(readFileSync(launch, "utf8")) as { gpuIndices: number[]; gpuDeviceFiles: string[]; env: Record<string, string> };
    expect(record.gpuIndices).toEqual([2]);
    expect(record.gpuDeviceFiles).toEqual(["/dev/nvidia0,/dev/nvidia-caps/nvidia-cap84,/dev/nvidia-caps/nvidia-cap85"]);
    expect([record.env.CUDA_VISIBLE_DEVICES, record.env.SLURM_JOB_GPUS, record.env.SLURM_GPUS_ON_NODE]).toEqual([MIG_1G, "2", "1"]);
    expect(c.run(["scontrol", "-d", "show", "node", "n1"]).stdout).toContain("gpu:1g.10gb:1(IDX:2),gpu:h100:0(IDX:N/A)");
    // The only 1g.10gb is busy: another waits (Resources) while a 2g.20gb job runs.
    const waiting = submit(["--gres=gpu:1g.10gb:1", "--wrap", "true"]);
    const other = submit(["--gres=gpu:2g.20gb:1", "--wrap", "echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS"]);
    await finished(other);
    expect(output(other)).toBe("MIG-1cd501df-38df-09a7-834c-8875ca0154c8 1\n");
    expect(c.run(["squeue", "-h", "-j", waiting, "-o", "%T %r"]).stdout.trim()).toBe("PENDING Resources");
    c.run(["scancel", holder]);
    await finished(waiting).catch(() => undefined);
  });

  it("refuses more instances of a profile than the node has, at submit", () => {
    const r = c.run(["sbatch", "--mem=100", "--gres=gpu:1g.10gb:2", "--wrap", "true"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("Requested node configuration is not available");
  });

  it("keeps whole-GPU requests on whole GPUs", async () => {
    const id = submit(["--gpus=h100:2", "--wrap", "echo $CUDA_VISIBLE_DEVICES $SLURM_JOB_GPUS $SLURM_GPUS"]);
    await finished(id);
    const [cuda, jobGpus, gpus] = output(id).trim().split(" ");
    expect(cuda).toBe(jobGpus);
    expect(jobGpus!.split(",").map(Number).every((g) => g >= 3)).toBe(true);
    expect(gpus).toBe("h100:2");
  });
});
