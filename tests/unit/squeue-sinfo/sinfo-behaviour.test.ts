/**
 * sinfo behaviour without a golden: drained/down nodes and -R, state and
 * node filters (partitions with no matching node print "0 n/a"), -s counts,
 * -e grouping, hidden partitions, SINFO_* variables and errors.
 */
import { describe, expect, it } from "vitest";
import { sinfoMain } from "../../../src/cli/sinfo.ts";
import { busyNodeStates, oracleNodes, oraclePartitions, partition } from "./fixtures.ts";
import { fakePort, type World } from "./golden.ts";

process.env.TZ = "UTC";

const NOW = 1796214967;
const troubled = () =>
  oracleNodes({
    ...busyNodeStates(),
    n1: { state: "DOWN", stateFlags: ["NOT_RESPONDING"], reason: "Not responding", reasonUser: "slurm", reasonTime: 1796214100 },
    n2: { state: "IDLE", stateFlags: ["DRAIN"], reason: "maint window", reasonUser: "root", reasonTime: 1796214000 },
  });

const si = (argv: string[], world: Partial<World> = {}) =>
  sinfoMain(argv, fakePort({ nodes: troubled(), partitions: oraclePartitions(), now: NOW, ...world }));

describe("sinfo lines", () => {
  it("splits a partition by state, busiest state word first", async () => {
    const r = await si([]);
    expect(r.stdout).toBe(
      "PARTITION AVAIL  TIMELIMIT  NODES  STATE NODELIST\n" +
        "debug*       up   infinite      1  down* n1\n" +
        "debug*       up   infinite      1  drain n2\n" +
        "debug*       up   infinite      1    mix n4\n" +
        "debug*       up   infinite      1  alloc n3\n" +
        "gpu          up   infinite      1    mix n4\n" +
        "gpu          up   infinite      1  alloc n3\n",
    );
  });

  it("-R lists reasons of down, failed and drained nodes", async () => {
    const r = await si(["-R"]);
    expect(r.stdout).toBe(
      "REASON               USER      TIMESTAMP           NODELIST\n" +
        "Not responding       slurm     2026-12-02T12:21:40 n1\n" +
        "maint window         root      2026-12-02T12:20:00 n2\n",
    );
    const long = await si(["-R", "-l"]);
    expect(long.stdout.split("\n")[1]).toBe("REASON               USER         TIMESTAMP           STATE  NODELIST");
    expect(long.stdout.split("\n")[3]).toBe("maint window         root         2026-12-02T12:20:00 drain  n2");
  });

  it("keeps partitions without matching nodes as 0-node n/a lines", async () => {
    const r = await si(["-t", "drain,idle"]);
    expect(r.stdout.split("\n").slice(1)).toEqual(["debug*       up   infinite      1  drain n2", "gpu          up   infinite      0    n/a ", ""]);
    const n = await si(["-h", "-n", "n[3-4]", "-o", "%P %D %N"]);
    expect(n.stdout).toBe("debug* 2 n[3-4]\ngpu 2 n[3-4]\n");
    // Without %P no per-partition lines are pre-created: only matching nodes print.
    expect((await si(["-h", "-d", "-o", "%N"])).stdout).toBe("n1\n");
    expect((await si(["-h", "-r", "-t", "alloc", "-o", "%R %N"])).stdout).toBe("debug n[3-4]\ngpu n[3-4]\n");
  });

  it("-s counts allocated/idle/other/total per partition", async () => {
    const r = await si(["-s"]);
    expect(r.stdout.split("\n")[1]).toBe("debug*       up   infinite          2/0/2/4 n[1-4]");
  });

  it("groups differing sizes as N+ unless -e", async () => {
    const nodes = oracleNodes({ n2: { cpus: 8, realMemoryMib: 8000 } });
    const grouped = await si(["-h", "-p", "debug", "-o", "%c %m %N"], { nodes });
    expect(grouped.stdout).toBe("4+ 4000+ n[1-4]\n");
    const exact = await si(["-h", "-e", "-p", "debug", "-o", "%c %m %N"], { nodes });
    expect(exact.stdout).toBe("4 4000 n[1,3-4]\n8 8000 n2\n");
  });

  it("hides hidden partitions unless -a", async () => {
    const partitions = [...oraclePartitions(), partition({ name: "secret", nodes: "n1", hidden: true })];
    expect((await si(["-h", "-o", "%R"], { partitions })).stdout).toBe("debug\ngpu\n");
    expect((await si(["-h", "-a", "-s", "-o", "%R"], { partitions })).stdout).toBe("debug\ngpu\nsecret\n");
  });

  it("%g: AllowGroups=ALL (any case) is \"all\", a list is shown as given (oracle 22.05)", async () => {
    const partitions = [partition({ name: "open", nodes: "n1", allowGroups: "ALL" }), partition({ name: "lower", nodes: "n2", allowGroups: "all" }), partition({ name: "staff", nodes: "n3", allowGroups: "wheel,staff" })];
    expect((await si(["-h", "-o", "%R %g"], { partitions })).stdout).toBe("open all\nlower all\nstaff wheel,staff\n");
  });

  it("uses SINFO_FORMAT and SINFO_SORT; -p and -a conflict", async () => {
    const env = { SINFO_FORMAT: "%R:%t", SINFO_SORT: "P" };
    // "P" alone keeps the build order within a partition (n3 joined first).
    expect((await si(["-h", "-p", "gpu"], { env })).stdout).toBe("gpu:alloc\ngpu:mix\n");
    expect((await si(["-a", "-p", "gpu"])).stderr).toBe("sinfo: error: Conflicting options, -a and -p, specified. Please choose one or the other.\n");
  });
});

describe("sinfo errors", () => {
  it("prints Slurm's load error when the controller is down", async () => {
    const r = await si([], { down: true });
    expect(r).toEqual({ stdout: "", stderr: "slurm_load_partitions: Unable to contact slurm controller (connect failure)\n", exitCode: 1 });
  });

  it("rejects bad states and options", async () => {
    const bad = await si(["-t", "bogus"]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/^sinfo: error: Bad state string: "bogus"\nsinfo: error: valid states: unknown,down,idle,/);
    expect((await si(["--bogus"])).stderr).toBe("sinfo: unrecognized option '--bogus'\nTry \"sinfo --help\" for more information\n");
    expect((await si(["-o", "%P %Q"])).stderr).toBe("Invalid node format specification: Q\n");
    // -O fields are named in Slurm's other wording (x-sweep against the oracle)
    expect((await si(["-O", "Partition:10,Bogus,TimeLimit"])).stderr).toBe(
      "sinfo: error: Invalid job format specification: Bogus\nsinfo: error: Invalid job format specification: TimeLimit\n",
    );
  });

  it("answers --help, --usage and --version without the controller", async () => {
    expect((await si(["--help"], { down: true })).stdout.startsWith("Usage: sinfo [OPTIONS]\n")).toBe(true);
    expect((await si(["--usage"], { down: true })).stdout.startsWith("Usage: sinfo [-adelNRrsTv]")).toBe(true);
    expect((await si(["--version"], { down: true })).stdout).toBe("slurm 26.05.0\n");
  });
});

describe("sinfo --states: every node state name (states.tsv), '&'/'+' combinations; --helpstate", () => {
  const withFlags = (flags: Record<string, string[]>) =>
    oracleNodes(Object.fromEntries(Object.entries(flags).map(([n, f]) => [n, { state: "IDLE", stateFlags: f }])));
  it("accepts every name --helpstate lists, and each selects the nodes carrying it", async () => {
    const help = await si(["--helpstate"]);
    expect(help.exitCode).toBe(0);
    const names = help.stdout.split("\n").slice(1).map((l) => l.trim()).filter((l) => l !== "");
    expect(names).toEqual(expect.arrayContaining(["BOOT", "REBOOT_ISSUED", "FAILING", "BLOCKED", "POWER_UP", "PLANNED", "IDLE", "MIXED"]));
    for (const name of names) {
      const r = await si(["-h", "-t", name, "-o", "%N"]);
      expect([name, r.exitCode, r.stderr]).toEqual([name, 0, ""]);
    }
    const world = { nodes: withFlags({ n1: ["REBOOT_REQUESTED"], n2: ["REBOOT_ISSUED"], n3: ["DRAIN"] }) };
    expect((await si(["-h", "-N", "-p", "debug", "-t", "boot", "-o", "%N"], world)).stdout).toBe("n1\n");
    expect((await si(["-h", "-N", "-p", "debug", "-t", "REBOOT_ISSUED", "-o", "%N"], world)).stdout).toBe("n2\n");
    expect((await si(["-h", "-N", "-p", "debug", "-t", "idle&drain", "-o", "%N"], world)).stdout).toBe("n3\n");
    expect((await si(["-h", "-N", "-p", "debug", "-t", "idle+drain,boot", "-o", "%N"], world)).stdout).toBe("n1\nn3\n");
    expect((await si(["-h", "-N", "-p", "debug", "-t", "idle&boot&drain", "-o", "%N"], world)).stdout).toBe("");
  });
  it("a bad word inside a combination is named in the error", async () => {
    const r = await si(["-t", "idle&bogus"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.split("\n")[0]).toBe('sinfo: error: Bad state string: "bogus"');
  });
});
