/**
 * End-to-end: what real batch scripts asked of a site, on Spur started from a site's
 * slurm.conf (`spur up --slurm-conf`: the oracle's files plus `Licenses=fluent:2,matlab`
 * and `AccountingStorageTRES=gres/gpu,license/fluent`, tests/fixtures/ops/slurm-site-licenses).
 * Expected texts are what real Slurm 22.05 printed on the oracle (2026-12-03):
 *   sbatch --hold -c 96            → accepted, JobHeldUser (the node test is skipped)
 *   sbatch --test-only -c 96 | -N 8 → "allocation failure: Requested node configuration is not available", exit 1
 *   sbatch --hold --mem=500MB|1GB  → MinMemoryNode=500M | 1G;  -A ROOT → Account=root
 *   sbatch -L foo --hold           → "sbatch: error: Batch job submission failed: Invalid license specification"
 *   squeue %e of a running job without a time limit → NONE;  SLURM_TIME_FORMAT=%s → epoch seconds
 * `scontrol show licenses` follows Slurm's layout (the oracle has no licenses configured).
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BIN, eventually } from "./cluster.ts";

const SITE = resolve(__dirname, "../fixtures/ops/slurm-site-licenses");

let state = "";
let env: NodeJS.ProcessEnv = {};
const mine: string[] = [];

beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "spur-e2e-site-resources-"));
  state = join(dir, "cluster");
  const up = spawnSync(BIN, ["up", "--detach", "--slurm-conf", SITE, "--state-dir", state], { encoding: "utf8", timeout: 90_000 });
  if (up.status !== 0) throw new Error(`spur up --slurm-conf failed: ${up.stdout}${up.stderr}`);
  env = { ...process.env, SPUR_CONF: join(state, "spur.conf") };
  delete env.SLURM_TIME_FORMAT;
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

function submit(argv: string[]): string {
  const r = run(["sbatch", "--parsable", ...argv]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
  const id = r.stdout.trim();
  mine.push(id);
  return id;
}

const showJob = (id: string): string => run(["scontrol", "show", "job", id]).stdout;
const field = (text: string, key: string): string | undefined => new RegExp(`\\b${key}=(\\S*)`).exec(text)?.[1];

describe("sbatch --hold and --test-only against the node test", () => {
  it("a held job larger than every node is queued, JobHeldUser", () => {
    const id = submit(["--hold", "-c", "96", "--wrap", "true"]);
    const job = showJob(id);
    expect([field(job, "JobState"), field(job, "Reason"), field(job, "NumCPUs")]).toEqual(["PENDING", "JobHeldUser", "96"]);
  });

  it.each([["-c", "96"], ["-N", "8"]])("--test-only %s %s: allocation failure", (flag, value) => {
    const r = run(["sbatch", "--test-only", flag, value, "--wrap", "true"]);
    expect(r).toEqual({ stdout: "", stderr: "allocation failure: Requested node configuration is not available\n", code: 1 });
  });
});

describe("memory units and accounts as Slurm reads them", () => {
  it.each([["500MB", "500M"], ["1GB", "1G"], ["5MB", "5M"], ["1gb", "1G"], ["2048K", "2M"]])("--mem=%s → MinMemoryNode=%s", (given, shown) => {
    expect(field(showJob(submit(["--hold", `--mem=${given}`, "--wrap", "true"])), "MinMemoryNode")).toBe(shown);
  });

  it("-A ROOT runs as Account=root", () => {
    expect(field(showJob(submit(["--hold", "-A", "ROOT", "--wrap", "true"])), "Account")).toBe("root");
  });
});

describe("licenses", () => {
  it("an unknown license is refused with Slurm's words", () => {
    const r = run(["sbatch", "-L", "foo", "--hold", "--wrap", "true"]);
    expect(r).toEqual({ stdout: "", stderr: "sbatch: error: Batch job submission failed: Invalid license specification\n", code: 1 });
    const t = run(["sbatch", "--test-only", "-L", "foo", "--wrap", "true"]);
    expect([t.stderr, t.code]).toEqual(["allocation failure: Invalid license specification\n", 1]);
  });

  it("a job holds its licenses; the next waits with reason Licenses; scontrol, squeue and TRES show them", async () => {
    expect(run(["scontrol", "show", "lic"]).stdout).toBe(
      "LicenseName=fluent\n    Total=2 Used=0 Free=2 Reserved=0 Remote=no\nLicenseName=matlab\n    Total=1 Used=0 Free=1 Reserved=0 Remote=no\n",
    );
    const holder = submit(["-L", "fluent:2", "--wrap", "sleep 60"]);
    await eventually("the license holder runs", () => (field(showJob(holder), "JobState") === "RUNNING" ? true : undefined), 30_000);
    const waiter = submit(["-L", "fluent", "--wrap", "true"]);
    const reason = await eventually("reason Licenses", () => {
      const r = run(["squeue", "-h", "-j", waiter, "-o", "%r|%W"]).stdout.trim();
      return r.startsWith("Licenses|") ? r : undefined;
    });
    expect(reason).toBe("Licenses|fluent:1");
    expect(run(["scontrol", "-o", "show", "licenses", "fluent"]).stdout).toBe("LicenseName=fluent Total=2 Used=2 Free=0 Reserved=0 Remote=no\n");
    const job = showJob(holder);
    expect(field(job, "Licenses")).toBe("fluent:2");
    expect(field(job, "TRES")).toMatch(/,license\/fluent=2$/);
    expect(run(["squeue", "-h", "-L", "fluent", "-o", "%i"]).stdout.trim().split("\n").sort()).toEqual([holder, waiter].sort());
    run(["scancel", holder]);
    await eventually("the waiter starts once the licenses are back", () => {
      const s = field(showJob(waiter), "JobState");
      return s === "RUNNING" || s === "COMPLETED" ? s : undefined;
    }, 30_000);
  });
});

describe("times as clients read them", () => {
  it("squeue End NONE for a running job without a time limit; SLURM_TIME_FORMAT=%s prints epoch seconds", async () => {
    const id = submit(["--wrap", "sleep 60"]);
    await eventually("the job runs", () => (field(showJob(id), "JobState") === "RUNNING" ? true : undefined), 30_000);
    expect(run(["squeue", "-h", "-j", id, "-o", "%e"]).stdout).toBe("NONE\n");
    expect(run(["squeue", "-h", "-j", id, "-o", "%S"], { SLURM_TIME_FORMAT: "%s" }).stdout).toMatch(/^\d{10}\n$/);
    const bad = run(["scontrol", "show", "job", id], { SLURM_TIME_FORMAT: "abc" });
    expect(bad.stderr).toBe("scontrol: error: invalid SLURM_TIME_FORMAT = 'abc'\n");
    run(["scancel", id]);
  });
});
