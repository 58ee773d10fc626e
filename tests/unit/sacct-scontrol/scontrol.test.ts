/**
 * scontrol against the oracle goldens (015-022, 059-069, 081, 118) and its
 * commands' contract with the controller (hold/release/update actions,
 * node updates) and error wording.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { keywordMatch, jobUpdateKey } from "../../../src/compat/format/scontrol-update.ts";
import { busyJobs, dependencyJobs, oracleNodes, oraclePartitions } from "./busy-fixture.ts";
import { accountingJobs } from "./accounting-fixture.ts";
import { argvOf, at, fakePort, loadGolden, type FakeWorld } from "./helpers.ts";

const BUSY_NOW = at("12:36:08");

async function run(argv: string[], world: Partial<FakeWorld> = {}) {
  const { port, calls } = fakePort({
    jobs: busyJobs(), nodes: oracleNodes(), partitions: oraclePartitions(), now: BUSY_NOW, ...world,
  });
  return { result: await scontrolMain(argv, port), calls };
}

async function expectGolden(number: string, world: Partial<FakeWorld> = {}) {
  const g = loadGolden(number);
  const { result, calls } = await run(argvOf(g.command), world);
  expect(result.stderr).toBe(g.stderr);
  expect(result.stdout).toBe(g.stdout);
  expect(result.exitCode).toBe(g.exitCode);
  return calls;
}

describe("scontrol show job", () => {
  it("golden 059: one array task (17_1)", () => expectGolden("059", { now: at("12:36:07") }));
  it("golden 062: the whole array, meta record first", () => expectGolden("062"));
  it("golden 063: a held job", () => expectGolden("063"));
  it("golden 064: a job waiting on a dependency", () => expectGolden("064"));
  it("golden 065: -o one-liner", () => expectGolden("065"));
  it("golden 069: unknown id", () => expectGolden("069"));
  it("a word that is no job id is refused under scontrol_print_job (22.05, x-err-scontrol-show-job-garbage)", async () => {
    expect((await run(["show", "job", "abc"])).result).toEqual({ stdout: "", stderr: "scontrol_print_job error: Invalid job id specified\n", exitCode: 1 });
  });
  it("golden 081: dependency never satisfied", () => expectGolden("081", { jobs: dependencyJobs() }));
  it("golden 118: a completed (failed) job", () => expectGolden("118", { jobs: dependencyJobs() }));

  it("a running job's expected end set by the controller prints the same", async () => {
    const jobs = busyJobs().map((j) => (j.jobId === 20 ? { ...j, endTime: at("12:46:03") } : j));
    await expectGolden("065", { jobs });
  });

  it("-d adds DerivedExitCode; no id lists every job; pending tasks show by index", async () => {
    const detail = await run(["-d", "show", "job", "25"], { jobs: accountingJobs() });
    expect(detail.result.stdout).toContain("ExitCode=1:0\n   DerivedExitCode=0:0\n");
    // oracle: --hide ends a -d given before it, wherever both stand; a -d after it counts
    for (const argv of [["-d", "--hide", "show", "job", "25"], ["show", "job", "25", "-d", "--hide"]]) {
      expect((await run(argv, { jobs: accountingJobs() })).result.stdout).not.toContain("DerivedExitCode");
    }
    expect((await run(["show", "job", "25", "--hide", "-d"], { jobs: accountingJobs() })).result.stdout).toContain("DerivedExitCode=0:0");
    const all = await run(["-o", "show", "jobs"]);
    expect(all.result.stdout.split("\n").filter((l) => l !== "")).toHaveLength(8);
    const rest = { ...busyJobs()[0]!, jobId: 40, arrayJobId: 40, arrayTaskId: -1, arrayTaskStr: "4-10%2", arrayMaxTasks: 2, state: "PENDING", nodelist: "", batchHost: "", startTime: 0 };
    const remainder = await run(["show", "job", "40"], { jobs: [rest] });
    expect(remainder.result.stdout).toMatch(/^JobId=40 ArrayJobId=40 ArrayTaskId=4-10%2 ArrayTaskThrottle=2 JobName=golden\n/);
    const task = await run(["show", "job", "40_5"], { jobs: [rest] });
    expect(task.result.stdout).toMatch(/^JobId=40 ArrayJobId=40 ArrayTaskId=5 ArrayTaskThrottle=2 JobName=golden\n/);
    const missing = await run(["show", "job", "40_50"], { jobs: [rest] });
    expect(missing.result).toEqual({ stdout: "Job 40_50 not found\n", stderr: "", exitCode: 1 });
    expect((await run(["show", "job"], { jobs: [] })).result.stdout).toBe("No jobs in the system\n");
  });
});

describe("scontrol show node / partition / config / ping", () => {
  it("golden 017: one node", () => expectGolden("017"));
  it("golden 018: all nodes", () => expectGolden("018"));
  it("golden 019: -o one-liner", () => expectGolden("019"));
  it("golden 015: all partitions", () => expectGolden("015"));
  it("golden 016: one partition", () => expectGolden("016"));
  it("golden 020: ping", () => expectGolden("020"));

  it("golden 066: a busy node", async () => {
    const nodes = oracleNodes().map((n) =>
      n.name === "n3" ? { ...n, state: "ALLOCATED", allocCpus: 4, allocMemoryMib: 1024, gpuAlloc: [0, 1, 2, 3], lastBusyTime: at("12:35:54") } : n,
    );
    await expectGolden("066", { nodes });
  });

  it("golden 022: show config (entries in the controller's order)", async () => {
    const g = loadGolden("022");
    const entries: Record<string, string> = {};
    for (const line of g.stdout.split("\n").slice(1)) {
      const m = /^(\S+)\s*= (.*)$/.exec(line);
      if (m) entries[m[1] as string] = m[2] as string;
    }
    await expectGolden("022", { config: entries, now: at("12:35:31") });
  });

  it("entities a cluster without burst buffers, federation or front end nodes shows as Slurm does; an empty host list is not a failure", async () => {
    for (const entity of ["burstbuffer", "bbstat", "dwstat", "federation"]) {
      expect((await run(["show", entity])).result, entity).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    }
    expect((await run(["show", "frontend"])).result).toEqual({ stdout: "No nodes in the system\n", stderr: "", exitCode: 0 });
    expect((await run(["show", "hostnames"])).result).toEqual({ stdout: "", stderr: "scontrol: error: host list is empty\n", exitCode: 0 });
  });

  it("unknown node or partition; a node range; drained node reason", async () => {
    expect((await run(["show", "node", "n9"])).result).toEqual({ stdout: "Node n9 not found\n", stderr: "", exitCode: 1 });
    expect((await run(["show", "partition", "nosuch"])).result).toEqual({ stdout: "Partition nosuch not found\n", stderr: "", exitCode: 1 });
    const two = await run(["-o", "show", "node", "n[1-2]"]);
    expect(two.result.stdout.match(/^NodeName=/gm)).toHaveLength(2);
    const drained = oracleNodes().map((n) => (n.name === "n1" ? { ...n, stateFlags: ["DRAIN"], reason: "disk", reasonUser: "root", reasonTime: at("12:00:00") } : n));
    const d = await run(["show", "node", "n1"], { nodes: drained });
    expect(d.result.stdout).toContain("   State=IDLE+DRAIN ThreadsPerCore=1");
    expect(d.result.stdout).toContain("ExtSensorsTemp=n/s\n   Reason=disk [root@2026-12-02T12:00:00]\n\n");
  });

  it("hidden partitions show only with -a or by name", async () => {
    const partitions = [...oraclePartitions(), { ...oraclePartitions()[1]!, name: "secret", hidden: true }];
    const plain = await run(["-o", "show", "partition"], { partitions });
    expect(plain.result.stdout).not.toContain("PartitionName=secret");
    const all = await run(["-a", "-o", "show", "partition"], { partitions });
    expect(all.result.stdout).toContain("PartitionName=secret AllowGroups=ALL");
  });

  it("ping reports a controller that does not answer as DOWN, exit 1", async () => {
    const { result } = await run(["ping"], { ping: new Error("connect failure") });
    expect(result).toEqual({ stdout: "Slurmctld(primary) at localhost is DOWN\n", stderr: "", exitCode: 1 });
  });
});

describe("scontrol show hostnames/hostlist", () => {
  it("expands and compresses like Slurm (no sort for hostlist)", async () => {
    expect((await run(["show", "hostnames", "n[1-3]"])).result.stdout).toBe("n1\nn2\nn3\n");
    expect((await run(["show", "hostlist", "n3,n1,n2"])).result.stdout).toBe("n[3,1-2]\n");
    expect((await run(["show", "hostlistsorted", "n3,n1,n2"])).result.stdout).toBe("n[1-3]\n");
    expect((await run(["show", "hostnames"], { env: { SLURM_NODELIST: "a[1-2]" } })).result.stdout).toBe("a1\na2\n");
    expect((await run(["show", "hostlist"])).result).toEqual({ stdout: "", stderr: "invalid encode argument\n", exitCode: 1 });
  });
});

describe("scontrol job actions", () => {
  it("golden 067: hold", async () => {
    const calls = await expectGolden("067");
    expect(calls.updateJob).toEqual([{ jobIds: ["23"], action: "hold", fields: {} }]);
  });

  it("golden 068: release", async () => {
    const calls = await expectGolden("068");
    expect(calls.updateJob).toEqual([{ jobIds: ["21"], action: "release", fields: {} }]);
  });

  it("prints per-job errors the way scontrol does", async () => {
    const updateResults = () => [{ jobId: "999999", error: "Invalid job id specified", errorCode: 2017 }];
    const hold = await run(["hold", "999999"], { updateResults });
    expect(hold.result).toEqual({
      stdout: "", stderr: "Invalid job id specified for job 999999\nslurm_suspend error: Invalid job id specified\n", exitCode: 1,
    });
    const requeue = await run(["requeue", "999999"], { updateResults });
    expect(requeue.result.stderr).toBe("Invalid job id specified for job 999999\n");
    const bad = await run(["release", "abc"]);
    expect(bad.result.stderr).toBe("Invalid job id specified for job abc\nslurm_suspend error: Invalid job id specified\n");
    expect(bad.calls.updateJob).toEqual([]);
  });

  it("maps the hold family, comma lists and Name=", async () => {
    const { calls } = await run(["uhold", "21,22"]);
    expect(calls.updateJob.map((c) => [c.jobIds, c.action])).toEqual([[["21"], "uhold"], [["22"], "uhold"]]);
    const named = await run(["release", "Name=held"]);
    expect(named.calls.updateJob.map((c) => c.jobIds)).toEqual([["21"]]);
    const rq = await run(["requeuehold", "20"]);
    expect(rq.calls.updateJob[0]?.action).toBe("requeuehold");
    expect((await run(["hold"])).result.stderr).toBe("too few arguments for keyword:hold\n");
  });

  // oracle 22.05: one request for the whole list; errors name the list as written
  it("top sends the list at once", async () => {
    const { result, calls } = await run(["top", "21,22"]);
    expect(result.exitCode).toBe(0);
    expect(calls.updateJob).toEqual([{ jobIds: ["21", "22"], action: "top", fields: {} }]);
    const updateResults = () => [{ jobId: "21,999999", error: "Invalid job id specified", errorCode: 2017 }];
    expect((await run(["top", "21,999999"], { updateResults })).result).toEqual({ stdout: "", stderr: "Invalid job id specified for job 21,999999\n", exitCode: 1 });
    expect((await run(["top", "abc"])).result.stderr).toBe("Invalid job id specified for job abc\n");
    expect((await run(["top"])).result.stderr).toBe("too few arguments for keyword:top\n");
    expect((await run(["top", "21", "22"])).result.stderr).toBe("too many arguments for keyword:top\n");
  });
});

describe("scontrol update", () => {
  // oracle 22.05: JobName= with UserID= selects that user's jobs of the name; a Deadline= scontrol cannot read is dropped with its complaint
  it("selects by JobName= and UserID=, and says what it dropped", async () => {
    const named = await run(["update", "JobName=held", "UserID=0", "Comment=y"]);
    expect(named.calls.updateJob).toEqual([{ jobIds: ["21"], action: "update", fields: { Comment: "y" } }]);
    const other = await run(["update", "JobName=held", "UserID=65534", "Comment=y"]);
    expect(other.result).toEqual({ stdout: "", stderr: "scontrol: error: No jobs with user ID 65534 and name 'held'\n", exitCode: 1 });
    expect((await run(["update", "JobName=nonexist", "Comment=y"])).result.stderr).toBe("scontrol: error: No jobs with name 'nonexist'\n");
    const dropped = await run(["update", "JobId=22", "Deadline=abc", "Comment=x"]);
    expect(dropped.result).toEqual({ stdout: "", stderr: "Invalid time specification (pos=0): abc\n", exitCode: 0 });
    expect(dropped.calls.updateJob).toEqual([{ jobIds: ["22"], action: "update", fields: { Comment: "x" } }]);
    expect((await run(["update", "JobId=22", "Deadline=abc"])).result.stderr).toBe("Invalid time specification (pos=0): abc\nNo changes specified\n");
  });

  it("sends canonical keys, case-insensitive and abbreviated", async () => {
    const { result, calls } = await run(["update", "jobid=22", "timelimit=30", "PART=gpu", "JobName=x"]);
    expect(result.exitCode).toBe(0);
    expect(calls.updateJob).toEqual([{ jobIds: ["22"], action: "update", fields: { TimeLimit: "30", Partition: "gpu", Name: "x" } }]);
  });

  it("rejects keys scontrol does not know, and empty updates", async () => {
    const bogus = await run(["update", "JobId=22", "Bogus=1"]);
    expect(bogus.result).toEqual({ stdout: "", stderr: "Update of this parameter is not supported: Bogus=1\nRequest aborted\n", exitCode: 1 });
    expect((await run(["update", "JobId=22"])).result.stderr).toBe("No changes specified\n");
    const none = await run(["update", "Foo=1"]);
    expect(none.result.stderr).toContain("No valid entity in update command\n");
  });

  it("reports controller errors per job", async () => {
    const updateResults = () => [{ jobId: "20", error: "Job is no longer pending execution", errorCode: 2020 }];
    const { result } = await run(["update", "JobId=20", "Partition=gpu"], { updateResults });
    expect(result).toEqual({ stdout: "", stderr: "Job is no longer pending execution for job 20\n", exitCode: 1 });
  });

  it("updates nodes; DRAIN needs a reason", async () => {
    const { result, calls } = await run(["update", "NodeName=n[1-2]", "State=drain", "Reason=disk fail"]);
    expect(result.exitCode).toBe(0);
    expect(calls.updateNode).toEqual([{ nodes: "n[1-2]", state: "DRAIN", reason: "disk fail" }]);
    const noReason = await run(["update", "NodeName=n1", "State=DOWN"]);
    expect(noReason.result.stderr).toBe("You must specify a reason when DOWNING or DRAINING a node. Request denied\n");
    const failing = await run(["update", "NodeName=n9", "State=RESUME"], { updateNodeError: "Invalid node name specified" });
    expect(failing.result).toEqual({ stdout: "", stderr: "slurm_update error: Invalid node name specified\n", exitCode: 1 });
  });

  it("abbreviation rules follow Slurm's minimum lengths", () => {
    expect(keywordMatch("sho", "show", 3)).toBe(true);
    expect(keywordMatch("sh", "show", 3)).toBe(false);
    expect(jobUpdateKey("TimeL")).toBe("TimeLimit");
    expect(jobUpdateKey("Time")).toBeUndefined();
    expect(jobUpdateKey("nodelist")).toBe("ReqNodeList");
  });
});

describe("scontrol misc", () => {
  it("version, invalid keyword/entity, bad option, stdin commands", async () => {
    expect((await run(["version"])).result.stdout).toBe("slurm 26.05.0\n");
    expect((await run(["-V"])).result.stdout).toBe("slurm 26.05.0\n");
    expect((await run(["bogus"])).result).toEqual({ stdout: "", stderr: "invalid keyword: bogus\n", exitCode: 1 });
    expect((await run(["show", "bogus"])).result.stderr).toBe("invalid entity:bogus for keyword:show \n");
    expect((await run(["--bogus"])).result.stderr).toBe('scontrol: unrecognized option \'--bogus\'\nTry "scontrol --help" for more information\n');
    // oracle: --hide is an option (hidden partitions stay hidden, the default); -a then --hide undoes -a
    expect((await run(["show", "job", "--hide", "20"])).result).toEqual((await run(["show", "job", "20"])).result);
    expect((await run(["-a", "--hide", "show", "partition"])).result).toEqual((await run(["show", "partition"])).result);
    const viaStdin = await run([], { stdin: "ping\nshow partition gpu\nquit\nping\n" });
    expect(viaStdin.result.stdout).toBe(`Slurmctld(primary) at vm is UP\n${loadGolden("016").stdout}`);
  });
});

describe("scontrol options anywhere (glibc getopt permutes; checked on the oracle)", () => {
  /** Every placement of the option words among the command words. */
  function placements(options: string[], words: string[]): string[][] {
    if (options.length === 0) return [words];
    const [first, ...rest] = options as [string, ...string[]];
    const out: string[][] = [];
    for (const tail of placements(rest, words)) for (let i = 0; i <= tail.length; i++) out.push([...tail.slice(0, i), first, ...tail.slice(i)]);
    return out;
  }
  for (const number of ["065", "019"]) {
    it(`golden ${number}: every placement of its options gives the golden's output`, async () => {
      const g = loadGolden(number);
      const argv = argvOf(g.command);
      const options = argv.filter((w) => w.startsWith("-"));
      const words = argv.filter((w) => !w.startsWith("-"));
      const all = placements(options, words);
      expect(all.length).toBe(words.length + 1);
      for (const order of all) expect((await run(order)).result, order.join(" ")).toEqual({ stdout: g.stdout, stderr: g.stderr, exitCode: g.exitCode });
    });
  }
  it("the issue's lines: show part -o, -a show -o nodes, show job -o N; '--' ends options as on the oracle", async () => {
    const oneLinePartitions = (await run(["-o", "show", "partition"])).result;
    expect((await run(["show", "part", "-o"])).result).toEqual(oneLinePartitions);
    expect(oneLinePartitions.stdout.split("\n").filter((l) => l !== "")).toHaveLength(2);
    expect((await run(["-a", "show", "-o", "nodes"])).result).toEqual((await run(["-o", "-a", "show", "nodes"])).result);
    expect((await run(["show", "job", "-o", "20"])).result).toEqual((await run(["-o", "show", "job", "20"])).result);
    // oracle: `scontrol show -- -o` → "invalid entity:-o for keyword:show ", exit 1
    expect((await run(["show", "--", "-o"])).result).toEqual({ stdout: "", stderr: "invalid entity:-o for keyword:show \n", exitCode: 1 });
    // oracle: `scontrol show partition debug -x` → glibc's message for the bad option
    expect((await run(["show", "partition", "debug", "-x"])).result).toEqual({ stdout: "", stderr: "scontrol: invalid option -- 'x'\nTry \"scontrol --help\" for more information\n", exitCode: 1 });
  });
});

describe("scontrol --json (the REST serializers, data_parser v0.0.45), in any position", () => {
  it("show job/jobs/nodes/partitions and ping answer the documents GET /slurm/v0.0.45/... serves", async () => {
    for (const argv of [["--json", "show", "job", "20"], ["show", "job", "20", "--json"], ["show", "--json", "job", "20"]]) {
      const r = (await run(argv)).result;
      expect(r.exitCode, r.stderr).toBe(0);
      const doc = JSON.parse(r.stdout) as { jobs: { job_id: number }[]; meta: { command: string[]; plugin: { data_parser: string } }; errors: unknown[] };
      expect(doc.jobs.map((j) => j.job_id)).toEqual([20]);
      expect(doc.meta.command).toEqual(["scontrol", ...argv]);
      expect(doc.meta.plugin.data_parser).toBe("data_parser/v0.0.45");
      expect(doc.errors).toEqual([]);
    }
    const nodes = JSON.parse((await run(["show", "nodes", "--json"])).result.stdout) as { nodes: { name: string }[] };
    expect(nodes.nodes.map((n) => n.name)).toEqual(["n1", "n2", "n3", "n4"]);
    const one = JSON.parse((await run(["show", "node", "n3", "--json"])).result.stdout) as { nodes: { name: string }[] };
    expect(one.nodes.map((n) => n.name)).toEqual(["n3"]);
    const parts = JSON.parse((await run(["--json", "show", "partition"])).result.stdout) as { partitions: { name: string }[] };
    expect(parts.partitions.map((p) => p.name)).toEqual(["debug", "gpu"]);
    const ping = JSON.parse((await run(["ping", "--json"])).result.stdout) as { pings: { responding: boolean }[] };
    expect(ping.pings[0]?.responding).toBe(true);
    expect(JSON.parse((await run(["--json=v0.0.42", "show", "jobs"])).result.stdout).meta.plugin.data_parser).toBe("data_parser/v0.0.42");
  });
  it("an unknown job is the envelope's error, exit 1; an unknown data_parser is refused", async () => {
    const r = (await run(["show", "job", "999999", "--json"])).result;
    expect(r.exitCode).toBe(1);
    expect((JSON.parse(r.stdout) as { errors: { error_number: number }[] }).errors[0]?.error_number).toBe(2017);
    const bad = (await run(["--json=v0.0.99", "ping"])).result;
    expect([bad.exitCode, bad.stderr.startsWith("scontrol: error: Unable to find data_parser plugin for v0.0.99")]).toEqual([1, true]);
  });
});
