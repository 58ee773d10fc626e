/**
 * squeue behaviour without a golden: pending array remainders (17_[4-10%2]),
 * -r, partial -j, folding split-off tasks, --start order, SQUEUE_* variables,
 * controller failures and option errors in glibc's wording.
 */
import { describe, expect, it } from "vitest";
import { squeueMain } from "../../../src/cli/squeue.ts";
import { busyJobs, job, node, oracleNodes, type Job } from "./fixtures.ts";
import { fakePort, type World } from "./golden.ts";

process.env.TZ = "UTC";

const NOW = 1796214967;
const remainder = (over: Partial<Job> = {}): Job =>
  job({ jobId: 30, arrayJobId: 30, arrayTaskStr: "4-10%2", name: "arr", reason: "JobArrayTaskLimit", priority: 100, ...over });

const sq = (argv: string[], world: Partial<World> = {}) =>
  squeueMain(argv, fakePort({ jobs: busyJobs(), now: NOW, ...world }));

const lines = (text: string): string[] => text.split("\n").filter((l) => l !== "");

describe("squeue job arrays", () => {
  it("shows the pending remainder as ID_[set%throttle]", async () => {
    const r = await sq(["-h", "-o", "%.18i|%F|%K|%A|%R"], { jobs: [remainder()] });
    expect(r.stdout).toBe("       30_[4-10%2]|30|4-10%2|30|(JobArrayTaskLimit)\n");
  });

  it("-r prints one line per pending index, without the throttle", async () => {
    const r = await sq(["-r", "-h", "-o", "%i"], { jobs: [remainder()] });
    expect(lines(r.stdout)).toEqual(["30_4", "30_5", "30_6", "30_7", "30_8", "30_9", "30_10"]);
  });

  it("-j narrows a remainder to the requested indexes", async () => {
    const one = await sq(["-h", "-o", "%i", "-j", "30_5"], { jobs: [remainder()] });
    expect(one.stdout).toBe("30_5\n");
    const two = await sq(["-h", "-o", "%i", "--jobs=30_5,30_7"], { jobs: [remainder()] });
    expect(two.stdout).toBe("30_[5,7]\n");
    const whole = await sq(["-h", "-o", "%i", "-j", "30"], { jobs: [remainder()] });
    expect(whole.stdout).toBe("30_[4-10%2]\n");
  });

  it("folds a split-off pending task back into its array's line, joining reasons", async () => {
    const split = job({ jobId: 31, arrayJobId: 30, arrayTaskId: 2, name: "arr", reason: "Priority", priority: 100 });
    const folded = await sq(["-h", "-o", "%i %r"], { jobs: [remainder(), split] });
    expect(folded.stdout).toBe("30_[2,4-10] JobArrayTaskLimit,Priority\n");
    // The controller's order (the split-off task where the remainder was, the remainder re-added last), then
    // reversed as pending records without a start time are: oracle 22.05, array 34 with 34_2 and 34_3 split
    // off while held, `squeue -r`: 34_1 34_4 34_3 34_2.
    const apart = await sq(["-r", "-h", "-o", "%i"], { jobs: [split, remainder({ arrayTaskStr: "4-5" })] });
    expect(lines(apart.stdout)).toEqual(["30_4", "30_5", "30_2"]);
  });
});

describe("squeue selection and order", () => {
  it("--start lists pending jobs only, soonest known start first", async () => {
    const jobs = [job({ jobId: 40, name: "soon", startTime: NOW + 60 }), job({ jobId: 41, name: "past", startTime: NOW - 60 }), job({ jobId: 42, name: "never" })];
    const r = await sq(["--start", "-h", "-o", "%i %S"], { jobs: [...busyJobs().slice(2, 4), ...jobs] });
    expect(lines(r.stdout)).toEqual(["41 2026-12-02T12:35:07", "40 2026-12-02T12:37:07", "42 N/A"]);
  });

  it("filters by state names (long, short, flags, all)", async () => {
    const completing = job({ jobId: 50, name: "cg", state: "RUNNING", stateFlags: ["COMPLETING"], nodelist: "n1" });
    const world = { jobs: [...busyJobs(), completing] };
    expect(lines((await sq(["-h", "-o", "%i", "-t", "running"], world)).stdout)).toEqual(["17_1", "17_2", "17_3", "20"]);
    expect((await sq(["-h", "-o", "%i %t", "-t", "CG"], world)).stdout).toBe("50 CG\n");
    expect(lines((await sq(["-h", "-o", "%i", "-t", "all"], world)).stdout)).toHaveLength(11);
    expect(lines((await sq(["-h", "-o", "%i"], world)).stdout)).toHaveLength(9);
  });

  it("filters by user (--me), account, qos, name, node and partition", async () => {
    const other = job({ jobId: 60, name: "mine", user: "alice", uid: 1000, account: "phys", qos: "high", partition: "gpu" });
    const world = { jobs: [...busyJobs(), other], uid: 1000, user: "alice", nodes: [...oracleNodes(), node({ name: "n5" })] };
    const ids = async (argv: string[]) => lines((await sq(["-h", "-o", "%i", ...argv], world)).stdout);
    expect(await ids(["--me"])).toEqual(["60"]);
    expect(await ids(["-u", "alice"])).toEqual(["60"]);
    expect(await ids(["-A", "PHYS"])).toEqual(["60"]);
    expect(await ids(["-q", "high"])).toEqual(["60"]);
    expect(await ids(["-p", "gpu"])).toEqual(["60"]);
    expect(await ids(["-n", "long"])).toEqual(["20"]);
    expect(await ids(["-w", "n[4-5]"])).toEqual(["17_3", "20"]);
  });

  it("sorts by -S keys, '-' reversing", async () => {
    const ids = async (sort: string) => lines((await sq(["-h", "-o", "%i", "-S", sort])).stdout);
    expect(await ids("i")).toEqual(["17_1", "17_2", "17_3", "20", "21", "22", "23", "24"]);
    expect(await ids("-i")).toEqual(["24", "23", "22", "21", "20", "17_3", "17_2", "17_1"]);
    const bad = await sq(["-S", "x"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toBe("squeue: error: Invalid sort specification: x\n");
    // Slurm reads the spec from its end: the last bad letter is named; "b" (a dropped gres sort) is only said
    expect((await sq(["-S", "bogus"])).stderr).toBe("squeue: error: Invalid sort specification: s\n");
    expect((await sq(["-S", "xo"])).stderr).toBe("squeue: error: Invalid sort specification: o\n");
    expect((await sq(["-S", "xb"])).stderr).toBe("squeue: Invalid sort specification: b\nsqueue: error: Invalid sort specification: x\n");
    const dropped = await sq(["-h", "-o", "%i", "-S", "i,b"]);
    expect([dropped.exitCode, dropped.stderr, lines(dropped.stdout)[0]]).toEqual([0, "squeue: Invalid sort specification: b\n", "17_1"]);
  });

  it("-w names nodes only: the first unknown one in hostlist order fails it before anything is printed", async () => {
    const world = { nodes: oracleNodes() };
    const bad = await sq(["-w", "n1,zz,yy"], world);
    expect(bad).toEqual({ stdout: "", stderr: "squeue: error: Invalid node name yy\n", exitCode: 1 });
    expect((await sq(["-w", "n[1-9]"], world)).stderr).toBe("squeue: error: Invalid node name n5\n");
    const good = await sq(["-h", "-w", "n[1-2]", "-o", "%i"], world);
    expect([good.exitCode, good.stderr]).toEqual([0, ""]);
  });
});

describe("squeue environment and output options", () => {
  it("uses SQUEUE_FORMAT, SQUEUE_FORMAT2 and SQUEUE_SORT unless options override them", async () => {
    const env = { SQUEUE_FORMAT: "%i:%t", SQUEUE_SORT: "i" };
    expect(lines((await sq(["-h"], { env })).stdout)[0]).toBe("17_1:R");
    expect(lines((await sq(["-h", "-o", "%j"], { env })).stdout)[0]).toBe("golden");
    const r = await sq(["-t", "PD"], { env: { SQUEUE_FORMAT2: "JobID:5,Name:.6" } });
    expect(lines(r.stdout).slice(0, 2)).toEqual(["JOBID  NAME", "24      big"]);
  });

  it("-l prints the date line first; -h drops header and date", async () => {
    const r = await sq(["-l", "-t", "PD"]);
    expect(lines(r.stdout)[0]).toBe("Wed Dec 02 12:36:07 2026");
    expect(lines(r.stdout)[1]).toContain("   STATE       TIME TIME_LIMI  NODES NODELIST(REASON)");
    expect(lines((await sq(["-l", "-h", "-t", "PD"])).stdout)[0]).toContain("PENDING");
  });

  it("reports unknown -o letters and -O names, keeping letters as text", async () => {
    const r = await sq(["-h", "-t", "PD", "-o", "%i %! end"]);
    expect(r.stderr).toBe("squeue: error: Invalid job format specification: !\n");
    expect(lines(r.stdout)[0]).toBe("24 %! end");
    const o = await sq(["-h", "-t", "PD", "-O", "JobId:4,Bogus,Name:6"]);
    expect(o.stderr).toBe("squeue: error: Invalid job format specification: Bogus\n");
    expect(lines(o.stdout)[0]).toBe("24  big   ");
  });
});

describe("squeue errors", () => {
  it("prints Slurm's load error when the controller is down", async () => {
    const r = await sq([], { down: true });
    expect(r).toEqual({ stdout: "", stderr: "slurm_load_jobs error: Unable to contact slurm controller (connect failure)\n", exitCode: 1 });
  });

  it("rejects bad options with glibc's messages", async () => {
    const cases: [string[], string][] = [
      [["--us"], "squeue: option '--us' is ambiguous; possibilities: '--usage' '--user' '--users'"],
      [["-x"], "squeue: invalid option -- 'x'"],
      [["-o"], "squeue: option requires an argument -- 'o'"],
      [["--format"], "squeue: option '--format' requires an argument"],
      [["--long=1"], "squeue: option '--long' doesn't allow an argument"],
    ];
    for (const [argv, first] of cases) {
      const r = await sq(argv);
      expect(r).toEqual({ stdout: "", stderr: `${first}\nTry "squeue --help" for more information\n`, exitCode: 1 });
    }
  });

  it("rejects bad ids, states and conflicting formats", async () => {
    expect((await sq(["-j", "0"])).stderr).toBe("squeue: error: Invalid job id: 0\n");
    expect((await sq(["-t", "nope"])).stderr).toMatch(/^squeue: error: Invalid job state specified: nope\nsqueue: error: Valid job states include: PENDING,RUNNING,/);
    expect((await sq(["-l", "-o", "%i"])).stderr).toMatch(/^squeue: fatal: Options -o\(--format\) and -l\(--long\) are mutually exclusive/);
    expect((await sq(["-O", "JobId", "-o", "%i"])).stderr).toBe("squeue: error: -o (--format) is incompatible with -O (--Format)\n");
  });

  it("answers --help, --usage and --version without the controller", async () => {
    const help = await sq(["--help"], { down: true });
    expect(help.exitCode).toBe(0);
    expect(help.stdout.startsWith("Usage: squeue [OPTIONS]\n")).toBe(true);
    expect(help.stdout).toContain("--start");
    expect((await sq(["--usage"], { down: true })).stdout.startsWith("Usage: squeue [-A account]")).toBe(true);
    expect((await sq(["-V"], { down: true })).stdout).toBe("slurm 26.05.0\n");
  });
});

describe("squeue -u with a user this host does not know", () => {
  it("says so with Slurm's error and a blank line, exits 0 and matches no job for it", async () => {
    const port = { ...fakePort({ jobs: busyJobs(), now: NOW }), userKnown: (u: string) => u === "root" || u === "0" };
    const r = await squeueMain(["-u", "nosuchuser", "-h", "-o", "%i"], port);
    expect([r.stderr, r.stdout, r.exitCode]).toEqual(["squeue: error: Invalid user: nosuchuser\n\n", "", 0]);
    const both = await squeueMain(["-u", "nosuchuser,root", "-h", "-o", "%u"], port);
    expect(both.stderr).toBe("squeue: error: Invalid user: nosuchuser\n\n");
    expect(new Set(lines(both.stdout))).toEqual(new Set(["root"]));
  });
});

describe("squeue -s", () => {
  const step = (jobId: number, stepId: number, name: string, state: string, nodelist = "n1") => ({
    jobId, stepId, name, state, nodelist, ntasks: 1, cpus: 1, startTime: NOW - 5, endTime: 0, exitCode: 0, exitSignal: 0, alloc: [], tres: "",
  });
  it("lists running steps only, with a running batch job's script as <job>.batch after its numbered steps", async () => {
    const jobs = [
      job({ jobId: 40, name: "run1", state: "RUNNING", startTime: NOW - 9, batchHost: "n1", nodelist: "n1", steps: [step(40, 0, "sleep", "RUNNING")] }),
      job({ jobId: 41, name: "done", state: "COMPLETED", startTime: NOW - 20, endTime: NOW - 10, steps: [step(41, 0, "hostname", "COMPLETED")] }),
      job({ jobId: 42, name: "alloc", state: "RUNNING", batchFlag: false, startTime: NOW - 3, steps: [step(42, 1, "gone", "COMPLETED")] }),
    ];
    const r = await sq(["-s", "-h", "-o", "%i %j %N"], { jobs });
    expect(r.stdout).toBe("40.0 sleep n1\n40.batch batch n1\n");
  });
});

describe("squeue --only-job-state", () => {
  it("prints each job's id and compact state in the lightweight listing's format (default-formats.tsv: %.18i %.2t)", async () => {
    const r = await sq(["--only-job-state"]);
    const viaFormat = await sq(["-o", "%.18i %.2t"]);
    expect(r).toEqual(viaFormat);
    expect(lines(r.stdout)[0]).toBe("             JOBID ST");
    expect(lines(r.stdout).length).toBeGreaterThan(1);
  });
});

describe("squeue QOS", () => {
  it("an empty QOS prints empty, not (null) (oracle 22.05: sbatch -q foo without enforcement)", async () => {
    const r = await sq(["-h", "-o", "%i|%q|"], { jobs: [job({ jobId: 31, qos: "" })] });
    expect(r.stdout).toBe("31||\n");
  });
});

describe("squeue -j <het leader>", () => {
  it("lists the held components last offset first, the leader last (oracle 22.05: 2641+2, 2641+1, 2641+0)", async () => {
    const comp = (jobId: number, off: number) => job({ jobId, hetJobId: 40, hetJobOffset: off, hetJobIdSet: "40-42", priority: 0, reason: "JobHeldUser" });
    const r = await sq(["-h", "-j", "40", "-o", "%i"], { jobs: [comp(40, 0), comp(41, 1), comp(42, 2)] });
    expect(lines(r.stdout)).toEqual(["40+2", "40+1", "40+0"]);
  });
});

/**
 * Ties among pending jobs without a start time (oracle 22.05, 2026-12-05, jobs submitted in this order): the
 * start-time comparison reverses them on every pass that uses it (the default pre-order; each S key).
 */
describe("squeue order of records without a start time", () => {
  const B = NOW + 3600;
  const held = [10, 11, 12].map((id) => job({ jobId: id, reason: "JobHeldUser" }));
  const het = (id: number, state = "PENDING", start = 0): Job[] =>
    [0, 1, 2].map((o) => job({ jobId: id + o, hetJobId: id, hetJobOffset: o, state, startTime: start, priority: 11156 }));
  const begun = [23, 24, 25].map((id) => job({ jobId: id, reason: "BeginTime", startTime: B, priority: 11156 }));
  const deps = [18, 19, 20].map((id) => job({ jobId: id, reason: "Dependency", priority: 11156 }));
  const ids = async (argv: string[], jobs: Job[]) => lines((await sq(["-h", "-o", "%i", ...argv], { jobs })).stdout);

  it("lists held or dependent jobs of equal priority newest first, set start times in order", async () => {
    expect(await ids([], held)).toEqual(["12", "11", "10"]);
    expect(await ids([], [...deps, ...begun])).toEqual(["23", "24", "25", "20", "19", "18"]);
    for (const s of ["t", "-p", "p", "P", "P,t", "-t"]) expect(await ids(["-S", s], held)).toEqual(["12", "11", "10"]);
    expect(await ids(["-S", "i"], held)).toEqual(["10", "11", "12"]);
  });

  it("reverses again for each S key, unset last in either direction", async () => {
    const world = [...held, ...het(26), ...begun];
    expect(await ids(["-S", "S"], world)).toEqual(["23", "24", "25", "10", "11", "12", "26+0", "26+1", "26+2"]);
    expect(await ids(["-S", "-S"], world)).toEqual(["23", "24", "25", "10", "11", "12", "26+0", "26+1", "26+2"]);
    expect(await ids(["-S", "S,i"], world)).toEqual(["23", "24", "25", "26+2", "26+1", "26+0", "12", "11", "10"]);
    expect(await ids(["-S", "S,S"], world)).toEqual(["23", "24", "25", "26+2", "26+1", "26+0", "12", "11", "10"]);
  });

  it("a het job's components: pending last offset first, running by offset (whole list and -j)", async () => {
    expect(await ids([], het(5))).toEqual(["5+2", "5+1", "5+0"]);
    expect(await ids(["-j", "5"], het(5))).toEqual(["5+2", "5+1", "5+0"]);
    expect(await ids([], het(31, "RUNNING", NOW - 5))).toEqual(["31+0", "31+1", "31+2"]);
    expect(await ids(["-j", "31"], het(31, "RUNNING", NOW - 5))).toEqual(["31+0", "31+1", "31+2"]);
  });
});

describe("squeue %d / MinTmpDisk", () => {
  it("shows --tmp in the oracle's units (0 unset, 1500M, 2G, 1T)", async () => {
    // oracle: sbatch --tmp=0|1500|2048|1g|1t gives %d 0, 1500M, 2G, 1G, 1T; -O MinTmpDisk the same
    const tmp = [0, 1500, 2048, 1024, 1048576].map((m, i) => job({ jobId: 40 + i, minTmpDiskMib: m }));
    const r = await sq(["-h", "-o", "%d"], { jobs: tmp });
    expect(lines(r.stdout).sort()).toEqual(["0", "1500M", "1G", "1T", "2G"]);
    const long = await sq(["-h", "-O", "MinTmpDisk:8", "-j", "41"], { jobs: tmp });
    expect(long.stdout).toBe("1500M   \n");
  });
});

describe("squeue and options given empty", () => {
  it("shows --constraint= and --comment= empty, left out (null) (oracle: %f|%k is '|' and '(null)|(null)')", async () => {
    const given = job({ jobId: 50, givenEmpty: "constraint,comment,prefer" });
    const plain = job({ jobId: 51 });
    const r = await sq(["-h", "-o", "%i|%f|%k", "-j", "50,51"], { jobs: [given, plain] });
    expect(lines(r.stdout).sort()).toEqual(["50||", "51|(null)|(null)"]);
    const prefer = await sq(["-h", "-O", "JobID:4,Prefer:8", "-j", "50,51"], { jobs: [given, plain] });
    expect(lines(prefer.stdout).sort()).toEqual(["50          ", "51  (null)  "]);
  });

  it("shows --licenses= empty, left out (null) (oracle 22.05: %W is '' and '(null)', -O Licenses the same)", async () => {
    const given = job({ jobId: 52, givenEmpty: "licenses" });
    const plain = job({ jobId: 53 });
    const r = await sq(["-h", "-o", "%i|%W", "-j", "52,53"], { jobs: [given, plain] });
    expect(lines(r.stdout).sort()).toEqual(["52|", "53|(null)"]);
    const long = await sq(["-h", "-O", "JobID:4,Licenses:8", "-j", "52,53"], { jobs: [given, plain] });
    expect(lines(long.stdout).sort()).toEqual(["52          ", "53  (null)  "]);
  });
});

describe("squeue -P with jobs of several partitions", () => {
  it("prints a row per listed partition, skipping empty entries and keeping repeated ones (oracle 22.05)", async () => {
    const jobs = [job({ jobId: 54, partition: "gpu,,debug", reason: "JobHeldUser" }), job({ jobId: 55, partition: "gpu,gpu", reason: "JobHeldUser" })];
    const r = await sq(["-P", "-h", "-o", "%i|%P"], { jobs });
    expect(lines(r.stdout)).toEqual(["54|debug", "55|gpu", "55|gpu", "54|gpu"]);
  });
});

describe("squeue -O fields Spur does not track", () => {
  it("print what 22.05 prints for a held job: no accrue time, no boards, no MCS label, not federated; AllocNodes as resolved", async () => {
    const held = job({ jobId: 60, state: "PENDING", reason: "JobHeldUser", priority: 0, allocNode: "localhost", submitHost: "login1" });
    const fields = ["AccrueTime", "BoardsPerNode", "MCSLabel", "Origin", "OriginRaw", "SiblingsActive", "SiblingsViableRaw", "AllocNodes"];
    const r = await sq(["-h", "-j", "60", "-O", fields.map((f) => `${f}:|`).join(",")], { jobs: [held] });
    expect(r.stdout).toBe("N/A|0|(null)|NA|NA|NA|NA|localhost|\n");
  });
});

describe("-i/--iterate (oracle 22.05: the time, the listing and a blank line, every N seconds until killed)", () => {
  /** The command run until its third sleep, what it wrote, and the sleeps it asked for. */
  async function rounds(main: typeof squeueMain, argv: string[]) {
    const written: string[] = [];
    const sleeps: number[] = [];
    const port = {
      ...fakePort({ jobs: busyJobs(), now: NOW }),
      write: (_s: "stdout" | "stderr", text: string) => void written.push(text),
      sleep: async (ms: number) => {
        sleeps.push(ms);
        if (sleeps.length === 3) throw new Error("killed");
      },
    };
    await expect(main(argv, port)).rejects.toThrow("killed");
    return { written, sleeps };
  }

  it("squeue", async () => {
    const { written, sleeps } = await rounds(squeueMain, ["-i", "5", "-o", "%i", "-j", "20"]);
    expect(sleeps).toEqual([5000, 5000, 5000]);
    expect(written).toHaveLength(3);
    expect(written[0]).toMatch(/^\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}\nJOBID\n20\n\n$/);
  });

  it("sinfo", async () => {
    const { sinfoMain } = await import("../../../src/cli/sinfo.ts");
    const { written, sleeps } = await rounds(sinfoMain, ["--iterate=2", "-o", "%P"]);
    expect(sleeps).toEqual([2000, 2000, 2000]);
    expect(written[1]).toMatch(/^\w{3} \w{3} \d\d \d\d:\d\d:\d\d \d{4}\nPARTITION\n\n$/);
  });
});
