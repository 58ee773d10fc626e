/**
 * Jobs submitted to several partitions (`-p a,b`, sched/model/job-partitions.ts): the list's text
 * at submission (as 22.05 keeps or rebuilds it), the start in whichever listed partition can run
 * the job, Partition= after the start, the apply re-check of a decision's partition, pending
 * reasons and backfill reservations across the list, and a seeded simulation checking that no job
 * ever runs outside the partitions it listed (SEED=<n> replays one run).
 */
import { describe, expect, it } from "vitest";
import { jobPartitions, namesAnyPartition, partitionListWithFirst, partitionsByTier } from "../../../src/sched/model/job-partitions.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { jobsMatching } from "../../../src/sched/model/select-jobs.ts";
import { createRng } from "../../../src/lib/rng.ts";
import type { Command } from "../../../src/sched/model/commands.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

// debug: n[1-4] (4 CPUs); gpu: g[1-2] (8 CPUs, 8 GPUs), MaxTime=60
const CONF = `ClusterName=test
DefMemPerCPU=256
NodeName=n[1-4] CPUs=4 RealMemory=4000 Port=17001
NodeName=g[1-2] CPUs=8 RealMemory=8000 Gres=gpu:mi300x:8 Port=17101
PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE
PartitionName=gpu Nodes=g[1-2] MaxTime=60
`;

function pass(c: ReturnType<typeof cluster>, now: number) {
  const result = schedule(c.state, now);
  const applied = c.run({ v: 1, type: "startJobs", at: now, decisions: result.decisions });
  return { result, applied };
}

const info = (c: ReturnType<typeof cluster>, id: number) => c.state.jobs.get(id)?.info;

/** gpu filled by an exclusive 2-node job, then a `-p gpu,debug` job submitted and one pass run: it starts in debug. */
function gpuFullThenListed() {
  const c = cluster(CONF);
  c.run(submit(spec({ partition: "gpu", nodesMin: 2, exclusive: true, timeLimitMin: 30 })));
  pass(c, 20);
  const id = c.run(submit(spec({ partition: "gpu,debug", timeLimitMin: 30 }), 21)).ids[0] as number;
  pass(c, 30);
  return { c, id };
}

describe("job-partitions", () => {
  it("lists distinct names in order, dropping empty entries", () => {
    expect(jobPartitions("gpu")).toEqual(["gpu"]);
    expect(jobPartitions("gpu,,debug,gpu,")).toEqual(["gpu", "debug"]);
    expect(jobPartitions("")).toEqual([]);
  });

  it("matches a filter naming any listed partition", () => {
    expect(namesAnyPartition("gpu,debug", ["debug"])).toBe(true);
    expect(namesAnyPartition("gpu,debug", ["other"])).toBe(false);
    expect(namesAnyPartition("gpu", ["gpu"])).toBe(true);
  });

  it("rebuilds the text with the chosen partition first", () => {
    expect(partitionListWithFirst("gpu,debug", "debug")).toBe("debug,gpu");
    expect(partitionListWithFirst("gpu,,debug,gpu", "gpu")).toBe("gpu,debug");
  });

  it("orders by PriorityTier, listed order between equals", () => {
    const tiers: Record<string, number> = { a: 1, b: 5, c: 1 };
    expect(partitionsByTier(["a", "b", "c"], (n) => tiers[n] ?? 1)).toEqual(["b", "a", "c"]);
    expect(partitionsByTier(["c", "a"], (n) => tiers[n] ?? 1)).toEqual(["c", "a"]);
  });
});

describe("submission to several partitions", () => {
  it("refuses a list naming an unknown partition, naming it (oracle 22.05)", () => {
    const c = cluster(CONF);
    for (const p of ["debug,nosuch", "nosuch,debug"]) {
      const r = c.run(submit(spec({ partition: p })));
      expect(r.error).toBe("invalid partition specified: nosuch\nInvalid partition name specified");
    }
  });

  it("keeps a held job's text as given, and rebuilds a tested one's with the partition that passed first", () => {
    const c = cluster(CONF);
    const held = c.run(submit(spec({ partition: "gpu,,debug", hold: true, nodesMin: 3 }))).ids[0] as number;
    expect(info(c, held)?.partition).toBe("gpu,,debug");
    // 3 nodes: not in gpu (2 nodes), in debug (oracle: `-p gpu,debug -N3` shows Partition=debug,gpu)
    const tested = c.run(submit(spec({ partition: "gpu,debug", nodesMin: 3 }), 11)).ids[0] as number;
    expect(info(c, tested)?.partition).toBe("debug,gpu");
    const fits = c.run(submit(spec({ partition: "gpu,debug" }), 12)).ids[0] as number;
    expect(info(c, fits)?.partition).toBe("gpu,debug");
  });

  it("refuses a job no listed partition could hold, where one partition alone would queue it (oracle: -p debug,gpu -N5)", () => {
    const c = cluster(CONF);
    expect(c.run(submit(spec({ partition: "debug", nodesMin: 5 }))).ids).toHaveLength(1);
    const r = c.run(submit(spec({ partition: "debug,gpu", nodesMin: 5 }), 11));
    expect(r.error).toContain("Requested node configuration is not available");
    expect([...c.state.jobs.values()].filter((j) => j.info.state === "PENDING")).toHaveLength(1);
  });

  it("a held job that fits only the second partition is not marked unfit", () => {
    const c = cluster(CONF);
    const id = c.run(submit(spec({ partition: "debug,gpu", hold: true, cpusPerTask: 8 }))).ids[0] as number;
    expect(c.state.jobs.get(id)?.unfitAtSubmit).not.toBe(true);
  });
});

describe("scheduling a job of several partitions", () => {
  it("starts in the first listed partition that holds it, and Partition= becomes that one", () => {
    const c = cluster(CONF);
    const big = c.run(submit(spec({ partition: "debug,gpu", cpusPerTask: 8, timeLimitMin: 10 }))).ids[0] as number;
    const small = c.run(submit(spec({ partition: "gpu,debug", timeLimitMin: 10 }), 11)).ids[0] as number;
    const { result, applied } = pass(c, 20);
    expect(applied.ids.sort()).toEqual([big, small].sort());
    expect(info(c, big)?.partition).toBe("gpu");
    expect(info(c, big)?.nodelist).toMatch(/^g/);
    expect(info(c, small)?.partition).toBe("gpu");
    expect(result.decisions.find((d) => d.jobId === big)?.partition).toBe("gpu");
  });

  it("goes on to the next partition when the first is full", () => {
    const { c, id } = gpuFullThenListed();
    expect(info(c, id)?.state).toBe("RUNNING");
    expect(info(c, id)?.partition).toBe("debug");
  });

  it("a partition's MaxTime keeps the job to the others (gpu MaxTime=60)", () => {
    const c = cluster(CONF);
    const id = c.run(submit(spec({ partition: "gpu,debug", timeLimitMin: 120 }))).ids[0] as number;
    pass(c, 20);
    expect(info(c, id)?.partition).toBe("debug");
    // in gpu alone it waits with the partition's reason
    const only = c.run(submit(spec({ partition: "gpu", timeLimitMin: 120 }), 21)).ids[0] as number;
    expect(pass(c, 30).result.reasons.get(only)).toBe("PartitionTimeLimit");
  });

  it("waits with Resources when every listed partition is full, and gets a reservation in the one that frees first", () => {
    const c = cluster(CONF);
    c.run(submit(spec({ partition: "debug", nodesMin: 4, exclusive: true, timeLimitMin: 60 })));
    c.run(submit(spec({ partition: "gpu", nodesMin: 2, exclusive: true, timeLimitMin: 10 }), 11));
    pass(c, 20);
    const id = c.run(submit(spec({ partition: "debug,gpu", exclusive: true, timeLimitMin: 5 }), 21)).ids[0] as number;
    const { result } = pass(c, 30);
    expect(result.reasons.get(id)).toBe("Resources");
    const planned = result.reservations.find((r) => r.jobId === id);
    expect(planned?.nodes.every((n) => n.startsWith("g"))).toBe(true);
  });

  it("apply refuses a decision naming a partition the job does not list, and checks the nodes against the named one", () => {
    const c = cluster(CONF);
    const id = c.run(submit(spec({ partition: "debug,gpu", timeLimitMin: 10 }))).ids[0] as number;
    const share = { node: "g1", cpus: 1, memMib: 256, gpuIndices: [], tasks: 1 };
    const other = c.run({ v: 1, type: "startJobs", at: 20, decisions: [{ jobId: id, arrayTaskId: -1, alloc: [share], partition: "nosuch" }] });
    expect(other.items[0]?.error).toContain("not the job's");
    const outside = c.run({ v: 1, type: "startJobs", at: 20, decisions: [{ jobId: id, arrayTaskId: -1, alloc: [share], partition: "debug" }] });
    expect(outside.items[0]?.error).toContain("nodes outside partition debug");
    // a decision naming none takes the listed partition that holds its nodes
    c.run({ v: 1, type: "startJobs", at: 20, decisions: [{ jobId: id, arrayTaskId: -1, alloc: [share] }] });
    expect(info(c, id)?.partition).toBe("gpu");
  });

  it("scancel -p compares the whole text (oracle 22.05)", () => {
    const c = cluster(CONF);
    const id = c.run(submit(spec({ partition: "gpu,debug", hold: true }))).ids[0] as number;
    const filter = { jobIds: [], user: "", name: "", states: [], account: "", nodelist: "", qos: "", reservation: "" };
    expect(jobsMatching(c.state, { ...filter, partition: "gpu" }).map((j) => j.info.jobId)).toEqual([]);
    expect(jobsMatching(c.state, { ...filter, partition: "gpu,debug" }).map((j) => j.info.jobId)).toEqual([id]);
  });
});

describe("seeded simulation: jobs of several partitions", () => {
  const lists = ["debug", "gpu", "debug,gpu", "gpu,debug"];
  const seeds = process.env.SEED !== undefined ? [Number(process.env.SEED)] : [1, 2, 3, 4, 5, 6];
  for (const seed of seeds) {
    it(`never runs a job outside the partitions it listed (seed ${seed})`, () => {
      const rng = createRng(seed);
      const c = cluster(CONF);
      const listed = new Map<number, string[]>();
      let now = 10;
      for (let step = 0; step < 60; step++) {
        now += 30;
        const partition = lists[rng.int(0, lists.length - 1)] as string;
        const over = { partition, timeLimitMin: rng.int(1, 30), nodesMin: rng.int(1, 2), cpusPerTask: rng.int(1, 4) };
        const r = c.run(submit(spec(over), now));
        for (const id of r.ids) listed.set(id, jobPartitions(partition));
        pass(c, now);
        for (const job of c.state.jobs.values()) {
          const i = job.info;
          if (i.state !== "RUNNING" || i.timeLimitMin === undefined || i.startTime + i.timeLimitMin * 60 > now) continue;
          const ended: Command = { v: 1, type: "jobEnded", at: now, jobId: i.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" };
          c.run(ended);
        }
        for (const job of c.state.jobs.values()) {
          const i = job.info;
          if (i.state === "PENDING") continue;
          const allowed = listed.get(i.jobId) ?? [];
          const members = new Set(c.state.partitions.find((p) => p.info.name === i.partition)?.nodeNames ?? []);
          const where = `seed ${seed} job ${i.jobId} (${allowed.join(",")}) in ${i.partition} on ${i.nodelist}`;
          expect(allowed.includes(i.partition), where).toBe(true);
          expect(i.alloc.every((s) => members.has(s.node)), where).toBe(true);
        }
      }
    });
  }
});

describe("scontrol update Partition= with a list", () => {
  it("takes a list of known partitions, rebuilt without empty entries, and refuses an unknown one (oracle 22.05)", () => {
    const c = cluster(CONF);
    const id = c.run(submit(spec({ partition: "gpu", hold: true }))).ids[0] as number;
    const update = (value: string) => c.run({ v: 1, type: "updateJob", at: 20, jobIds: [String(id)], action: "update", fields: { partition: value }, by: ROOT });
    expect(update("gpu,nosuch").items[0]?.error).toBe("Invalid partition name specified");
    expect(info(c, id)?.partition).toBe("gpu");
    update("gpu,,debug");
    expect(info(c, id)?.partition).toBe("gpu,debug");
  });
});

describe("requeue of a job of several partitions", () => {
  it("waits for any listed partition again, the one it ran in first (oracle 22.05)", () => {
    const { c, id } = gpuFullThenListed();
    expect(info(c, id)?.partition).toBe("debug");
    const r = c.run({ v: 1, type: "updateJob", at: 40, jobIds: [String(id)], action: "requeue", fields: {}, by: ROOT });
    expect(r.items[0]?.error ?? "").toBe("");
    // the run ends (the requeue's signal): the job goes back to the queue
    c.run({ v: 1, type: "jobEnded", at: 41, jobId: id, exitCode: 0, exitSignal: 15, outcome: "REQUEUE", restarts: 0 });
    expect(info(c, id)?.state).toBe("PENDING");
    expect(info(c, id)?.partition).toBe("debug,gpu");
  });
});

describe("sprio rows of a job of several partitions", () => {
  it("are one per listed partition, in submitted order, each with that partition's factor", async () => {
    const { priorityFactorsList } = await import("../../../src/ctld/service-sched.ts");
    const { explainPriority } = await import("../../../src/sched/plan/priority.ts");
    const conf = `${CONF}PriorityType=priority/multifactor\nPriorityWeightPartition=1000\n`
      .replace("PartitionName=gpu Nodes=g[1-2] MaxTime=60", "PartitionName=gpu Nodes=g[1-2] MaxTime=60 PriorityJobFactor=2");
    const c = cluster(conf);
    c.run(submit(spec({ partition: "debug", nodesMin: 4, exclusive: true, timeLimitMin: 30 })));
    c.run(submit(spec({ partition: "gpu", nodesMin: 2, exclusive: true, timeLimitMin: 30 }), 11));
    pass(c, 20);
    // 3 nodes: not in gpu at submission, so its Partition= reads debug,gpu; sprio keeps the submitted order
    const id = c.run(submit(spec({ partition: "gpu,debug", nodesMin: 3, timeLimitMin: 10 }), 21)).ids[0] as number;
    expect(info(c, id)?.partition).toBe("debug,gpu");
    const { result } = pass(c, 30);
    const controller = {
      state: c.state,
      priorityOf: (jobId: number, partition?: string) => {
        const job = c.state.jobs.get(jobId);
        return job === undefined ? undefined : explainPriority(job, result.priorityContext, partition);
      },
    } as unknown as Parameters<typeof priorityFactorsList>[0];
    const rows = priorityFactorsList(controller, [id], []);
    expect(rows.map((r) => [r.partition, r.partitionFactor])).toEqual([["gpu", 1], ["debug", 0.5]]);
  });
});
