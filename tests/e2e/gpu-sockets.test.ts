/**
 * End-to-end GPU locality on `spur up --sockets-per-node 2`: one node of 16 CPUs
 * on two sockets with 4 GPUs, gres.conf Cores= putting GPUs 0-1 on socket 0
 * (CPUs 0-7) and 2-3 on socket 1 (CPUs 8-15). Checks Slurm's submit-time rule
 * for --gpus-per-socket, --gres-flags=enforce-binding waiting (Resources) while
 * the free GPUs' socket has no free CPU, the same job without the flag running,
 * --gpus-per-socket taking a GPU on each socket, and (where spurd contains jobs
 * in cgroups) the cores the agent picked.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;

beforeAll(() => {
  c = startCluster([
    "--nodes", "1", "--cpus-per-node", "16", "--sockets-per-node", "2", "--mem-per-node", "16000", "--gpus-per-node", "4", "--gpu-model", "h100",
  ]);
}, 120_000);
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", "--mem=100", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};
const squeue = (id: string, fmt: string) => c.run(["squeue", "-h", "-j", id, "-o", fmt]).stdout.trim();
const running = (id: string) => eventually(`job ${id} running`, () => (squeue(id, "%T") === "RUNNING" ? true : undefined), 60_000);
const finished = (id: string) => eventually(`job ${id} done`, () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
const launch = (id: string) => join(c.dir, "cluster", "spool", "n1", "jobs", id, "launch.json");

describe("GPU sockets end to end", () => {
  it("shows the GPUs' sockets in Gres= and sinfo %G, and what is used per index in GresUsed", () => {
    expect(c.run(["scontrol", "-d", "show", "node", "n1"]).stdout).toContain("   Gres=gpu:h100:4(S:0-1)\n   GresUsed=gpu:h100:0(IDX:N/A)\n");
    expect(c.run(["sinfo", "-h", "-N", "-o", "%G"]).stdout.split("\n")[0]).toBe("gpu:h100:4(S:0-1)");
  });

  it("rejects --gpus-per-socket without --sockets-per-node at submit, as Slurm does", () => {
    const r = c.run(["sbatch", "--gpus-per-socket=1", "--wrap", "true"]);
    expect([r.code, r.stderr]).toEqual([1, "sbatch: error: --gpus-per-socket option requires --sockets-per-node specification\nsbatch: error: Invalid generic resource (gres) specification\n"]);
  });

  it("binds with enforce-binding: waits on Resources while its GPUs' socket is full; runs without the flag", async () => {
    const holder = submit(["-n", "2", "--gpus=2", "--gres-flags=enforce-binding", "--wrap", "sleep 300"]); // GPUs 0-1, 2 CPUs of socket 0
    await running(holder);
    const filler = submit(["-n", "8", "--wrap", "sleep 300"]); // the only socket with 8 free CPUs: socket 1
    await running(filler);
    const bound = submit(["-n", "1", "--gpus=1", "--gres-flags=enforce-binding", "--wrap", "true"]);
    await eventually("bound job pending on Resources", () => (squeue(bound, "%T %r") === "PENDING Resources" ? true : undefined), 60_000);
    const loose = submit(["-n", "1", "--gpus=1", "--wrap", "echo $CUDA_VISIBLE_DEVICES"]);
    await finished(loose);
    expect(squeue(bound, "%T %r")).toBe("PENDING Resources");
    // Where spurd contains jobs (cgroups), the cores it picked lie on the counted sockets.
    if (existsSync(launch(holder))) {
      const cores = (id: string) => (JSON.parse(readFileSync(launch(id), "utf8")) as { cpuIds?: number[] }).cpuIds;
      if (cores(holder) !== undefined) {
        console.log("gpu-sockets e2e: checked the cores spurd picked (cgroup containment on)");
        expect(cores(holder)).toEqual([0, 1]);
        expect(cores(filler)).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
      }
    }
    c.run(["scancel", filler]);
    await finished(bound); // socket 1's CPUs are free again
    c.run(["scancel", holder]);
    await eventually("holder gone", () => (squeue(holder, "%T") === "" ? true : undefined), 60_000);
  }, 240_000);

  it("--gpus-per-socket=1 --sockets-per-node=2 takes a GPU on each socket", async () => {
    const id = submit(["-n", "2", "--gpus-per-socket=1", "--sockets-per-node=2", "--wrap", "echo $CUDA_VISIBLE_DEVICES $SLURM_GPUS_PER_SOCKET $SLURM_JOB_GPUS"]);
    await finished(id);
    const out = readFileSync(join(c.work, `slurm-${id}.out`), "utf8").trim().split(" ");
    expect(out.slice(1)).toEqual(["1", "0,2"]);
  }, 120_000);
});
