/**
 * scancel against the oracle goldens (071-078) with a fake controller that
 * answers like the documented contract (src/cli/scancel.ts): 2017 for
 * unknown ids, 2021 for ended jobs, one result per target.
 */
import { describe, expect, it } from "vitest";
import type { Plain } from "../../../src/lib/plain.ts";
import type { CancelRequest, JobResult } from "../../../src/net/gen/spur/v1/controller_pb.ts";
import { scancelMain, signalNumber } from "../../../src/cli/scancel.ts";
import { busyJobs } from "./busy-fixture.ts";
import { argvOf, at, fakePort, loadGolden, makeJob, type FakeWorld, type Job } from "./helpers.ts";

const emptyFilter = { jobIds: [], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };

const JOBS: Job[] = [makeJob({ jobId: 1, name: "hostname", state: "COMPLETED" }), ...busyJobs()];

/** A controller that resolves ids and filters the way the contract says. */
function controller(req: Plain<CancelRequest>): Plain<JobResult>[] {
  const f = req.filter ?? emptyFilter;
  const active = (j: Job) => ["PENDING", "RUNNING", "SUSPENDED"].includes(j.state);
  const display = (j: Job) => (j.arrayJobId ? `${j.arrayJobId}_${j.arrayTaskId}` : String(j.jobId));
  if (f.jobIds.length === 0) {
    return JOBS.filter(active)
      .filter((j) => (!f.user || j.user === f.user) && (!f.name || j.name === f.name))
      .map((j) => ({ jobId: display(j), error: "", errorCode: 0 }));
  }
  return f.jobIds.map((id) => {
    const job = JOBS.find((j) => display(j) === id || String(j.jobId) === id);
    if (!job) return { jobId: id, error: "Invalid job id specified", errorCode: 2017 };
    if (!active(job)) return { jobId: id, error: "Job/step already completing or completed", errorCode: 2021 };
    return { jobId: id, error: "", errorCode: 0 };
  });
}

async function run(argv: string[], world: Partial<FakeWorld> = {}) {
  const { port, calls } = fakePort({ jobs: JOBS, now: at("12:36:10"), cancelResults: controller, ...world });
  return { result: await scancelMain(argv, port), calls };
}

async function expectGolden(number: string) {
  const g = loadGolden(number);
  const { result, calls } = await run(argvOf(g.command));
  expect(result.stderr).toBe(g.stderr);
  expect(result.stdout).toBe(g.stdout);
  expect(result.exitCode).toBe(g.exitCode);
  return calls;
}

describe("scancel goldens", () => {
  it("golden 071: one array task", async () => {
    const calls = await expectGolden("071");
    expect(calls.cancel).toEqual([{ filter: { ...emptyFilter, jobIds: ["17_2"] }, signal: 0, batchOnly: false, full: false }]);
  });

  it("golden 072: by name", async () => {
    const calls = await expectGolden("072");
    expect(calls.cancel[0]?.filter).toEqual({ ...emptyFilter, name: "later" });
  });

  it("golden 073: an unknown id is silent, exit 0", () => expectGolden("073"));
  it("golden 074: -v reports it, still exit 0", () => expectGolden("074"));
  it("golden 076: a completed job is silent", () => expectGolden("076"));

  it("golden 075: a malformed id never reaches the controller", async () => {
    const calls = await expectGolden("075");
    expect(calls.cancel).toEqual([]);
  });

  it("golden 078: every job of a user", async () => {
    const calls = await expectGolden("078");
    expect(calls.cancel[0]?.filter?.user).toBe("root");
  });
});

describe("scancel error reporting and exit codes", () => {
  it("with -s, unknown ids are errors (exit 1) and the signal number is sent", async () => {
    const { result, calls } = await run(["-s", "USR1", "999999"]);
    expect(result).toEqual({ stdout: "", stderr: "scancel: error: Kill job error on job id 999999: Invalid job id specified\n", exitCode: 1 });
    expect(calls.cancel[0]?.signal).toBe(10);
  });

  it("-s KILL is a plain cancel for the controller", async () => {
    const { calls } = await run(["-s", "SIGKILL", "20"]);
    expect(calls.cancel[0]?.signal).toBe(0);
    expect(signalNumber("term")).toBe(15);
    expect(signalNumber("9")).toBe(9);
    expect(signalNumber("NOPE")).toBe(0);
  });

  it("other errors always print; the exit code is the errno mod 256", async () => {
    const cancelResults = () => [{ jobId: "20", error: "Access/permission denied", errorCode: 2002 }];
    const { result } = await run(["20"], { cancelResults });
    expect(result).toEqual({ stdout: "", stderr: "scancel: error: Kill job error on job id 20: Access/permission denied\n", exitCode: 210 });
  });

  it("-v names each job and signal; -Q silences errors", async () => {
    const verbose = await run(["-v", "-s", "TERM", "-n", "long"], { cancelResults: () => [{ jobId: "20", error: "", errorCode: 0 }] });
    expect(verbose.result.stderr).toBe("scancel: Signal 15 to job 20\n");
    const quiet = await run(["-Q", "-s", "USR1", "999999"]);
    expect(quiet.result).toEqual({ stdout: "", stderr: "", exitCode: 1 });
  });

  it("-v with filters that let no job through says so, listing them; a job id filtered out is not named (oracle 22.05, differential seed 12898)", async () => {
    const none = () => [];
    const byId = await run(["-v", "20", "-t", "RUNNING", "--name", "x", "-p", "gpu"], { cancelResults: none });
    expect(byId.result).toEqual({ stdout: "", stderr: "scancel: error: No active jobs match ALL job filters, including: job_name=x partition=gpu state=RUNNING \n", exitCode: 0 });
    const all = await run(["-v", "-n", "x", "-A", "root", "-p", "debug", "-q", "normal", "-t", "PENDING", "-u", "root", "-w", "n1", "--wckey=wk", "-R", "resv"], { cancelResults: none });
    expect(all.result.stderr).toBe(
      "scancel: error: No active jobs match ALL job filters, including: account=root job_name=x nodelist=n1 partition=debug qos=normal reservation=resv state=PENDING user_name=root wckey=wk \n",
    );
    expect((await run(["-n", "x"], { cancelResults: none })).result.stderr).toBe("");
  });

  it("argument errors", async () => {
    expect((await run([])).result).toEqual({ stdout: "", stderr: "scancel: error: No job identification provided\n", exitCode: 1 });
    expect((await run(["-s", "BOGUS", "20"])).result.stderr).toBe("Unknown job signal: BOGUS\n");
    expect((await run(["-t", "bogus"])).result.stderr).toBe("Invalid job state specified: bogus\nValid job states are PENDING, RUNNING, and SUSPENDED\n");
    expect((await run(["--bogus"])).result.stderr).toBe('scancel: unrecognized option \'--bogus\'\nTry "scancel --help" for more information\n');
    expect((await run(["17_[1-3"])).result.stderr).toBe("scancel: error: Invalid job id 17_[1-3\n");
  });

  it("passes filters, lists and flags through", async () => {
    const { calls } = await run(["-u", "root", "-p", "debug", "-t", "PD,r", "-A", "ROOT", "-q", "Normal", "-w", "n[1-2]", "-b", "-f", "17_[1-3],20"]);
    expect(calls.cancel[0]).toEqual({
      filter: { ...emptyFilter, jobIds: ["17_[1-3]", "20"], user: "root", partition: "debug", states: ["PENDING", "RUNNING"], account: "root", qos: "normal", nodelist: "n[1-2]" },
      signal: 0, batchOnly: true, full: true,
    });
    const me = await run(["--me"], { uid: 1000, user: "alice" });
    expect(me.calls.cancel[0]?.filter?.user).toBe("1000");
  });

  it("SCANCEL_* presets options", async () => {
    const { result } = await run(["999999"], { env: { SCANCEL_VERBOSE: "true" } });
    expect(result.stderr).toBe("scancel: Terminating job 999999\nscancel: error: Kill job error on job id 999999: Invalid job id specified\n");
  });

  it("-v names a signal given, KILL too (oracle 22.05: 'Signal 9 to job N', 'Signal 9 to batch job N'; differential seed 9635)", async () => {
    for (const [argv, line] of [[["-s", "KILL"], "Signal 9 to job"], [["--signal=9", "-b"], "Signal 9 to batch job"], [["-s", "KILL", "-f"], "Signal 9 to full job"], [["-s", "USR1"], "Signal 10 to job"]] as const) {
      const { result } = await run(["-v", ...argv, "999999"]);
      expect(result.stderr.split("\n")[0]).toBe(`scancel: ${line} 999999`);
    }
  });

  it("-v names what -b and -f signal (oracle 22.05: 'Terminating batch job N', 'Terminating full job N'; soak seed 8160)", async () => {
    for (const [flag, what] of [["-b", "batch job"], ["-f", "full job"]] as const) {
      const { result } = await run(["-v", flag, "999999"]);
      expect(result.stderr.split("\n")[0]).toBe(`scancel: Terminating ${what} 999999`);
    }
  });
});

describe("scancel -i", () => {
  it("asks per active job (pending first) and cancels only the confirmed ones", async () => {
    const { result, calls } = await run(["-i", "-u", "root"], { stdin: "y\nmaybe\nn\ny\n" });
    expect(calls.writes.slice(0, 4)).toEqual([
      "Cancel job_id=21 name=held partition=debug [y/n]? ",
      "Cancel job_id=22 name=dep partition=debug [y/n]? ",
      "Cancel job_id=22 name=dep partition=debug [y/n]? ",
      "Cancel job_id=23 name=later partition=debug [y/n]? ",
    ]);
    expect(calls.cancel[0]?.filter).toEqual({ ...emptyFilter, jobIds: ["21", "23"] });
    expect(result.exitCode).toBe(0);
  });
});

describe("scancel J.S (recorded on the oracle: scancel -v 94.0, scancel 94.7, scancel -v -s USR1 94.1)", () => {
  const steps = (req: Plain<CancelRequest>): Plain<JobResult>[] =>
    (req.filter?.jobIds ?? []).map((id) => (id.endsWith(".7") ? { jobId: id, error: "Invalid job id specified", errorCode: 2017 } : { jobId: id, error: "", errorCode: 0 }));
  it("sends the step id to the controller and says 'step' under -v", async () => {
    const { result, calls } = await run(["-v", "20.0"], { cancelResults: steps });
    expect(calls.cancel[0]?.filter?.jobIds).toEqual(["20.0"]);
    expect(result).toEqual({ stdout: "", stderr: "scancel: Terminating step 20.0\n", exitCode: 0 });
    const sig = await run(["-v", "-s", "USR1", "20.1"], { cancelResults: steps });
    expect(sig.result).toEqual({ stdout: "", stderr: "scancel: Signal 10 to step 20.1\n", exitCode: 0 });
  });
  it("an unknown step is an error naming the job, exit 225 (2017 & 0xff), with or without -v", async () => {
    const quiet = await run(["20.7"], { cancelResults: steps });
    expect(quiet.result).toEqual({ stdout: "", stderr: "scancel: error: Kill job error on job step id 20: Invalid job id specified\n", exitCode: 225 });
    const verbose = await run(["-v", "20.7"], { cancelResults: steps });
    expect(verbose.result.stderr).toBe("scancel: Terminating step 20.7\nscancel: error: Kill job error on job step id 20: Invalid job id specified\n");
  });
});

describe("scancel -u of a user the host does not know (oracle 22.05)", () => {
  it("fails before asking the controller, naming the user as given", async () => {
    const { port, calls } = fakePort({ jobs: JOBS, now: at("12:36:10"), cancelResults: controller });
    const known = { ...port, userKnown: (u: string) => u === "root" || u === "0" };
    expect(await scancelMain(["-u", "nosuchuser"], known)).toEqual({ stdout: "", stderr: "scancel: error: Invalid user name: nosuchuser\n", exitCode: 1 });
    expect(await scancelMain(["-u", "root,nosuch", "-n", "x"], known)).toMatchObject({ stderr: "scancel: error: Invalid user name: root,nosuch\n", exitCode: 1 });
    expect(calls.cancel).toEqual([]);
    expect((await scancelMain(["-u", "0", "-n", "x"], known)).stderr).not.toContain("Invalid user");
  });
});
