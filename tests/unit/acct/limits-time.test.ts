/**
 * Limits over time (issue 20): usage decayed with PriorityDecayHalfLife from job records at a
 * given `now`, MaxTRESMins per job, GrpTRESMins (GPU-minutes above all) and GrpWall on
 * associations and QOS, with Slurm's pending reasons; the time limit a job without one gets
 * from MaxTRESMins; sacctmgr's and sshare -l's columns.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, CONF, cluster, spec, submit } from "../sched/builders.ts";
import { acct } from "./helpers.ts";
import { acctRows } from "../../../src/sched/acct/acct-rows.ts";
import { jobTimeUsage, tresRunMinsText, usageMinutes, zeroTres, type TimeUsage } from "../../../src/sched/acct/usage.ts";
import { jobTresMinutes, overGroup, overPerJob } from "../../../src/sched/acct/limits-time.ts";
import { shareLimitColumns } from "../../../src/sched/acct/share-columns.ts";
import type { JobRecord } from "../../../src/sched/model/types.ts";

const HOUR = 3600;
const T0 = 1_000_000;
const enforced = (extra = "") => `${CONF}AccountingStorageEnforce=associations,limits,qos${extra}\nAccountingStorageTRES=gres/gpu\n`;

function withAlice(conf: string) {
  const c = cluster(conf);
  c.run(acct({ action: "add", entity: "account", names: ["phys"] }));
  c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys" } }));
  return c;
}

/** One scheduling pass at `now`, its starts committed; the pending reasons. */
function pass(c: ReturnType<typeof cluster>, now: number): Map<number, string> {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  return r.reasons;
}

const end = (c: ReturnType<typeof cluster>, jobId: number, at: number) =>
  c.run({ v: 1, type: "jobEnded", at, jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });

const record = (info: Partial<JobRecord["info"]>): Pick<JobRecord, "info"> => ({
  info: { state: "COMPLETED", startTime: 0, endTime: 0, qos: "normal", ...info } as JobRecord["info"],
});

describe("usage over time (pure)", () => {
  const gpus = { ...zeroTres(), cpu: 2, "gres/gpu": 4 };

  it("TRES-seconds and wall seconds, plain without decay, halved per half-life", () => {
    const job = record({ startTime: T0, endTime: T0 + HOUR });
    const plain = jobTimeUsage(job, gpus, T0 + HOUR, 0, 1);
    expect([plain.wallSec, plain.tresSec.cpu, plain.tresSec["gres/gpu"]]).toEqual([HOUR, 2 * HOUR, 4 * HOUR]);
    // one half-life after the job ended, what it used counts half
    const later = jobTimeUsage(job, gpus, T0 + 2 * HOUR, HOUR, 1);
    const atEnd = jobTimeUsage(job, gpus, T0 + HOUR, HOUR, 1);
    expect(later.wallSec).toBeCloseTo(atEnd.wallSec / 2, 6);
    expect(atEnd.wallSec).toBeCloseTo(HOUR / (2 * Math.LN2), 6);
    // the QOS's UsageFactor scales it
    expect(jobTimeUsage(job, gpus, T0 + HOUR, 0, 2).tresSec.cpu).toBe(4 * HOUR);
  });

  it("a running job's TRESRunMins: TRES x time left before its limit; none without a limit", () => {
    const running = record({ state: "RUNNING", startTime: T0, timeLimitMin: 60 });
    expect(jobTimeUsage(running, gpus, T0 + 20 * 60, 0, 1).runMin).toEqual({ cpu: 80, mem: 0, node: 0, "gres/gpu": 160 });
    expect(jobTimeUsage(record({ state: "RUNNING", startTime: T0 }), gpus, T0 + 60, 0, 1).runMin["gres/gpu"]).toBe(0);
    const u: TimeUsage = { tresSec: zeroTres(), wallSec: 0, runMin: { cpu: 80, mem: 0, node: 0, "gres/gpu": 160 } };
    expect(tresRunMinsText(u, ["cpu", "mem", "energy", "node", "billing", "fs/disk", "vmem", "pages", "gres/gpu"])).toBe(
      "cpu=80,mem=0,energy=0,node=0,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=160",
    );
  });

  it("group minutes: used minutes reaching the limit hold a job asking for that TRES; safe also counts what is to run", () => {
    const used: TimeUsage = { tresSec: { ...zeroTres(), "gres/gpu": 600 * 60 }, wallSec: 0, runMin: { ...zeroTres(), "gres/gpu": 50 } };
    const wantsGpus = jobTresMinutes({ ...zeroTres(), cpu: 1, "gres/gpu": 2 }, 30);
    const cpuOnly = jobTresMinutes({ ...zeroTres(), cpu: 1 }, 30);
    expect(usageMinutes(used, "gres/gpu")).toBe(600);
    expect(overGroup({ "gres/gpu": 600 }, used, wantsGpus, false)).toBe("gres/gpu");
    expect(overGroup({ "gres/gpu": 600 }, used, cpuOnly, false)).toBeUndefined();
    expect(overGroup({ "gres/gpu": 700 }, used, wantsGpus, false)).toBeUndefined();
    // safe: 60 asked + 50 still to run > 700 - 600 left
    expect(overGroup({ "gres/gpu": 700 }, used, wantsGpus, true)).toBe("gres/gpu");
    expect(overGroup({ "gres/gpu": 710 }, used, wantsGpus, true)).toBeUndefined();
  });

  it("per-job minutes: TRES x time limit; a job without a time limit exceeds any", () => {
    expect(overPerJob({ cpu: 100 }, jobTresMinutes({ ...zeroTres(), cpu: 4 }, 25))).toBeUndefined();
    expect(overPerJob({ cpu: 100 }, jobTresMinutes({ ...zeroTres(), cpu: 4 }, 26))).toBe("cpu");
    expect(overPerJob({ cpu: 100 }, jobTresMinutes({ ...zeroTres(), cpu: 4 }, undefined))).toBe("cpu");
    expect(overPerJob({ "gres/gpu": 100 }, jobTresMinutes({ ...zeroTres(), cpu: 4 }, undefined))).toBeUndefined();
  });
});

describe("limits over time in scheduling", () => {
  it("a GPU-minute limit (GrpTRESMins=gres/gpu=600) holds the account's next GPU job with AssocGrpGRESMinutes until usage decays", () => {
    const c = withAlice(enforced("\nPriorityDecayHalfLife=01:00:00"));
    expect(c.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grptresmins: "gres/gpu=600" } })).error).toBe("");
    // 4 GPUs for 3 hours: 720 GPU-minutes used, under 300 once decayed with a one-hour half-life
    c.run(submit(spec({ gpusPerNode: "4", timeLimitMin: 240 }), 10, ALICE));
    pass(c, 20);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    end(c, 1, 20 + 3 * HOUR);
    c.run(submit(spec({ gpusPerNode: "1", timeLimitMin: 10 }), 3 * HOUR, ALICE));
    c.run(submit(spec({ timeLimitMin: 10 }), 3 * HOUR, ALICE));
    // the same workload without decay: 720 GPU-minutes stay counted
    const c2 = withAlice(enforced("\nPriorityDecayHalfLife=0"));
    c2.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grptresmins: "gres/gpu=600" } }));
    c2.run(submit(spec({ gpusPerNode: "4", timeLimitMin: 240 }), 10, ALICE));
    pass(c2, 20);
    end(c2, 1, 20 + 3 * HOUR);
    c2.run(submit(spec({ gpusPerNode: "1", timeLimitMin: 10 }), 3 * HOUR, ALICE));
    c2.run(submit(spec({ timeLimitMin: 10 }), 3 * HOUR, ALICE));
    const held = pass(c2, 3 * HOUR + 100);
    expect(held.get(2)).toBe("AssocGrpGRESMinutes");
    // a job that asks for no GPU is not held by a GPU-minute limit
    expect(c2.state.jobs.get(3)?.info.state).toBe("RUNNING");
    expect(pass(c2, 30 * HOUR).get(2)).toBe("AssocGrpGRESMinutes");
    // with a one-hour half-life, 720 GPU-minutes used decay below 600 and the job starts
    expect(pass(c, 3 * HOUR + 100).get(2)).toBeUndefined();
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
  });

  it("the same pass at the same `now` gives the same reasons (usage comes from committed state)", () => {
    const build = () => {
      const c = withAlice(enforced());
      c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { grptresmins: "cpu=30" } }));
      c.run(submit(spec({ ntasks: 2, timeLimitMin: 60 }), 10, ALICE));
      pass(c, 20);
      end(c, 1, 20 + 20 * 60);
      c.run(submit(spec({ timeLimitMin: 5 }), 2000, ALICE));
      return c;
    };
    const a = schedule(build().state, 5000);
    const b = schedule(build().state, 5000);
    expect(a.reasons.get(2)).toBe("AssocGrpCPUMinutesLimit");
    expect([...b.reasons]).toEqual([...a.reasons]);
  });

  it("GrpWall on a QOS (QOSGrpWallLimit), MaxTRESMins per job (AssocMaxCpuMinutesPerJobLimit, QOSMaxGRESMinutesPerJob)", () => {
    const c = withAlice(enforced("\nPriorityDecayHalfLife=0"));
    c.run(acct({ action: "add", entity: "qos", names: ["short"], set: { grpwall: "10", maxtresmins: "gres/gpu=60" } }));
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { qos: "normal,short", maxtresmins: "cpu=100" } }));
    c.run(submit(spec({ qos: "short", timeLimitMin: 30 }), 10, ALICE));
    pass(c, 20);
    end(c, 1, 20 + 11 * 60);
    c.run(submit(spec({ qos: "short", timeLimitMin: 5 }), 1000, ALICE));
    c.run(submit(spec({ ntasks: 4, timeLimitMin: 30 }), 1000, ALICE));
    c.run(submit(spec({ gpusPerNode: "4", timeLimitMin: 20 }), 1000, ALICE));
    const q = c.run(acct({ action: "add", entity: "qos", names: ["gpuq"], set: { maxtresmins: "gres/gpu=60" } }));
    expect(q.error).toBe("");
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { qos: "normal,short,gpuq" } }));
    c.run(submit(spec({ qos: "gpuq", gpusPerNode: "4", timeLimitMin: 20 }), 1000, ALICE));
    const reasons = pass(c, 1100);
    expect(reasons.get(2)).toBe("QOSGrpWallLimit");
    expect(reasons.get(3)).toBe("AssocMaxCpuMinutesPerJobLimit");
    expect(c.state.jobs.get(4)?.info.state).toBe("RUNNING");
    expect(reasons.get(5)).toBe("QOSMaxGRESMinutesPerJob");
  });

  it("a job without a time limit gets the longest one its TRES fit in MaxTRESMins", () => {
    const c = withAlice(enforced());
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxtresmins: "cpu=100" } }));
    c.run(submit(spec({ ntasks: 3 }), 10, ALICE));
    expect(c.state.jobs.get(1)?.info.timeLimitMin).toBe(33);
    pass(c, 20);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
  });

  it("safe: a job whose own TRES-minutes do not fit in what is left waits", () => {
    const c = withAlice(`${enforced()}`.replace("limits,qos", "limits,qos,safe"));
    c.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grptresmins: "cpu=100" } }));
    c.run(submit(spec({ timeLimitMin: 200 }), 10, ALICE));
    c.run(submit(spec({ timeLimitMin: 60 }), 10, ALICE));
    c.run(submit(spec({ timeLimitMin: 60 }), 10, ALICE));
    const reasons = pass(c, 20);
    expect(reasons.get(1)).toBe("AssocGrpCPUMinutesLimit");
    expect(c.state.jobs.get(2)?.info.state).toBe("RUNNING");
    // the second 60-minute job does not fit beside the 60 minutes the first still has to run
    expect(reasons.get(3)).toBe("AssocGrpCPUMinutesLimit");
  });
});

describe("what sacctmgr and sshare -l show", () => {
  it("GrpTRESMins, MaxTRESMins, GrpWall set and shown; TRESRunMins of running jobs", () => {
    const c = withAlice(enforced());
    expect(c.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grptresmins: "gres/gpu=600" } })).error).toBe("");
    expect(c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxtresmins: "cpu=100,gres/gpu=50", grpwall: "01:00:00" } })).error).toBe("");
    const rows = acctRows(c.state, "association", { account: "phys" });
    expect(Array.isArray(rows) && rows.map((r) => [r.user, r.grptresmins, r.maxtresmins, r.grpwall])).toEqual([
      ["", "gres/gpu=600", "", ""],
      ["alice", "", "cpu=100,gres/gpu=50", "01:00:00"],
    ]);
    expect(c.run(acct({ action: "add", entity: "qos", names: ["q"], set: { grptresmins: "cpu=10", grpwall: "90" } })).error).toBe("");
    const q = acctRows(c.state, "qos", { name: "q" });
    expect(Array.isArray(q) && [q[0]?.grptresmins, q[0]?.grpwall]).toEqual(["cpu=10", "01:30:00"]);
    c.run(submit(spec({ gpusPerNode: "2", timeLimitMin: 10 }), 10, ALICE));
    pass(c, 20);
    const phys = [...c.state.acct.assocs.values()].find((a) => a.account === "phys" && a.user === "");
    const cols = shareLimitColumns(c.state, 20 + 60);
    expect(cols.get(phys?.id ?? -1)).toEqual({
      grpTresMins: "gres/gpu=600",
      tresRunMins: `cpu=${9 * (c.state.jobs.get(1)?.info.numCpus ?? 0)},mem=${9 * Math.floor(Number(c.state.jobs.get(1)?.info.alloc[0]?.memMib ?? 0))},energy=0,node=9,billing=0,fs/disk=0,vmem=0,pages=0,gres/gpu=18`,
    });
  });
});

describe("a node's accounted time (sreport's Reported)", () => {
  it("starts at the controller's first registration of the node and stays there when it registers again", () => {
    const c = cluster(CONF, false);
    const node = c.state.nodes.get("n1");
    expect(node?.info.firstRegisteredTime).toBeUndefined();
    c.run({ v: 1, type: "registerNode", at: 100, node: { ...(node?.info ?? {}), addr: "127.0.0.1" } as never, runningJobIds: [] });
    c.run({ v: 1, type: "registerNode", at: 500, node: { ...(node?.info ?? {}), addr: "127.0.0.1" } as never, runningJobIds: [] });
    expect([c.state.nodes.get("n1")?.info.firstRegisteredTime, c.state.nodes.get("n1")?.info.registeredTime]).toEqual([100, 500]);
  });
});
