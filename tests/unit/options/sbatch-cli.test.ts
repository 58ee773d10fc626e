import { describe, expect, it } from "vitest";
import { RpcError } from "../../../src/net/ctl-port.ts";
import { sbatchMain } from "../../../src/cli/sbatch.ts";
import { fakePort, job } from "./helpers.ts";

const SCRIPT = "#!/bin/bash\n#SBATCH -J fromscript\n#SBATCH --mcs-label=x\nsrun hostname\n";

describe("sbatch output", () => {
  it.each([
    [["--wrap=true"], "Submitted batch job 5\n"],
    [["--parsable", "--wrap=true"], "5\n"],
    [["-M", "c1", "--wrap=true"], "Submitted batch job 5 on cluster c1\n"],
    [["--parsable", "-M", "c1,c2", "--wrap=true"], "5;c1\n"],
    [["-Q", "--wrap=true"], ""],
    // oracle 22.05 (differential seed 12249): -Q hides the id that --parsable prints too
    [["-Q", "--parsable", "--wrap=true"], ""],
    [["--parsable", "-Q", "-M", "c1", "--wrap=true"], ""],
  ])("%j → %j", async (argv, stdout) => {
    const r = await sbatchMain(argv, fakePort({ jobId: 5 }).port);
    expect(r).toEqual({ stdout, stderr: "", exitCode: 0 });
  });

  it("-M prints the cluster's own name as the controller has it (oracle: -M ORACLE is 'on cluster oracle')", async () => {
    const port = fakePort({ jobId: 5, response: { cluster: "oracle" } }).port;
    expect((await sbatchMain(["-M", "ORACLE", "--wrap=true"], port)).stdout).toBe("Submitted batch job 5 on cluster oracle\n");
    expect((await sbatchMain(["--parsable", "-M", "Oracle", "--wrap=true"], port)).stdout).toBe("5;oracle\n");
  });

  it("-M naming no cluster of the site is refused before submission (oracle 22.05, differential seed 12464)", async () => {
    const fake = fakePort({ jobId: 5, response: { cluster: "oracle" } });
    const port = { ...fake.port, invoker: { ...fake.port.invoker, clusterName: "oracle" } };
    expect(await sbatchMain(["-M", "bogus", "--wrap=true"], port)).toEqual({
      stdout: "",
      stderr: "sbatch: error: No cluster 'bogus' known by database.\n"
        + "sbatch: error: 'bogus' can't be reached now, or it is an invalid entry for --cluster.  Use 'sacctmgr list clusters' to see available clusters.\n",
      exitCode: 1,
    });
    expect(fake.submitted).toEqual([]);
    const some = await sbatchMain(["-M", "bogus,ORACLE", "--wrap=true"], port);
    expect(some).toEqual({ stdout: "Submitted batch job 5 on cluster oracle\n", stderr: "sbatch: error: No cluster 'bogus' known by database.\n", exitCode: 0 });
  });

  it("warnings (ours, then the controller's messages) go to stderr; -Q hides them", async () => {
    const fake = fakePort({ jobId: 5, files: { "job.sh": SCRIPT }, response: { warnings: ["Job is pending: QOS limit"] } });
    const r = await sbatchMain(["job.sh"], fake.port);
    expect(r.stderr).toBe("sbatch: warning: --mcs-label is not supported by Spur and was ignored\nsbatch: Job is pending: QOS limit\n");
    expect((await sbatchMain(["-Q", "job.sh"], fake.port)).stderr).toBe("");
  });

  it("-Q hides the --test-only estimate (oracle 22.05, differential seed 12207: nothing on either stream)", async () => {
    const fake = fakePort({ jobId: 5 });
    expect((await sbatchMain(["--test-only", "--wrap=true"], fake.port)).stderr).toMatch(/^sbatch: Job 5 to start at /);
    expect(await sbatchMain(["-Q", "--test-only", "--wrap=true"], fake.port)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });

  it("lines Slurm has printed about the options read stay when a later check refuses; -Q keeps Slurm's error lines (oracle 22.05, differential seed 12488)", async () => {
    const ignoring = "sbatch: error: Ignoring -S since it's not allowed by configuration (AllowSpecResourcesUsage = No)\n";
    const r = await sbatchMain(["--hint=bogus", "--test-only", "--core-spec=4", "--wrap=true"], fakePort().port);
    expect(r).toEqual({ stdout: "", stderr: `${ignoring}sbatch: error: unrecognized --hint argument "bogus", see --hint=help\n`, exitCode: 1 });
    expect((await sbatchMain(["-Q", "-S", "1", "--wrap=true"], fakePort().port)).stderr).toBe(ignoring);
  });

  it("-m arbitrary needs -w or SLURM_HOSTFILE (oracle 22.05, differential seed 12803)", async () => {
    const fake = fakePort();
    expect(await sbatchMain(["-m", "arbitrary", "--wrap=true"], fake.port)).toEqual({
      stdout: "", stderr: "sbatch: error: With Arbitrary distribution you need to specify a nodelist or hostfile with the -w option\n", exitCode: 1,
    });
    expect(fake.submitted).toEqual([]);
    expect((await sbatchMain(["-m", "arbitrary", "-w", "n1", "--wrap=true"], fake.port)).exitCode).toBe(0);
  });

  it("--help, --usage, --version print and exit 0 before anything else", async () => {
    const fake = fakePort();
    for (const arg of ["--help", "-h", "--usage", "-V"]) {
      const r = await sbatchMain([arg, "--time=abc", "/nonexistent"], fake.port);
      expect([r.exitCode, r.stderr, r.stdout.length > 0]).toEqual([0, "", true]);
    }
    expect(fake.submitted).toEqual([]);
  });

  it("controller unreachable", async () => {
    const fake = fakePort({ reject: new RpcError("unavailable", "Unable to contact slurm controller (connect failure)") });
    const r = await sbatchMain(["--wrap=true"], fake.port);
    expect(r).toEqual({ stdout: "", stderr: "sbatch: error: Batch job submission failed: Unable to contact slurm controller (connect failure)\n", exitCode: 1 });
  });

  it("SLURM_EXIT_ERROR changes ordinary error exits, not getopt's 255", async () => {
    const env = { SLURM_EXIT_ERROR: "7" };
    expect((await sbatchMain(["/nonexistent"], fakePort({ env }).port)).exitCode).toBe(7);
    expect((await sbatchMain(["--bogus"], fakePort({ env }).port)).exitCode).toBe(255);
    expect((await sbatchMain(["--wrap=true"], fakePort({ env, reject: new RpcError("x", "Invalid account") }).port)).exitCode).toBe(7);
  });

  it("--wrap with a script is refused", async () => {
    const r = await sbatchMain(["--wrap=true", "job.sh"], fakePort().port);
    expect(r).toEqual({ stdout: "", stderr: "sbatch: error: Script arguments not permitted with --wrap option\n", exitCode: 1 });
  });

  it("DOS line breaks are refused", async () => {
    const r = await sbatchMain(["dos.sh"], fakePort({ files: { "dos.sh": "#!/bin/sh\r\necho\r\n" } }).port);
    expect(r.stderr).toBe("sbatch: error: Batch script contains DOS line breaks (\\r\\n)\nsbatch: error: instead of expected UNIX line breaks (\\n).\n");
    expect(r.exitCode).toBe(1);
  });
});

describe("sbatch's Command= for a script file (oracle 22.05, differential seed 12251)", () => {
  const command = async (argv: string[], files: Record<string, string>, env?: Record<string, string>) => {
    const fake = fakePort({ files, ...(env ? { env } : {}) });
    await sbatchMain(argv, fake.port);
    return fake.submitted[0]?.spec?.command;
  };
  const S = "#!/bin/sh\ntrue\n";

  it.each([
    [["job.sh"], { "job.sh": S }, "/tmp/slurm-oracle/jobs/job.sh"],
    [["./job.sh"], { "./job.sh": S }, "./job.sh"],
    [["../jobs/job.sh"], { "../jobs/job.sh": S }, "../jobs/job.sh"],
    [["sub/../job.sh"], { "sub/../job.sh": S }, "/tmp/slurm-oracle/jobs/sub/../job.sh"],
    [["-D", "sub", "job.sh"], { "job.sh": S }, "job.sh"],
    [["-D", "sub", "job.sh"], { "job.sh": S, "/tmp/slurm-oracle/jobs/sub/job.sh": S }, "/tmp/slurm-oracle/jobs/sub/job.sh"],
    [["-D", "/tmp", "job.sh"], { "job.sh": S }, "job.sh"],
    [["-D", ".", "job.sh"], { "job.sh": S }, "/tmp/slurm-oracle/jobs/./job.sh"],
    [["-D", "sub", "/abs/job.sh"], { "/abs/job.sh": S }, "/abs/job.sh"],
  ])("%j → %s", async (argv, files, expected) => {
    expect(await command(argv, files)).toBe(expected);
  });

  it("the lookup directory comes first, then PATH; #SBATCH --chdir does not count", async () => {
    const files = { "job.sh": S, "/opt/bin/job.sh": S };
    expect(await command(["job.sh"], files, { PATH: "/opt/bin:/bin" })).toBe("/tmp/slurm-oracle/jobs/job.sh");
    expect(await command(["-D", "s", "job.sh"], files, { PATH: "/opt/bin:/bin" })).toBe("/opt/bin/job.sh");
    expect(await command(["job.sh"], { "job.sh": "#!/bin/sh\n#SBATCH --chdir=sub\ntrue\n" })).toBe("/tmp/slurm-oracle/jobs/job.sh");
  });
});

describe("what sbatch sends", () => {
  it("a script file with arguments", async () => {
    const fake = fakePort({ files: { "job.sh": SCRIPT } });
    await sbatchMain(["-n", "2", "job.sh", "-n", "x"], fake.port);
    const req = fake.submitted[0];
    expect(req?.testOnly).toBe(false);
    expect(req?.spec).toMatchObject({
      name: "fromscript", ntasks: 2, script: SCRIPT, argv: ["-n", "x"], command: "/tmp/slurm-oracle/jobs/job.sh",
      workDir: "/tmp/slurm-oracle/jobs", submitLine: "sbatch -n 2 job.sh -n x", submitHost: "vm",
      env: { HOME: "/root", SLURM_SUBMIT_DIR: "/tmp/slurm-oracle/jobs", SLURM_SUBMIT_HOST: "vm" },
    });
  });

  it("a script on stdin is named 'sbatch'", async () => {
    const fake = fakePort({ stdin: "#!/bin/sh\necho hi\n" });
    await sbatchMain([], fake.port);
    expect(fake.submitted[0]?.spec).toMatchObject({ name: "sbatch", script: "#!/bin/sh\necho hi\n", command: "" });
  });

  it("SBATCH_* variables are read", async () => {
    const fake = fakePort({ env: { SBATCH_PARTITION: "gpu", SBATCH_GPUS: "2", SBATCH_TIMELIMIT: "1:00:00" } });
    await sbatchMain(["--wrap=true"], fake.port);
    expect(fake.submitted[0]?.spec).toMatchObject({ partition: "gpu", gpus: "2", timeLimitMin: 60 });
  });
});

describe("sbatch --wait", () => {
  it("a job killed by a signal exits 1", async () => {
    const fake = fakePort({ jobId: 3, waits: [job({ jobId: 3, state: "CANCELLED", exitSignal: 15 })] });
    expect((await sbatchMain(["-W", "--wrap=sleep 9"], fake.port)).exitCode).toBe(1);
  });

  it("a purged job: Slurm's message, exit 0", async () => {
    const fake = fakePort({ jobId: 3, waits: [new RpcError("NotFound", "Invalid job id specified")] });
    const r = await sbatchMain(["--wait", "--wrap=true"], fake.port);
    expect(r).toEqual({ stdout: "", stderr: "sbatch: Job 3 no longer found and exit code not found\n", exitCode: 0 });
  });

  it("rides out a controller outage", async () => {
    const down = new RpcError("unavailable", "Unable to contact slurm controller (connect failure)");
    const fake = fakePort({ jobId: 3, waits: [down, down, job({ jobId: 3, state: "FAILED", exitCode: 2 })] });
    expect((await sbatchMain(["--wait", "--wrap=true"], fake.port)).exitCode).toBe(2);
    expect(fake.slept).toEqual([2000, 8000]);
  });

  it("arrays: waits for every task and exits with the largest status", async () => {
    const listed = [
      job({ jobId: 17, arrayJobId: 17, arrayTaskId: 3, state: "COMPLETED" }),
      job({ jobId: 18, arrayJobId: 17, arrayTaskId: 1, state: "FAILED", exitCode: 4 }),
      job({ jobId: 19, arrayJobId: 17, arrayTaskId: 2, state: "FAILED", exitCode: 2 }),
    ];
    const fake = fakePort({ jobId: 17, waits: [job({ jobId: 17, state: "COMPLETED" })], listed });
    expect((await sbatchMain(["--wait", "--array=1-3", "--wrap=true"], fake.port)).exitCode).toBe(4);
  });
});

describe("sbatch --test-only refused (oracle, Slurm 22.05)", () => {
  it.each([
    ["Requested node configuration is not available", "", "allocation failure: Requested node configuration is not available\n"],
    ["CPU count per node can not be satisfied\nRequested node configuration is not available", "", "allocation failure: Requested node configuration is not available\n"],
    ["Invalid partition name specified", "nope", "sbatch: error: invalid partition specified: nope\nallocation failure: Invalid partition name specified\n"],
    ["Invalid license specification", "", "allocation failure: Invalid license specification\n"],
    // differential seed 145: the --tmp detail is not printed either
    ["Temporary disk specification can not be satisfied\nRequested node configuration is not available", "", "allocation failure: Requested node configuration is not available\n"],
    // differential seed 38: nor the sockets/cores/threads one
    ["Socket, core and/or thread specification can not be satisfied\nRequested node configuration is not available", "", "allocation failure: Requested node configuration is not available\n"],
  ])("%j → %j", async (message, partition, stderr) => {
    const argv = ["--test-only", ...(partition ? ["-p", partition] : []), "--wrap=true"];
    const r = await sbatchMain(argv, fakePort({ reject: new RpcError("invalid_argument", message) }).port);
    expect(r).toEqual({ stdout: "", stderr, exitCode: 1 });
  });
});

describe("sbatch --test-only: a local check Slurm leaves to its controller (oracle, differential seed 142)", () => {
  it.each([
    [["--test-only", "--dependency=afterok:abc", "--wrap=true"], "allocation failure: Job dependency problem\n"],
    [["--test-only", "--array=5-1", "--wrap=true"], "allocation failure: Invalid job array specification\n"],
    [["--dependency=afterok:abc", "--wrap=true"], "sbatch: error: Batch job submission failed: Job dependency problem\n"],
    // job expansion is off (oracle 22.05, differential seed 9430): any expand: item, once the items before it read
    ...["expand:1", "EXPAND:1", "expand:", "expand:abc", "afterok:1?afterok:1,expand:2", "afterok:-1,expand:1", "afterok:1_[x],expand:1", "expand:1,singleton"].flatMap((d): [string[], string][] => [
      [["--test-only", `--dependency=${d}`, "--wrap=true"], "allocation failure: Requested operation not supported on this system\n"],
      [[`--dependency=${d}`, "--wrap=true"], "sbatch: error: Batch job submission failed: Requested operation not supported on this system\n"],
    ]),
    ...["expand", "afterok:abc,expand:1", "afterok:0,expand:1", "bogus:1,expand:1", "afterok:1_x,expand:1"].map((d): [string[], string] => [["--test-only", `--dependency=${d}`, "--wrap=true"], "allocation failure: Job dependency problem\n"]),
    // -p "" (oracle; differential seed 93)
    [["-p", "", "--wrap=true"], "sbatch: error: invalid partition specified: (null)\nsbatch: error: Batch job submission failed: Invalid partition name specified\n"],
    [["--test-only", "-p", "", "--wrap=true"], "sbatch: error: invalid partition specified: (null)\nallocation failure: Invalid partition name specified\n"],
  ])("%j → %j", async (argv, stderr) => {
    const r = await sbatchMain(argv, fakePort({}).port);
    expect(r).toEqual({ stdout: "", stderr, exitCode: 1 });
  });
});
