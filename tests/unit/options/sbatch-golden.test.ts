import { describe, expect, it } from "vitest";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { sbatchMain } from "../../../src/cli/sbatch.ts";
import { fakePort, job, readGolden, type FakeOptions } from "./helpers.ts";

interface Case {
  golden: string;
  argv: string[];
  fake: FakeOptions;
  /** Whether the request reaches the controller. */
  submits: boolean;
}

const reject = (message: string, code = "FailedPrecondition"): RpcError => new RpcError(code, message);
const NO_NODES = "Requested node configuration is not available";

// argv as the shell passes it for the golden's "### command:" line.
const CASES: Case[] = [
  { golden: "033-sbatch-wrap.txt", argv: ["--wrap=true"], fake: { jobId: 9 }, submits: true },
  { golden: "034-sbatch-parsable.txt", argv: ["--parsable", "--wrap=true"], fake: { jobId: 10 }, submits: true },
  { golden: "043-sbatch-script-array.txt", argv: ["golden_job.sh"], fake: { jobId: 17, files: { "golden_job.sh": readGolden("042-sbatch-script-directives-cat.txt").stdout } }, submits: true },
  { golden: "079-sbatch-dependency-afterok-fail.txt", argv: ["--dependency=afterok:25", "-J", "needsok", "--wrap=true"], fake: { jobId: 26 }, submits: true },
  { golden: "083-sbatch-dependency-unknown-job.txt", argv: ["--dependency=afterok:999999", "--wrap=true"], fake: { jobId: 29 }, submits: true },
  { golden: "084-sbatch-dependency-bad-syntax.txt", argv: ["--dependency=bogus:1", "--wrap=true"], fake: {}, submits: false },
  { golden: "085-sbatch-bad-option.txt", argv: ["--bogus-option", "--wrap=true"], fake: {}, submits: false },
  { golden: "086-sbatch-bad-partition.txt", argv: ["-p", "nosuch", "--wrap=true"], fake: { reject: reject("Invalid partition name specified") }, submits: true },
  { golden: "087-sbatch-too-many-gpus.txt", argv: ["--gres=gpu:99", "--wrap=true"], fake: { reject: reject(NO_NODES) }, submits: true },
  { golden: "088-sbatch-bad-gres-name.txt", argv: ["--gres=fpga:1", "--wrap=true"], fake: { reject: reject("Invalid generic resource (gres) specification", "InvalidArgument") }, submits: true },
  { golden: "089-sbatch-bad-time.txt", argv: ["--time=abc", "--wrap=true"], fake: {}, submits: false },
  { golden: "090-sbatch-too-many-nodes.txt", argv: ["-N5", "-J", "toomanynodes", "--wrap=true"], fake: { jobId: 32 }, submits: true },
  { golden: "091-sbatch-too-many-tasks.txt", argv: ["-n", "100", "-J", "toomanytasks", "--wrap=true"], fake: { jobId: 33 }, submits: true },
  { golden: "093-sbatch-huge-time.txt", argv: ["--time=99999999", "-J", "hugetime", "--wrap=true"], fake: { jobId: 34 }, submits: true },
  { golden: "094-sbatch-gpus-too-many.txt", argv: ["--gpus=99", "--wrap=true"], fake: { reject: reject(NO_NODES) }, submits: true },
  { golden: "095-sbatch-too-much-mem.txt", argv: ["--mem=999999", "--wrap=true"], fake: { reject: reject(`Memory specification can not be satisfied\n${NO_NODES}`) }, submits: true },
  { golden: "096-sbatch-empty-script.txt", argv: [], fake: { stdin: "" }, submits: false },
  { golden: "097-sbatch-missing-file.txt", argv: ["/nonexistent/job.sh"], fake: {}, submits: false },
  { golden: "098-sbatch-no-shebang.txt", argv: ["noshebang.sh"], fake: { files: { "noshebang.sh": "echo hi\n" } }, submits: false },
  { golden: "099-sbatch-bad-array.txt", argv: ["--array=abc", "--wrap=true"], fake: {}, submits: false },
];

describe("sbatch against the Slurm 22.05 goldens (byte for byte)", () => {
  it.each(CASES)("$golden", async (c) => {
    const g = readGolden(c.golden);
    const fake = fakePort(c.fake);
    const r = await sbatchMain(c.argv, fake.port);
    expect(r.stdout).toBe(g.stdout);
    expect(r.stderr).toBe(g.stderr);
    expect(r.exitCode).toBe(g.exitCode);
    expect(fake.submitted.length).toBe(c.submits ? 1 : 0);
  });

  it("035/036 --wait prints the submit line at once and exits with the job's status", async () => {
    for (const [name, exitCode, state] of [["035-sbatch-wait-ok.txt", 0, "COMPLETED"], ["036-sbatch-wait-fail.txt", 3, "FAILED"]] as const) {
      const g = readGolden(name);
      const id = Number(/job (\d+)/.exec(g.stdout)?.[1]);
      const running = job({ jobId: id, state: "RUNNING" });
      const fake = fakePort({ jobId: id, waits: [running, running, job({ jobId: id, state, exitCode })] });
      const r = await sbatchMain(["--wait", `--wrap=${exitCode === 0 ? "true" : "exit 3"}`], fake.port);
      expect(fake.written.join("") + r.stdout).toBe(`stdout:${g.stdout}`);
      expect(r.stderr).toBe(g.stderr);
      expect(r.exitCode).toBe(g.exitCode);
      expect(fake.slept).toEqual([2000, 8000]);
    }
  });

  it("037 --test-only prints Slurm's estimate line on stderr", async () => {
    const g = readGolden("037-sbatch-test-only.txt");
    const start = new Date(2026, 11, 2, 12, 35, 43).getTime() / 1000;
    const fake = fakePort({ jobId: 13, response: { startEstimate: start, cpus: 1, nodelist: "n1", partition: "debug" } });
    const r = await sbatchMain(["--test-only", "--wrap=true"], fake.port);
    expect(r).toEqual({ stdout: g.stdout, stderr: g.stderr, exitCode: g.exitCode });
    expect(fake.submitted[0]?.testOnly).toBe(true);
  });

  it("001 --version keeps the golden's '<package> <version>' shape with the Slurm release Spur follows", async () => {
    const g = readGolden("001-version-sbatch.txt");
    const r = await sbatchMain(["--version"], fakePort().port);
    expect(g.stdout).toMatch(/^\S+ \S+\n$/);
    expect(r.stdout).toBe("slurm 26.05.0\n");
    expect([r.stderr, r.exitCode]).toEqual([g.stderr, g.exitCode]);
  });
});
