/**
 * `scontrol listpids` (22.05's columns, order and messages, as the oracle printed them): the
 * header, numbered steps before the batch step, task rows with their local and global ids, "-"
 * for other processes of a step, which node agents are asked (this host's, or the one named),
 * and the not-found texts.
 */
import { describe, expect, it } from "vitest";
import { scontrolMain } from "../../../src/cli/scontrol.ts";
import { LISTPIDS_HEADER, formatPidRow } from "../../../src/cli/scontrol-listpids.ts";
import { statProcessGroup } from "../../../src/agent/list-pids.ts";
import { fakePort } from "./helpers.ts";

const node = (name: string, addr: string, port: number) => ({ name, addr, hostname: addr, port }) as never;

function world() {
  const { port } = fakePort({ now: 1000, nodes: [node("n1", "127.0.0.1", 7001), node("n2", "127.0.0.1", 7002), node("x9", "far.example", 7009)] });
  const asked: number[] = [];
  port.agentListPids = async (_addr, p, req) => {
    asked.push(p);
    if (p !== 7002) return { rows: [], steps: [] };
    const rows = [
      { pid: 4100, jobId: 7, stepId: -5, localId: 0, globalId: 0 },
      { pid: 4123, jobId: 7, stepId: -5, localId: -1, globalId: -1 },
      { pid: 4200, jobId: 7, stepId: 0, localId: 1, globalId: 3 },
    ].filter((r) => (req.jobId === 0 || r.jobId === req.jobId) && (req.stepId === undefined || r.stepId === req.stepId));
    return { rows, steps: ["7.batch", "7.0"] };
  };
  return { run: (...argv: string[]) => scontrolMain(argv, port), asked };
}

describe("scontrol listpids", () => {
  it("prints Slurm's header and rows from this host's node agents", async () => {
    const w = world();
    const r = await w.run("listpids");
    expect(r).toEqual({
      stdout: `${LISTPIDS_HEADER}4200     7        0        1       3       \n4100     7        batch    0       0       \n4123     7        batch    -       -       \n`,
      stderr: "", exitCode: 0,
    });
    expect(LISTPIDS_HEADER).toBe("PID      JOBID    STEPID   LOCALID GLOBALID\n");
    expect(w.asked).toEqual([7001, 7002]);
  });

  it("selects a job, a step and a node; a step that is not a number lists nothing, successfully", async () => {
    const w = world();
    expect((await w.run("listpids", "7.0")).stdout.split("\n").slice(1, -1)).toEqual(["4200     7        0        1       3       "]);
    expect(await w.run("listpids", "7.batch")).toEqual({ stdout: LISTPIDS_HEADER, stderr: '"7.batch" does not look like a stepid\n', exitCode: 0 });
    const one = world();
    expect((await one.run("listpids", "7", "n2")).exitCode).toBe(0);
    expect(one.asked).toEqual([7002]);
  });

  it("says what does not exist here, as Slurm", async () => {
    const w = world();
    expect(await w.run("listpids", "8", "n2")).toEqual({ stdout: LISTPIDS_HEADER, stderr: "There are no steps for job 8 on node n2.\n", exitCode: 1 });
    expect((await w.run("listpids", "8", "n1")).stderr).toBe("JobId=8 does not exist on node n1.\n");
    expect((await w.run("listpids", "7.4", "n2")).stderr).toBe("StepId=7.4 does not exist on node n2.\n");
    expect(await w.run("listpids", "abc")).toEqual({ stdout: "", stderr: '"abc" does not look like a jobid\n', exitCode: 1 });
    expect((await w.run("listpids", "*", "x9")).stderr).toBe("No job steps exist on this node.\n");
    expect((await w.run("listpids", "1", "n1", "extra")).stderr).toBe("too many arguments for keyword:listpids\n");
  });

  it("formats extern steps and reads process groups from /proc/<pid>/stat", () => {
    expect(formatPidRow({ pid: 1, jobId: 2, stepId: -4, localId: -1, globalId: -1 })).toBe("1        2        extern   -       -       \n");
    expect(statProcessGroup("4123 (sleep (x) 1) S 4100 4100 4100 0 -1")).toBe(4100);
  });
});

describe("scontrol --json listpids", () => {
  it("prints OPENAPI_LISTPIDS_INFO_RESP: pids with unset task ids for non-tasks, valid against /openapi/v3 in every version", async () => {
    const { validate } = await import("../../../src/net/rest/schema.ts");
    const { ListPidsResp } = await import("../../../src/net/rest/cli-steps.ts");
    const { VERSIONS } = await import("../../../src/net/rest/versions.ts");
    const { createFixture } = await import("../rest/fixture.ts");
    const { check } = await import("../rest/openapi-check.ts");
    const fx = await createFixture();
    const d = (await (await fx.app.request("/openapi/v3")).json()) as Parameters<typeof check>[0];
    for (const v of VERSIONS) {
      const r = await world().run(`--json=${v}`, "listpids", "7");
      expect(r.exitCode, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout) as { pids: { pid: number; step_id: string; local_task_id: { set: boolean; number: number } }[]; meta: { command: string[] } };
      expect(out.pids.map((p) => [p.pid, p.step_id, p.local_task_id.set ? p.local_task_id.number : "-"])).toEqual([[4200, "0", 1], [4100, "batch", 0], [4123, "batch", "-"]]);
      expect(out.meta.command).toEqual(["scontrol", `--json=${v}`, "listpids", "7"]);
      expect(check(d, { $ref: `#/components/schemas/${v}_openapi_listpids_info_resp` }, out)).toEqual([]);
      expect(validate(ListPidsResp.node, out, { rejectUnknown: true, version: Number(v.slice(5)) })).toEqual([]);
    }
    const none = await world().run("--json", "listpids", "8", "n1");
    expect([JSON.parse(none.stdout).pids, none.stderr, none.exitCode]).toEqual([[], "JobId=8 does not exist on node n1.\n", 1]);
  });
});
