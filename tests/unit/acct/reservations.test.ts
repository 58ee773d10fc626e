/**
 * Reservations: create/update/delete through apply (names, NodeCnt picking,
 * busy nodes, periodic windows), their effect on scheduling (other jobs keep
 * off reserved nodes for their whole run; reservation jobs wait for the window
 * with reason Reservation and use only its nodes), submit checks, and the
 * scontrol/sinfo text.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, ROOT, cluster, spec, submit } from "../sched/builders.ts";
import type { Command, Requester } from "../../../src/sched/model/commands.ts";
import { reservationNodeFlags, windowAt } from "../../../src/sched/resv/types.ts";
import { nodeStateStrings } from "../../../src/compat/node-states.ts";
import { resvFields, resvRecordText, sinfoReservations } from "../../../src/cli/scontrol-resv.ts";

process.env.TZ = "UTC";

const resv = (action: "create" | "update" | "delete", name: string, fields: Record<string, string>, by: Requester = ROOT, at = 1000): Command => ({
  v: 1, type: "reservation", at, action, name, fields, by,
});

const CONF = `ClusterName=r
DefMemPerCPU=100
NodeName=n[1-3] CPUs=2 RealMemory=2000
PartitionName=debug Nodes=n[1-3] Default=YES MaxTime=INFINITE
`;

function pass(c: ReturnType<typeof cluster>, now: number) {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  return r;
}

describe("reservations", () => {
  it("are created with a default name and the first free nodes, updated and deleted", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ timeLimitMin: 600 }), 10));
    pass(c, 20);
    const r = c.run(resv("create", "", { starttime: "1000", duration: "60", users: "alice", nodecnt: "2" }));
    expect(r.text).toBe("alice_1");
    // n1 runs a job past the start: it is not picked.
    expect(c.state.reservations.get("alice_1")?.nodes).toEqual(["n2", "n3"]);
    expect(c.run(resv("create", "x", { starttime: "1000", duration: "60", users: "bob", nodecnt: "2" })).error).toContain("busy");
    expect(c.run(resv("create", "x", { starttime: "1000", duration: "60", nodes: "n1" })).error).toContain("Users or Accounts");
    expect(c.run(resv("update", "alice_1", { duration: "120", flags: "+MAINT" })).error).toBe("");
    expect(c.state.reservations.get("alice_1")).toMatchObject({ endTime: 1000 + 7200, flags: ["MAINT"] });
    expect(c.run(resv("create", "y", { starttime: "1000", users: "bob", nodes: "n1" }, ALICE)).errorCode).toBe("AccessDenied");
    expect(c.run(resv("delete", "alice_1", {})).error).toBe("");
    expect(c.run(resv("delete", "alice_1", {})).error).toBe("Requested reservation is invalid");
  });

  it("deleted after they started, are kept for sreport ending at the deletion; deleted before, are not (slurmdbd; oracle 22.05)", () => {
    const c = cluster(CONF);
    c.run(resv("create", "early", { starttime: "1000", duration: "30", users: "alice", nodes: "n1" }, ROOT, 900));
    c.run(resv("create", "daily", { starttime: "1000", duration: "60", users: "alice", nodes: "n2", flags: "DAILY" }, ROOT, 900));
    c.run(resv("create", "later", { starttime: "5000", duration: "60", users: "alice", nodes: "n3" }, ROOT, 900));
    expect(c.run(resv("delete", "early", {}, ROOT, 1437)).error).toBe("");
    expect(c.run(resv("delete", "later", {}, ROOT, 1500)).error).toBe("");
    // the DAILY one deleted during its second day's window: that window, up to the deletion (earlier days are not kept)
    expect(c.run(resv("delete", "daily", {}, ROOT, 86400 + 1000 + 3600 - 100)).error).toBe("");
    expect(c.state.reservations.size).toBe(0);
    expect(c.state.deletedReservations?.map((r) => [r.name, r.startTime, r.endTime, r.flags])).toEqual([
      ["early", 1000, 1437, []], ["daily", 86400 + 1000, 86400 + 1000 + 3500, []],
    ]);
  });

  it("roll DAILY windows forward", () => {
    const r = { name: "d", startTime: 0, endTime: 3600, nodes: [], users: ["a"], accounts: [], flags: ["DAILY"], partition: "", cores: 0 };
    expect(windowAt(r, 1800)).toEqual({ start: 0, end: 3600 });
    expect(windowAt(r, 86400 + 10)).toEqual({ start: 86400, end: 90000 });
    expect(windowAt(r, 3 * 86400 + 4000)).toEqual({ start: 4 * 86400, end: 4 * 86400 + 3600 });
  });

  it("keep other jobs off reserved nodes and let reservation jobs in only during the window", () => {
    const c = cluster(CONF);
    c.run(resv("create", "maint", { starttime: "5000", duration: "60", nodes: "n[1-2]", users: "root", flags: "MAINT,IGNORE_JOBS" }));
    // A 2-hour job at t=100 would overlap the window on n1/n2: it goes to n3.
    c.run(submit(spec({ timeLimitMin: 120 }), 100));
    c.run(submit(spec({ reservation: "maint", timeLimitMin: 10 }), 100));
    const r1 = pass(c, 100);
    expect(c.state.jobs.get(1)?.info.nodelist).toBe("n3");
    expect(r1.reasons.get(2)).toBe("Reservation");
    pass(c, 5000);
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
    expect(["n1", "n2"]).toContain(c.state.jobs.get(2)?.info.nodelist);
    // A short job that ends before the window may use the reserved nodes.
    const c2 = cluster(CONF);
    c2.run(resv("create", "later", { starttime: "90000", duration: "60", nodes: "n[1-3]", users: "root" }));
    c2.run(submit(spec({ timeLimitMin: 10 }), 100));
    pass(c2, 100);
    expect(c2.state.jobs.get(1)?.info.state).toBe("RUNNING");
  });

  it("check --reservation at submission", () => {
    const c = cluster(CONF);
    c.run(resv("create", "rootonly", { starttime: "100", duration: "60", nodes: "n1", users: "root" }));
    expect(c.run(submit(spec({ reservation: "nope" }), 100)).error).toBe("Requested reservation is invalid");
    expect(c.run(submit(spec({ reservation: "rootonly" }), 100, ALICE)).error).toBe("Access denied to requested reservation");
    expect(c.run(submit(spec({ reservation: "rootonly" }), 100)).error).toBe("");
  });

  it("print as scontrol and sinfo -T do", () => {
    const info = { name: "maint", startTime: 86400, endTime: 90000, nodes: "n[1-2]", nodeCount: 2, coreCount: 4, users: ["root"], accounts: [], flags: ["MAINT"], partition: "", state: "ACTIVE" };
    expect(resvRecordText(info, false)).toBe(
      "ReservationName=maint StartTime=1970-01-02T00:00:00 EndTime=1970-01-02T01:00:00 Duration=01:00:00\n" +
        "   Nodes=n[1-2] NodeCnt=2 CoreCnt=4 Features=(null) PartitionName=(null) Flags=MAINT\n   TRES=cpu=4\n" +
        "   Users=root Groups=(null) Accounts=(null) Licenses=(null) State=ACTIVE BurstBuffer=(null) Watts=n/a\n   MaxStartDelay=(null)\n\n",
    );
    expect(sinfoReservations([info], true)).toBe(
      "RESV_NAME        STATE          START_TIME             END_TIME     DURATION  NODELIST\n" +
        "maint           ACTIVE 1970-01-02T00:00:00  1970-01-02T01:00:00     01:00:00  n[1-2]\n",
    );
    expect(resvFields(["StartTime=now+60", "Duration=30", "User=root"], 1000)).toEqual({ starttime: "1060", duration: "30", users: "root" });
    // Slurm takes the keys by an unambiguous prefix: `create reservation start=now dur=10 ...`
    expect(resvFields(["start=now", "dur=10", "User=root", "nodes=n1"], 1000)).toEqual({ starttime: "1000", duration: "10", users: "root", nodes: "n1" });
    expect(resvFields(["node=n1"], 1000)).toEqual({ node: "n1" }); // nodes or nodecnt: left as written
  });
});

// ---- property: no job runs on another reservation's nodes during its windows ------------------

import { createRng } from "../../../src/lib/rng.ts";
import type { ResvRecord } from "../../../src/sched/resv/types.ts";

/** Brute force, independent of the code under test: every window from the first, repeated for DAILY/WEEKLY. */
function meets(r: ResvRecord, from: number, to: number): boolean {
  const period = r.flags.includes("DAILY") ? 86400 : r.flags.includes("WEEKLY") ? 7 * 86400 : 0;
  for (let k = 0; k <= (period > 0 ? 1000 : 0); k++) {
    if (r.startTime + k * period < to && from < r.endTime + k * period) return true;
  }
  return false;
}

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 30) }, (_, i) => i + 1);

describe("reservation property", () => {
  it(`a started job never meets a window of a reservation that is not its own (${SEEDS.length} seeds)`, { timeout: 60_000 }, () => {
    let started = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = cluster(CONF.replace("n[1-3]", "n[1-6]").replace("n[1-3]", "n[1-6]"));
        const names: string[] = [];
        for (let k = rng.int(1, 3); k > 0; k--) {
          const flags = rng.pick(["", "DAILY", "MAINT", "IGNORE_JOBS"]);
          const r = c.run(resv("create", "", { starttime: String(rng.int(0, 20_000)), duration: String(rng.pick([30, 120, 600])), users: "root", nodecnt: String(rng.int(1, 2)), flags: flags || "IGNORE_JOBS" }, ROOT, 0));
          if (r.error === "") names.push(r.text as string);
        }
        let now = 0;
        for (let round = 0; round < 10; round++) {
          for (let k = rng.int(1, 4); k > 0; k--) {
            const own = rng.next() < 0.3 && names.length > 0 ? rng.pick(names) : "";
            c.run(submit(spec({ timeLimitMin: rng.pick([10, 60, 600, 3000]), ntasks: rng.int(1, 2), reservation: own }), now));
          }
          const r = schedule(c.state, now);
          for (const d of r.decisions) {
            const job = c.state.jobs.get(d.jobId)!;
            const end = now + (job.info.timeLimitMin ?? 0) * 60;
            for (const res of c.state.reservations.values()) {
              const onIt = d.alloc.some((a) => res.nodes.includes(a.node));
              if (res.name === job.info.reservation) {
                expect(d.alloc.every((a) => res.nodes.includes(a.node)), "a reservation job stays on its nodes").toBe(true);
              } else if (onIt) {
                expect(meets(res, now, end), `job ${d.jobId} meets ${res.name}`).toBe(false);
              }
            }
          }
          started += r.decisions.length;
          if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
          now += rng.int(600, 6000);
          for (const j of [...c.state.jobs.values()]) {
            if (j.info.state === "RUNNING" && j.info.startTime + (j.info.timeLimitMin ?? 0) * 60 <= now) {
              c.run({ v: 1, type: "jobEnded", at: now, jobId: j.info.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
            }
          }
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/acct/reservations.test.ts): ${String(error)}`);
      }
    }
    if (SEEDS.length >= 10) expect(started).toBeGreaterThan(SEEDS.length * 5);
  });

  it("mark the idle nodes of an active reservation RESERVED (sinfo resv), MAINT ones MAINT (sinfo maint)", () => {
    const c = cluster(CONF);
    c.run(resv("create", "plain", { starttime: "1000", duration: "60", users: "alice", nodes: "n1" }));
    c.run(resv("create", "maint", { starttime: "1000", duration: "60", users: "root", nodes: "n2", flags: "MAINT" }));
    expect(reservationNodeFlags(c.state.reservations, 999).size).toBe(0); // not yet active
    const flags = reservationNodeFlags(c.state.reservations, 1010);
    expect(flags.get("n1")).toEqual(["RESERVED"]);
    expect(flags.get("n2")).toEqual(["RESERVED", "MAINT"]);
    expect(flags.has("n3")).toBe(false);
    expect(nodeStateStrings({ state: "IDLE", stateFlags: flags.get("n1") ?? [] })).toEqual(["RESERVED", "RESV"]);
    expect(nodeStateStrings({ state: "IDLE", stateFlags: flags.get("n2") ?? [] })).toEqual(["MAINT", "MAINT"]);
    expect(reservationNodeFlags(c.state.reservations, 1000 + 3600).size).toBe(0); // ended (Duration is in minutes)
  });
});
