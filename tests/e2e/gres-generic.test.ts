/**
 * End-to-end: counted GRES beyond GPUs (issues 15 §2, 21) on Spur started from a site's
 * slurm.conf (`spur up --slurm-conf tests/fixtures/ops/slurm-site-gres`: GresTypes=gpu,nvme,
 * n[1-2] Gres=nvme:2, AccountingStorageTRES=gres/gpu,gres/nvme). The oracle has no generic
 * GRES (GresTypes=gpu), so the texts come from: its goldens 088 (`sbatch --gres=fpga:1` →
 * "sbatch: error: Invalid generic resource (gres) specification", exit 1), 087/029 (a count
 * no node has → "Requested node configuration is not available", exit 1), 017/066
 * (CfgTRES/AllocTRES gres/NAME=N), 053 (squeue %b) and Slurm's gres.c (GresUsed name:count).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually } from "./cluster.ts";

const SITE = resolve(__dirname, "../fixtures/ops/slurm-site-gres");

let state = "";
let env: NodeJS.ProcessEnv = {};
const mine: string[] = [];

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "spur-e2e-gres-generic-"));
  state = join(dir, "cluster");
  const up = spawnSync(BIN, ["up", "--detach", "--slurm-conf", SITE, "--state-dir", state], { encoding: "utf8", timeout: 90_000 });
  if (up.status !== 0) throw new Error(`spur up --slurm-conf failed: ${up.stdout}${up.stderr}`);
  env = { ...process.env, SPUR_CONF: join(state, "spur.conf") };
  for (const k of Object.keys(env)) if (k.startsWith("SBATCH_") || k.startsWith("SLURM_")) delete env[k];
});

afterAll(() => {
  if (mine.length > 0) run(["scancel", ...mine]);
  if (state !== "") spawnSync(BIN, ["down", "--state-dir", state], { timeout: 30_000 });
  if (state !== "") rmSync(resolve(state, ".."), { recursive: true, force: true });
});

function run(argv: string[], extraEnv: Record<string, string> = {}) {
  const r = spawnSync(BIN, argv, { env: { ...env, ...extraEnv }, cwd: resolve(state, ".."), encoding: "utf8", timeout: 30_000 });
  return { stdout: r.stdout ?? "", stderr: r.stderr ?? "", code: r.status ?? -1 };
}

function submit(argv: string[], extraEnv: Record<string, string> = {}): string {
  const r = run(["sbatch", "--parsable", "-J", "gresx", ...argv], extraEnv);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const id = r.stdout.trim();
  mine.push(id);
  return id;
}

const showJob = (id: string): string => run(["scontrol", "show", "job", id]).stdout;
const showNode = (name: string, ...flags: string[]): string => run(["scontrol", ...flags, "show", "node", name]).stdout;
const field = (text: string, key: string): string | undefined => new RegExp(`\\b${key}=(\\S*)`).exec(text)?.[1];

describe("configured counted GRES", () => {
  it("scontrol show node, sinfo %G and show config show them", async () => {
    await eventually("every node registered", () => (run(["sinfo", "-h", "-N", "-o", "%N %T"]).stdout.includes("unknown") ? undefined : true), 30_000);
    const n1 = showNode("n1", "-d");
    expect([field(n1, "Gres"), field(n1, "GresUsed"), field(n1, "CfgTRES")]).toEqual(["nvme:2", "nvme:0", "cpu=4,mem=4000M,billing=4,gres/nvme=2"]);
    expect(field(showNode("n4"), "Gres")).toBe("(null)");
    expect(run(["sinfo", "-h", "-N", "-p", "debug", "-o", "%N %G"]).stdout).toBe("n1 nvme:2\nn2 nvme:2\nn3 gpu:mi300x:2,shard:4\nn4 (null)\n");
    const config = run(["scontrol", "show", "config"]).stdout;
    expect(config).toMatch(/^GresTypes\s+= gpu,nvme,shard$/m);
  });
});

describe("refusals at submit, in Slurm's words", () => {
  it("a name outside GresTypes (golden 088)", () => {
    expect(run(["sbatch", "--gres=fpga:1", "--wrap", "true"])).toEqual({ stdout: "", stderr: "sbatch: error: Invalid generic resource (gres) specification\n", code: 1 });
  });

  it.each([
    [["--gres=nvme:3"]],
    [["-p", "plain", "--gres=nvme:1"]],
  ])("a count or partition no node could ever hold: %j", (args) => {
    expect(run(["sbatch", ...args, "--wrap", "true"])).toEqual({
      stdout: "", stderr: "sbatch: error: Batch job submission failed: Requested node configuration is not available\n", code: 1,
    });
  });

  it("--test-only says it as for CPUs (oracle: sbatch --test-only -c 96)", () => {
    expect(run(["sbatch", "--test-only", "--gres=nvme:3", "--wrap", "true"])).toEqual({
      stdout: "", stderr: "allocation failure: Requested node configuration is not available\n", code: 1,
    });
  });

  it("srun says it its own way (golden 029)", () => {
    const r = run(["srun", "--gres=nvme:3", "true"]);
    expect([r.stderr, r.code]).toEqual(["srun: error: Unable to allocate resources: Requested node configuration is not available\n", 1]);
  });
});

describe("requests from every source", () => {
  it("--gres, #SBATCH --gres and SBATCH_GRES all become TresPerNode", () => {
    const script = join(state, "..", "gres-job.sh");
    writeFileSync(script, "#!/bin/sh\n#SBATCH --gres=nvme:1\ntrue\n");
    expect(field(showJob(submit(["--hold", script])), "TresPerNode")).toBe("gres:nvme:1");
    expect(field(showJob(submit(["--hold", "--wrap", "true"], { SBATCH_GRES: "nvme:2" })), "TresPerNode")).toBe("gres:nvme:2");
    expect(field(showJob(submit(["--hold", "--gres=gpu:1,nvme:1", "--wrap", "true"])), "TresPerNode")).toBe("gres:gpu:1,gres:nvme:1");
  });
});

describe("shards", () => {
  it("a shard job sees the GPU its shards sit on and its shard count; whole GPUs and shards never in one job", async () => {
    expect(run(["sbatch", "--gres=gpu:1,shard:1", "--wrap", "true"])).toEqual({ stdout: "", stderr: "sbatch: error: Invalid generic resource (gres) specification\n", code: 1 });
    const id = submit(["--gres=shard:2", "--wrap", "echo shards=$SLURM_SHARDS_ON_NODE cuda=$CUDA_VISIBLE_DEVICES gpus=$SLURM_JOB_GPUS"]);
    const out = join(state, "..", `slurm-${id}.out`);
    const text = await eventually("the shard job's output", () => {
      const t = existsSync(out) ? readFileSync(out, "utf8") : "";
      return t.includes("shards=") ? t : undefined;
    }, 30_000);
    expect(text).toMatch(/^shards=2 cuda=[01] gpus=\n$/);
    expect(field(showJob(id), "TresPerNode")).toBe("gres:shard:2");
  });
});

describe("scheduling by count", () => {
  it("two nvme:2 jobs take n1 and n2; an nvme:1 job waits with Resources; every display shows what they hold", async () => {
    const a = submit(["--gres=nvme:2", "--wrap", "sleep 120"]);
    const b = submit(["--gres=nvme:2", "--wrap", "sleep 120"]);
    const nodes = await eventually("both run", () => {
      const out = run(["squeue", "-h", "-j", `${a},${b}`, "-o", "%T %N"]).stdout.trim().split("\n");
      return out.length === 2 && out.every((l) => l.startsWith("RUNNING ")) ? out.map((l) => l.split(" ")[1]).sort() : undefined;
    }, 30_000);
    expect(nodes).toEqual(["n1", "n2"]);
    const waiter = submit(["--gres=nvme:1", "--wrap", "true"]);
    const reason = await eventually("reason Resources", () => {
      const r = run(["squeue", "-h", "-j", waiter, "-o", "%T %r"]).stdout.trim();
      return r === "PENDING Resources" ? r : undefined;
    });
    expect(reason).toBe("PENDING Resources");
    const job = showJob(a);
    expect(field(job, "TresPerNode")).toBe("gres:nvme:2");
    expect(field(job, "TRES")).toMatch(/^cpu=1,mem=256M,node=1,billing=1,gres\/nvme=2$/);
    expect(run(["squeue", "-h", "-j", a, "-o", "%b"]).stdout).toBe("gres/nvme:2\n");
    const node = showNode(field(job, "NodeList") ?? "", "-d");
    expect([field(node, "GresUsed"), field(node, "AllocTRES")]).toEqual(["nvme:2", "cpu=1,mem=256M,gres/nvme=2"]);
    expect(run(["sacct", "-n", "-X", "-P", "-j", a, "-o", "AllocTRES,ReqTRES"]).stdout).toBe(
      "billing=1,cpu=1,gres/nvme=2,mem=256M,node=1|billing=1,cpu=1,gres/nvme=2,mem=256M,node=1\n",
    );
    // the batch step holds the batch host's GRES too (golden 107: 14.batch cpu=1,gres/gpu=2,mem=256M,node=1)
    expect(run(["sacct", "-n", "-P", "-j", a, "-o", "JobID,AllocTRES"]).stdout).toBe(
      `${a}|billing=1,cpu=1,gres/nvme=2,mem=256M,node=1\n${a}.batch|cpu=1,gres/nvme=2,mem=256M,node=1\n`,
    );
    run(["scancel", a]);
    await eventually("the waiter runs once nvme is back", () => {
      const s = field(showJob(waiter), "JobState");
      return s === "RUNNING" || s === "COMPLETED" ? s : undefined;
    }, 30_000);
    run(["scancel", b]);
  });
});
