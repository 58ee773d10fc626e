/**
 * strigger's client side: option checks in Slurm's order and wording, the --set request,
 * --get's table and filters, and --clear's quiet mode. The expected texts were recorded
 * from the Slurm 22.05 oracle (strigger on job 27 and nodes n[1-4]).
 */
import { describe, expect, it } from "vitest";
import { striggerMain, type TriggerRow } from "../../../src/cli/strigger.ts";
import { RpcError, type CliPort, type ControllerPort } from "../../../src/net/ctl-port.ts";

const row = (id: number, resType: string, resId: string, types: string[], offset = 0, perm = false, program = "/bin/true"): TriggerRow => ({
  triggerId: id, resType, resId, types, offset, user: "root", uid: 0, perm, program,
});

const ORACLE_ROWS: TriggerRow[] = [
  row(1, "job", "27", ["fini"]),
  row(2, "job", "27", ["time"], -300, false, "/bin/echo hi"),
  row(3, "job", "27", ["down"], 0, true),
  row(5, "job", "27", ["down", "fini"]),
  row(8, "node", "*", ["down"]),
  row(9, "node", "n[1-2]", ["drained"]),
  row(10, "node", "n3", ["idle"], 600),
  row(11, "node", "n4", ["up"], 0, true, "/bin/true a b"),
  row(13, "slurmctld", "*", ["primary_slurmctld_failure"]),
];

const ORACLE_GET = `TRIG_ID RES_TYPE   RES_ID TYPE                                OFFSET USER     FLAGS PROGRAM
      1 job            27 fini                                     0 root           /bin/true
      2 job            27 time                                  -300 root           /bin/echo hi
      3 job            27 down                                     0 root     PERM  /bin/true
      5 job            27 unknown                                  0 root           /bin/true
      8 node            * down                                     0 root           /bin/true
      9 node       n[1-2] drained                                  0 root           /bin/true
     10 node           n3 idle                                   600 root           /bin/true
     11 node           n4 up                                       0 root     PERM  /bin/true a b
     13 slurmctld       * primary_slurmctld_failure                0 root           /bin/true
`;

function fakePort(rows: TriggerRow[] = ORACLE_ROWS, fail?: string) {
  const calls: { method: string; req: unknown }[] = [];
  const ctl = {
    listTriggers: async () => ({ triggers: rows }),
    setTrigger: async (req: unknown) => {
      calls.push({ method: "set", req });
      if (fail !== undefined) throw new RpcError("permission_denied", fail);
      return { triggerId: 1 };
    },
    clearTrigger: async (req: unknown) => {
      calls.push({ method: "clear", req });
      if (fail !== undefined) throw new RpcError("not_found", fail);
      return {};
    },
  } as unknown as ControllerPort;
  const port = { ctl, env: {}, now: () => 0 } as unknown as CliPort;
  return { port, calls };
}

const host = {
  fileKind: (p: string) => (p === "/bin/true" || p === "/bin/echo" ? ("file" as const) : p === "/tmp" ? ("other" as const) : ("missing" as const)),
  uidOf: (u: string) => (u === "root" || u === "0" ? 0 : u === "nobody" ? 65534 : undefined),
};

/** Words split at spaces; `+` stands for a space inside one word. */
const run = async (line: string, p = fakePort()) => striggerMain(line === "" ? [] : line.split(" ").map((w) => w.replaceAll("+", " ")), p.port, host);

describe("strigger --get", () => {
  it("prints the oracle's table byte for byte", async () => {
    expect((await run("--get")).stdout).toBe(ORACLE_GET);
    expect((await run("--get -N")).stdout).toBe(ORACLE_GET.split("\n").slice(1).join("\n"));
  });

  it("filters as strigger does: --jobid, --node (any value), node events only on node triggers, --fini/--time on the job", async () => {
    const ids = async (line: string) => (await run(`${line} -N`)).stdout.split("\n").filter(Boolean).map((l) => Number(l.slice(0, 7)));
    expect(await ids("--get --id=2")).toEqual([2]);
    expect(await ids("--get --down")).toEqual([8]);
    expect(await ids("--get --jobid=27 --down")).toEqual([]);
    expect(await ids("--get --node=n1")).toEqual([8, 9, 10, 11]);
    expect(await ids("--get --jobid=27 --fini")).toEqual([1]);
    expect(await ids("--get --time --jobid=27")).toEqual([2]);
    expect(await ids("--get --reconfig")).toEqual([1, 2, 3, 5, 8, 9, 10, 11, 13]);
    expect(await ids("--get --user=nobody")).toEqual([]);
  });

  it("prints nothing at all (no header) when nothing matches", async () => {
    expect(await run("--get --id=999")).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(await run("--get", fakePort([]))).toEqual({ stdout: "", stderr: "", exitCode: 0 });
  });
});

describe("strigger's checks (the oracle's wording and order)", () => {
  const err = async (line: string) => {
    const r = await run(line);
    expect(r.exitCode).toBe(1);
    return r.stderr;
  };
  it("refuses before calling the controller", async () => {
    expect(await err("")).toBe("strigger: error: You must use exactly one of the following options: --set, --get or --clear\n");
    expect(await err("--set --get")).toBe("strigger: error: You must use exactly one of the following options: --set, --get or --clear\n");
    expect(await err("--clear")).toBe("strigger: error: You must specify a --id, --jobid, or --user to clear\n");
    expect(await err("--set --jobid=27 --program=/bin/true")).toMatch(/^strigger: error: You must specify a trigger \(--down, --up,.*\n--primary_database_resumed_operation\)\n\n$/s);
    expect(await err("--set --fini --program=x")).toBe("strigger: error: You must specify a --jobid value\n");
    expect(await err("--clear --fini --id=3")).toBe("strigger: error: You must specify a --jobid value\n");
    expect(await err("--set --jobid=27 --fini")).toBe("strigger: error: You must specify a --program value\n");
    expect(await err("--set --down --program=x")).toBe('strigger: error: The --program value must start with "/"\n');
    expect(await err("--set --down --program=/nonexist/x")).toBe("strigger: error: Invalid --program value, file not found\n");
    expect(await err("--set --down --program=/tmp")).toBe("strigger: error: Invalid --program value, not regular file\n");
    expect(await err("--set --down --offset=99999999 --program=/bin/true")).toBe("strigger: error: The --offset parameter must be between +/-32000\n");
    expect(await err("--set --jobid=abc --fini --program=/bin/true")).toBe("strigger: error: Invalid jobid abc\n");
    expect(await err("--set --jobid=27 --fini --flags=foo --program=/bin/true")).toBe("strigger: error: Invalid flags foo\n");
    expect(await err("--get --user=bogususer")).toBe("strigger: error: Invalid user bogususer\n");
    expect(await err("--bogus")).toBe("strigger: unrecognized option '--bogus'\nTry \"strigger --help\" for more information\n");
  });
});

describe("strigger --set / --clear", () => {
  it("sends the resource and events: a job wins over --node, --node without a list is every node, daemons by their event", async () => {
    const p = fakePort();
    for (const line of [
      "--set --jobid=27 --node=n1 --down --program=/bin/true",
      "--set --node --down --program=/bin/true",
      "-nn3 --set --idle --offset=600 --flags=perm --program=/bin/echo+hi",
      "--set --reconfig --program=/bin/true",
      "--set -a --program=/bin/true",
      "--set --jobid=27 --fini --down --offset=abc --program=/bin/true",
    ]) expect(await run(line, p)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(p.calls.map((c) => c.req)).toEqual([
      { resType: "job", resId: "27", types: ["down"], offset: 0, perm: false, program: "/bin/true" },
      { resType: "node", resId: "*", types: ["down"], offset: 0, perm: false, program: "/bin/true" },
      { resType: "node", resId: "n3", types: ["idle"], offset: 600, perm: true, program: "/bin/echo hi" },
      { resType: "node", resId: "*", types: ["reconfig"], offset: 0, perm: false, program: "/bin/true" },
      { resType: "slurmctld", resId: "*", types: ["primary_slurmctld_failure"], offset: 0, perm: false, program: "/bin/true" },
      { resType: "job", resId: "27", types: ["down", "fini"], offset: 0, perm: false, program: "/bin/true" },
    ]);
  });

  it("prints the controller's refusal after slurm_set_trigger: / slurm_clear_trigger:; -Q silences a failed clear", async () => {
    const denied = fakePort(ORACLE_ROWS, "Access/permission denied");
    expect(await run("--set --node --down --program=/bin/true", denied)).toEqual({ stdout: "", stderr: "slurm_set_trigger: Access/permission denied\n", exitCode: 1 });
    const gone = fakePort(ORACLE_ROWS, "No such process");
    expect(await run("--clear --id=999", gone)).toEqual({ stdout: "", stderr: "slurm_clear_trigger: No such process\n", exitCode: 1 });
    expect(await run("--clear -Q --id=999", gone)).toEqual({ stdout: "", stderr: "", exitCode: 0 });
    expect(gone.calls.at(-1)).toEqual({ method: "clear", req: { triggerId: 999, jobId: 0 } });
    await run("--clear --user=root", gone);
    expect(gone.calls.at(-1)).toEqual({ method: "clear", req: { triggerId: 0, jobId: 0, uid: 0 } });
  });
});
