/**
 * End-to-end GPU discovery feeding registration: `spur up --devices-root` makes
 * every spurd discover its GPUs from the MI250X fixture (gres.conf AutoDetect=spur):
 * eight GCDs, paired per package over bonded XGMI. The node registers them with
 * their links, and a 2-GPU job gets a package pair, not the lowest free indices.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { startCluster, eventually, jobState, type Cluster } from "./cluster.ts";

let c: Cluster;
const FIXTURE = resolve(__dirname, "../fixtures/gpu/mi250x-4pkg-xgmi");

beforeAll(() => {
  c = startCluster(["--nodes", "2", "--cpus-per-node", "4", "--gpus-per-node", "8", "--gpu-model", "mi250x", "--devices-root", FIXTURE]);
}, 120_000);
afterAll(() => c?.down());

const submit = (args: string[]): string => {
  const r = c.run(["sbatch", "--parsable", ...args]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  return r.stdout.trim();
};
const state = (id: string) => c.run(["squeue", "-h", "-j", id, "-o", "%T"]).stdout.trim();

describe("GPU discovery feeding registration", () => {
  it("registers the discovered GPUs", () => {
    // One socket, and the GPUs the fixture puts near its first CPUs are known to be there: (S:0), as Slurm prints it.
    expect(c.run(["scontrol", "show", "node", "n1"]).stdout).toContain("   Gres=gpu:mi250x:8(S:0)\n");
    const log = readFileSync(join(c.dir, "cluster", "log", "spurd-n1.log"), "utf8");
    expect(log).toMatch(/"message":"gpus".*"source":"discovered".*"count":8.*"topology":true/);
  });

  it("gives a 2-GPU job the two GCDs of one package", async () => {
    const holder = submit(["-w", "n1", "--gres=gpu:mi250x:1", "--wrap", "sleep 60"]);
    await eventually("holder running", () => (state(holder) === "RUNNING" ? true : undefined), 60_000);
    const id = submit(["-w", "n1", "--gpus=2", "--wrap", "echo $ROCR_VISIBLE_DEVICES $SLURM_JOB_GPUS"]);
    await eventually(`job ${id} done`, () => (jobState(c, id) === "COMPLETED" ? true : undefined), 60_000);
    expect(readFileSync(join(c.work, `slurm-${id}.out`), "utf8")).toBe("2,3 2,3\n");
    c.run(["scancel", holder]);
  });
});
