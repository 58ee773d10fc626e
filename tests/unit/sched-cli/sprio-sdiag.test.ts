/**
 * sprio and sdiag as pure functions over a fake controller port: Slurm's
 * default sprio columns (only factors with a weight), -l, -n, -w, -o, -j/-u
 * filters and the error for priority/basic; sdiag's layout and --reset.
 */
import { describe, expect, it } from "vitest";
import { sprioMain, defaultFormat } from "../../../src/cli/sprio.ts";
import { sdiagMain, diagText } from "../../../src/cli/sdiag.ts";
import type { CliPort, ControllerPort } from "../../../src/net/ctl-port.ts";
import { RpcError } from "../../../src/net/ctl-port.ts";

process.env.TZ = "UTC";

const WEIGHTS = { age: 1000, assoc: 0, fairshare: 10000, jobSize: 1000, partition: 1000, qos: 0, tres: {} };
const JOBS = [
  { jobId: 7, partition: "debug", user: "root", account: "root", qos: "normal", priority: 11250, age: 0.5, fairshare: 1, jobSize: 0.25, partitionFactor: 0.5, nice: 0 },
  { jobId: 9, partition: "gpu", user: "alice", account: "", qos: "normal", priority: 2600, fairshare: 0.25, jobSize: 0.1, partitionFactor: 1, nice: 100 },
];

function port(over: Partial<ControllerPort> = {}): CliPort {
  const ctl = {
    getPriorityFactors: async (req: { jobIds: number[]; users: string[] }) => ({
      jobs: JOBS.filter((j) => (req.jobIds.length === 0 || req.jobIds.includes(j.jobId)) && (req.users.length === 0 || req.users.includes(j.user))),
      weights: WEIGHTS,
      priorityType: "priority/multifactor",
    }),
    ...over,
  } as unknown as ControllerPort;
  return { ctl, invoker: { uid: 0, gid: 0, user: "root", group: "root", cwd: "/", hostname: "h" }, env: {}, now: () => 0, readFile: async () => undefined, readStdin: async () => "", write: () => undefined, sleep: async () => undefined };
}

describe("sprio", () => {
  it("prints Slurm's default columns, leaving out factors whose weight is 0", async () => {
    const r = await sprioMain([], port());
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(
      [
        "          JOBID PARTITION   PRIORITY       SITE        AGE  FAIRSHARE    JOBSIZE  PARTITION",
        "              7 debug          11250          0        500      10000        250        500",
        "              9 gpu             2600          0          0       2500        100       1000",
        "",
      ].join("\n"),
    );
  });

  it("-l shows every factor whatever its weight, with user, account, QOS name and nice; -n prints normalised factors left-justified", async () => {
    // sprio's documented long format (22.05 prints the same factors, without ACCOUNT and QOSNAME: oracle sprio -l)
    expect(defaultFormat(WEIGHTS, true, false)).toBe("%.15i %9r %.8u %.8o %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10n %.10Q %.11N %.20T");
    const long = await sprioMain(["-l", "-j9"], port());
    expect(long.stdout.split("\n")[1]).toBe("              9 gpu          alice                2600          0          0          0       2500        100       1000     normal          0         100                     ");
    // oracle 22.05 sprio -n: no SITE, each factor left in 10 columns, the priority cut to them (0.00000270665623 -> 0.00000270)
    const norm = await sprioMain(["-n", "-h", "-j7"], port());
    expect(norm.stdout).toBe("              7 debug     0.00000261 0.5000000  1.0000000  0.2500000  0.5000000 \n");
    expect((await sprioMain(["-h", "-o", "%y|%c", "-j7"], port())).stdout).toBe("0.00000261934474|(null)\n");
  });

  it("-u adds a USER column to the default formats (oracle 22.05)", async () => {
    expect(defaultFormat(WEIGHTS, false, false, true)).toBe("%.15i %9r %.8u %.10Y %.10S %.10A %.10F %.10J %.10P");
    expect(defaultFormat(WEIGHTS, false, true, true)).toBe("%.15i %9r %.8u %10y %10a %10f %10j %10p");
  });

  it("-w prints the weights, -o a custom format, -u filters by user", async () => {
    const w = await sprioMain(["-w"], port());
    expect(w.stdout.split("\n")[1]).toBe("        Weights                               1       1000      10000       1000       1000");
    const o = await sprioMain(["-o", "%i %Y %u", "-u", "alice"], port());
    expect(o.stdout).toBe("JOBID PRIORITY USER\n9 2600 alice\n");
    // oracle 22.05: -u with no pending job prints the header only; -j naming none prints this line on stdout instead
    const none = await sprioMain(["-u", "nobody"], port());
    expect([none.stdout.split("\n").length, none.stderr]).toEqual([2, ""]);
    // -j's argument is optional: the word after it is the job list (oracle: `sprio -j 999999`)
    for (const argv of [["-j", "999999"], ["-j999999"], ["-j1", "999999"]]) {
      expect(await sprioMain(argv, port())).toEqual({ stdout: "Unable to find jobs matching user/id(s) specified\n", stderr: "", exitCode: 0 });
    }
    expect((await sprioMain(["-j", "9"], port())).stdout).toMatch(/\n +9 gpu /);
    for (const [argv, word] of [[["999999"], "999999"], [["-u", "root", "root"], "root"], [["-j", "1", "2"], "2"]] as const) {
      const r = await sprioMain([...argv], port());
      expect([r.stderr, r.exitCode, r.stdout.startsWith("Usage: sprio ")]).toEqual([`sprio: error: Unrecognized option: ${word}\n`, 1, true]);
    }
  });

  it("refuses priority/basic as Slurm does", async () => {
    const r = await sprioMain([], port({ getPriorityFactors: async () => ({ jobs: [], weights: WEIGHTS, priorityType: "priority/basic" }) }));
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("priority/basic");
  });
});

describe("sdiag", () => {
  const diag = {
    now: 1_764_700_000, since: 1_764_690_000, jobsSubmitted: 5, jobsStarted: 4, jobsCompleted: 2, jobsCanceled: 1, jobsFailed: 0,
    jobsPending: 1, jobsRunning: 1, main: { cycles: 10, lastUs: 120, maxUs: 900, totalUs: 2000, depthTotal: 30, lastDepth: 3, lastQueueLength: 1 },
    backfill: { cycles: 2, lastUs: 50, maxUs: 80, totalUs: 130, depthTotal: 4, lastDepth: 2, lastQueueLength: 1 },
    backfilledTotal: 1, bfLastWhen: 1_764_699_990, bfLastDepthTrySched: 2, bfLastTableSize: 6, backfillEnabled: true,
    applyFailed: 2, staleDecisions: 7, bfDepthTrySchedTotal: 3, bfQueueLengthTotal: 5, bfTableSizeTotal: 13,
    rpcByMethod: [
      { name: "/spur.v1.Controller/Submit", id: 0, count: 105, totalUs: 212840 },
      { name: "/spur.v1.Controller/Cancel", id: 0, count: 111, totalUs: 119526 },
      { name: "/spur.v1.Controller/Heartbeat", id: 0, count: 3, totalUs: 900.4 },
    ],
    rpcByUser: [{ name: "root", id: 0, count: 219, totalUs: 333266.4 }],
    clockLatencyUs: 26,
  };
  it("prints the main and backfill statistics in Slurm's layout", async () => {
    const r = await sdiagMain([], port({ getDiag: async () => diag }));
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("sdiag output at Tue Dec 02 18:26:40 2025 (1764700000)\n");
    expect(r.stdout).toContain("Jobs submitted: 5\nJobs started:   4\nJobs completed: 2\nJobs canceled:  1\nJobs failed:    0\n");
    expect(r.stdout).toContain("Main schedule statistics (microseconds):\n\tLast cycle:   120\n\tMax cycle:    900\n\tTotal cycles: 10\n\tMean cycle:   200\n\tMean depth cycle:  3\n");
    expect(r.stdout).toContain("\tTotal backfilled jobs (since last slurm start): 1\n");
    expect(r.stdout).toContain("\tLast depth cycle (try sched): 2\n");
    expect(r.stdout).toContain("\tLast table size: 6\n");
    expect(diagText(diag)).toBe(r.stdout);
  });

  it("prints the backfill means after their last values once a cycle ran (oracle 22.05: sdiag after one backfill cycle)", async () => {
    const r = await sdiagMain([], port({ getDiag: async () => diag }));
    expect(r.stdout).toContain(
      "\tLast depth cycle: 2\n\tLast depth cycle (try sched): 2\n\tDepth Mean: 2\n\tDepth Mean (try depth): 1\n" +
        "\tLast queue length: 1\n\tQueue length mean: 2\n\tLast table size: 6\n\tMean table size: 6\n\n",
    );
    const none = await sdiagMain([], port({ getDiag: async () => ({ ...diag, backfill: { ...diag.backfill, cycles: 0 } }) }));
    expect(none.stdout).toContain("\tLast depth cycle (try sched): 2\n\tLast queue length: 1\n\tLast table size: 6\n\n");
  });

  it("ends with the RPC tables in 22.05's layout, Spur's methods under Slurm's message names (oracle: sdiag)", async () => {
    const r = await sdiagMain([], port({ getDiag: async () => diag }));
    expect(r.stdout).toContain(
      "\tMean table size: 6\n\nLatency for 1000 calls to gettimeofday(): 26 microseconds\n\n" +
        "Remote Procedure Call statistics by message type\n" +
        "\tREQUEST_KILL_JOB                        ( 5032) count:111    ave_time:1076   total_time:119526\n" +
        "\tREQUEST_SUBMIT_BATCH_JOB                ( 4003) count:105    ave_time:2027   total_time:212840\n" +
        "\tHEARTBEAT                               (    0) count:3      ave_time:300    total_time:900\n\n" +
        "Remote Procedure Call statistics by user\n" +
        "\troot            (       0) count:219    ave_time:1521   total_time:333266\n\n" +
        "Pending RPC statistics\n\tNo pending RPCs\n\n",
    );
    const byTime = await sdiagMain(["-t"], port({ getDiag: async () => diag }));
    expect(byTime.stdout.indexOf("REQUEST_SUBMIT_BATCH_JOB")).toBeLessThan(byTime.stdout.indexOf("REQUEST_KILL_JOB"));
    const byId = await sdiagMain(["-i"], port({ getDiag: async () => diag }));
    expect(byId.stdout.indexOf("HEARTBEAT")).toBeLessThan(byId.stdout.indexOf("REQUEST_SUBMIT_BATCH_JOB"));
    expect(byId.stdout.indexOf("REQUEST_SUBMIT_BATCH_JOB")).toBeLessThan(byId.stdout.indexOf("REQUEST_KILL_JOB"));
  });

  it("shows the committed commands skipped as ApplyFailed, and 0 when the controller's answer omits them", async () => {
    const r = await sdiagMain([], port({ getDiag: async () => diag }));
    expect(r.stdout).toContain("Controller state log (Spur)\n\tCommitted commands not applied (ApplyFailed): 2\n\tStale scheduler decisions rejected: 7\n");
    const { applyFailed: _a, staleDecisions: _s, ...older } = diag;
    const zero = await sdiagMain([], port({ getDiag: async () => older as typeof diag }));
    expect(zero.stdout).toContain("\tCommitted commands not applied (ApplyFailed): 0\n");
  });

  it("--reset reports and maps a refusal to Slurm's words", async () => {
    expect((await sdiagMain(["--reset"], port({ getDiag: async () => diag }))).stdout).toBe("Reset scheduling statistics\n");
    const denied = await sdiagMain(["-r"], port({ getDiag: async () => Promise.reject(new RpcError("permission_denied", "Access/permission denied")) }));
    expect(denied).toEqual({ stdout: "", stderr: "slurm_reset_statistics: Access/permission denied\n", exitCode: 1 });
  });
});
