/**
 * Backfill and priority on small hand-built clusters: EASY (a job starts out
 * of order only when it ends before the reservation of the job it passes),
 * reasons Resources vs Priority, planned starts for squeue --start, the
 * builtin scheduler for contrast, and multifactor priority with nice, holds
 * and an administrator's fixed value.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { explainPriority } from "../../../src/sched/plan/priority.ts";

/** A job's priority with factors from the pass's own context (what sprio shows). */
const explain = (c: { state: import("../../../src/sched/model/types.ts").ClusterState }, r: ReturnType<typeof schedule>, id: number) =>
  explainPriority(c.state.jobs.get(id)!, r.priorityContext);
import { ROOT, ALICE, cluster, spec, submit } from "./builders.ts";
import { acct } from "../acct/helpers.ts";

const FOUR = (extra = "") => `ClusterName=t
${extra}
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
`;

function startAll(c: ReturnType<typeof cluster>, at: number) {
  const r = schedule(c.state, at);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at, decisions: r.decisions });
  return r;
}

/** n1,n2 busy for 10 minutes; then a 4-node job, a short and a long 1-node job. */
function easyScene(extra = "") {
  const c = cluster(FOUR(extra));
  c.run(submit(spec({ nodesMin: 2, exclusive: true, timeLimitMin: 10 }), 10));
  startAll(c, 10);
  c.run(submit(spec({ name: "big", nodesMin: 4, exclusive: true, timeLimitMin: 30 }), 20));
  c.run(submit(spec({ name: "short", timeLimitMin: 5 }), 21));
  c.run(submit(spec({ name: "long", timeLimitMin: 20 }), 22));
  return c;
}

describe("backfill (EASY rule)", () => {
  it("starts a job that ends before the top job's reservation, holds back one that would delay it", () => {
    const c = easyScene();
    const r = schedule(c.state, 30);
    expect(r.decisions.map((d) => d.jobId)).toEqual([3]);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reasons.get(4)).toBe("Priority");
    const big = r.reservations.find((x) => x.jobId === 2);
    expect(big?.nodes).toEqual(["n1", "n2", "n3", "n4"]);
    // Job 1 ends at 10 + 600; the planner rounds up to bf_resolution (60 s) from now.
    expect(big?.startTime).toBeGreaterThanOrEqual(610);
    expect(big?.startTime).toBeLessThanOrEqual(670);
    // The long job is planned after the big one (Slurm reserves for every tested job by default).
    const long = r.reservations.find((x) => x.jobId === 4);
    expect(long?.startTime).toBe((big?.startTime ?? 0) + 1800);
    expect(r.stats.backfilled).toBe(1);
  });

  it("sched/builtin starts nothing behind a blocked job", () => {
    const c = easyScene("SchedulerType=sched/builtin");
    const r = schedule(c.state, 30);
    expect(r.decisions).toEqual([]);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reasons.get(3)).toBe("Priority");
    expect(r.reservations).toEqual([]);
  });

  it("bf_job_part_count_reserve=1 reserves only for the top job (plain EASY)", () => {
    const c = easyScene("SchedulerParameters=bf_job_part_count_reserve=1");
    const r = schedule(c.state, 30);
    expect(r.reservations.map((x) => x.jobId)).toEqual([2]);
  });

  it("gives no start time when a running job has no time limit (squeue --start shows N/A)", () => {
    const c = cluster(FOUR());
    c.run(submit(spec({ nodesMin: 1, exclusive: true }), 10));
    startAll(c, 10);
    c.run(submit(spec({ nodesMin: 4, exclusive: true, timeLimitMin: 5 }), 20));
    c.run(submit(spec({ timeLimitMin: 5 }), 21));
    const r = schedule(c.state, 30);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reservations).toEqual([]);
    // Nothing is reserved, so the small job may use the free nodes.
    expect(r.decisions.map((d) => d.jobId)).toEqual([3]);
  });

  it("bf_window bounds how far ahead a reservation is planned", () => {
    const c = cluster(FOUR("SchedulerParameters=bf_window=5"));
    c.run(submit(spec({ nodesMin: 4, exclusive: true, timeLimitMin: 60 }), 10));
    startAll(c, 10);
    c.run(submit(spec({ timeLimitMin: 5 }), 20));
    const r = schedule(c.state, 30);
    expect(r.reasons.get(2)).toBe("Resources");
    expect(r.reservations).toEqual([]);
  });

  it("is deterministic: the same snapshot and time give the same plan", () => {
    const a = schedule(easyScene().state, 30);
    const b = schedule(easyScene().state, 30);
    expect(JSON.stringify([a.decisions, [...a.reasons], a.reservations])).toBe(JSON.stringify([b.decisions, [...b.reasons], b.reservations]));
  });
});

const MULTI = `PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityWeightAge=1000
PriorityWeightJobSize=1000
PriorityWeightFairshare=10000
PriorityMaxAge=1-0`;

describe("multifactor priority", () => {
  it("sums weighted factors minus nice, and orders the queue by it", () => {
    const c = cluster(FOUR(MULTI));
    c.run(submit(spec({ nodesMin: 2, timeLimitMin: 5 }), 0));
    c.run(submit(spec({ nodesMin: 1, timeLimitMin: 5, nice: 100 }), 0, ALICE));
    const r = schedule(c.state, 43_200);
    const p1 = explain(c, r, 1);
    const p2 = explain(c, r, 2);
    // age 0.5 -> 500; size (2/4 nodes + 2/16 CPUs) / 2 -> 312.5; no usage yet -> fair share 1 -> 10000;
    // the sum is truncated as Slurm does.
    expect(p1?.factors.age).toBeCloseTo(0.5);
    expect(p1?.factors.jobSize).toBeCloseTo(0.3125);
    expect(p1?.priority).toBe(10_812);
    // size (1/4 + 1/16) / 2 -> 156.25; nice 100.
    expect(p2?.priority).toBe(500 + 156 + 10_000 - 100);
  });

  it("lowers the fair share of a user with usage", () => {
    const c = cluster(FOUR(MULTI));
    c.run(submit(spec({ ntasks: 4, timeLimitMin: 60 }), 1));
    startAll(c, 1);
    c.run(submit(spec({ timeLimitMin: 5 }), 100));
    c.run(submit(spec({ timeLimitMin: 5 }), 100, ALICE));
    const r = schedule(c.state, 1000);
    const root = explain(c, r, 2).factors.fairshare ?? 0;
    const alice = explain(c, r, 3).factors.fairshare ?? 0;
    // root used everything: U = 1, S = 1/2 -> 2^-2; alice used nothing -> 1.
    expect(root).toBeCloseTo(0.25);
    expect(alice).toBe(1);
    expect(r.priorities.get(3)!).toBeGreaterThan(r.priorities.get(2)!);
  });

  it("keeps a held job at 0 and an administrator's value as set", () => {
    const c = cluster(FOUR(MULTI));
    c.run(submit(spec({ timeLimitMin: 5, hold: true }), 0));
    c.run(submit(spec({ timeLimitMin: 5 }), 0));
    c.run({ v: 1, type: "updateJob", at: 1, jobIds: ["2"], action: "update", fields: { priority: "7" }, by: ROOT });
    const r = schedule(c.state, 500);
    expect(r.priorities.get(1)!).toBe(0);
    expect(r.reasons.get(1)).toBe("JobHeldUser");
    expect(r.priorities.get(2)!).toBe(7);
    expect(explain(c, r, 2).fixed).toBe(true);
  });

  it("priority/basic keeps the submission order value", () => {
    const c = cluster(FOUR());
    c.run(submit(spec({ timeLimitMin: 5 }), 0));
    const r = schedule(c.state, 500);
    expect(r.priorities.get(1)!).toBe(c.state.jobs.get(1)?.info.priority);
  });
});

describe("partition limits", () => {
  it("leaves jobs over MaxNodes or under MinNodes pending with PartitionNodeLimit", () => {
    const c = cluster(`ClusterName=t
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=small Nodes=n[1-4] Default=YES MaxNodes=2 MinNodes=1
`);
    c.run(submit(spec({ nodesMin: 3, timeLimitMin: 5 }), 10));
    c.run(submit(spec({ nodesMin: 2, timeLimitMin: 5 }), 10));
    const r = schedule(c.state, 20);
    expect(r.reasons.get(1)).toBe("PartitionNodeLimit");
    expect(r.decisions.map((d) => d.jobId)).toEqual([2]);
  });
});

describe("reasons for unavailable nodes", () => {
  it("says ReqNodeNotAvail with the unavailable nodes when only down or drained nodes could hold the job", () => {
    const c = cluster(FOUR());
    c.run({ v: 1, type: "updateNode", at: 5, nodes: ["n3", "n4"], state: "DRAIN", reason: "maint", by: ROOT });
    c.run(submit(spec({ nodesMin: 3, timeLimitMin: 5 }), 10));
    c.run(submit(spec({ nodesMin: 2, timeLimitMin: 5 }), 11));
    const r = schedule(c.state, 20);
    expect(r.reasons.get(1)).toBe("ReqNodeNotAvail, UnavailableNodes:n[3-4]");
    // The 3-node job never gets a reservation on two usable nodes; the 2-node job runs.
    expect(r.decisions.map((d) => d.jobId)).toEqual([2]);
  });

  it("keeps Resources when usable nodes are only busy", () => {
    const c = cluster(FOUR());
    c.run(submit(spec({ nodesMin: 4, exclusive: true, timeLimitMin: 5 }), 10));
    startAll(c, 10);
    c.run(submit(spec({ nodesMin: 1, timeLimitMin: 5 }), 11));
    expect(schedule(c.state, 20).reasons.get(2)).toBe("Resources");
  });
});

describe("--deadline", () => {
  it("ends a pending job that can no longer finish in time (DEADLINE, DeadLine), and only that one", () => {
    const c = cluster(FOUR());
    c.run(submit(spec({ nodesMin: 4, exclusive: true, timeLimitMin: 60 }), 10));
    startAll(c, 10);
    c.run(submit(spec({ timeLimitMin: 5, deadline: 400 }), 20));
    c.run(submit(spec({ timeLimitMin: 5, deadline: 100_000 }), 20));
    const r = schedule(c.state, 200);
    expect(r.expired).toEqual([2]);
    expect(r.reasons.get(2)).toBe("DeadLine");
    const applied = c.run({ v: 1, type: "deadlineExpired", at: 200, jobIds: r.expired });
    expect(applied.events).toEqual([{ type: "jobFinished", jobId: 2 }]);
    expect(c.state.jobs.get(2)?.info.state).toBe("DEADLINE");
    expect(c.state.jobs.get(3)?.info.state).toBe("PENDING");
    // Applying it again (a replay, or a stale pass) changes nothing.
    expect(c.run({ v: 1, type: "deadlineExpired", at: 201, jobIds: [2, 3] }).ids).toEqual([]);
  });
});

describe("partition rules", () => {
  const CONF = `ClusterName=t
NodeName=n[1-4] CPUs=4 RealMemory=4000
PartitionName=low Nodes=n[1-4] Default=YES PriorityTier=1
PartitionName=high Nodes=n[1-4] PriorityTier=2 OverSubscribe=EXCLUSIVE
PartitionName=closed Nodes=n[1-4] State=DRAIN
PartitionName=team Nodes=n[1-4] AllowAccounts=physics AllowGroups=physics
`;

  it("schedules a higher PriorityTier first, and gives whole nodes in an OverSubscribe=EXCLUSIVE partition", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ ntasks: 4, nodesMin: 4, ntasksPerNode: 1, timeLimitMin: 5 }), 10));
    c.run(submit(spec({ partition: "high", timeLimitMin: 5 }), 11));
    const r = schedule(c.state, 20);
    expect(r.decisions.map((d) => d.jobId)).toEqual([2]);
    expect(r.decisions[0]?.alloc[0]?.cpus).toBe(4);
    expect(r.reasons.get(1)).toBe("Resources");
  });

  it("refuses submissions to a drained partition and to partitions the group, account or QOS may not use", () => {
    const c = cluster(CONF + "PartitionName=gold Nodes=n[1-4] AllowQos=high\n");
    const PHYS = { uid: 1001, gid: 1001, user: "pat", group: "physics" };
    // the QOS exists (a QOS the database does not know is no QOS at all: the job's QOS is empty, as in 22.05)
    c.run(acct({ action: "add", entity: "qos", names: ["high"] }));
    expect(c.run(submit(spec({ partition: "closed" }))).error).toBe("Required partition not available (inactive or drain)");
    expect(c.run(submit(spec({ partition: "team", account: "physics" }), 10, ALICE)).error).toBe("User's group not permitted to use this partition");
    expect(c.run(submit(spec({ partition: "team" }), 10, PHYS)).error).toBe("Job's account not permitted to use this partition");
    expect(c.run(submit(spec({ partition: "gold" }), 10, ALICE)).error).toBe("Job's QOS not permitted to use this partition");
    expect(c.run(submit(spec({ partition: "gold", qos: "high" }), 10, ALICE)).error).toBe("");
    expect(c.run(submit(spec({ partition: "team", account: "physics" }), 10, PHYS)).error).toBe("");
    // root has no association in physics (not in the database): without enforcement the job runs in root's
    // default account, which the partition does not allow (22.05: -A foo shows Account=root)
    expect(c.run(submit(spec({ partition: "team", account: "physics" }), 10, ROOT)).error).toBe("Job's account not permitted to use this partition");
  });

  it("checks AllowAccounts against the user's default account from sacctmgr", () => {
    const c = cluster(CONF);
    const PHYS = { uid: 1001, gid: 1001, user: "pat", group: "physics" };
    expect(c.run(acct({ action: "add", entity: "account", names: ["physics"] })).error).toBe("");
    expect(c.run(acct({ action: "add", entity: "user", names: ["pat"], set: { account: "physics" } })).error).toBe("");
    expect(c.run(submit(spec({ partition: "team" }), 10, PHYS)).error).toBe("");
  });
});

describe("node weight", () => {
  it("allocates the lowest Weight first", () => {
    const c = cluster(`ClusterName=t
NodeName=n[1-2] CPUs=4 RealMemory=4000 Weight=10
NodeName=n[3-4] CPUs=4 RealMemory=4000 Weight=1
PartitionName=debug Nodes=n[1-4] Default=YES
`);
    c.run(submit(spec({ nodesMin: 2, timeLimitMin: 5 }), 10));
    expect(schedule(c.state, 20).decisions[0]?.alloc.map((a) => a.node)).toEqual(["n3", "n4"]);
  });
});

describe("node weight with GPU best fit", () => {
  const CONF = `ClusterName=t
NodeName=g1 CPUs=8 RealMemory=8000 Gres=gpu:mi300x:8 Weight=1
NodeName=g2 CPUs=8 RealMemory=8000 Gres=gpu:mi300x:4 Weight=10
NodeName=g3 CPUs=8 RealMemory=8000 Gres=gpu:mi300x:4 Weight=5
PartitionName=gpu Nodes=g[1-3] Default=YES
`;

  it("keeps best fit first and breaks ties between equally good nodes by the lowest Weight", () => {
    const c = cluster(CONF);
    // 4 GPUs fill g2 or g3 exactly (best fit beats g1's lower weight); g3 weighs less than g2.
    c.run(submit(spec({ gpusPerNode: "4", timeLimitMin: 5 }), 10));
    expect(schedule(c.state, 20).decisions[0]?.alloc.map((a) => a.node)).toEqual(["g3"]);
  });

  it("takes the lowest Weight for a CPU-only job", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ timeLimitMin: 5 }), 10));
    expect(schedule(c.state, 20).decisions[0]?.alloc.map((a) => a.node)).toEqual(["g1"]);
  });
});
