/**
 * QOS and association limits: Slurm's pending reasons, submit-time checks
 * (account, QOS, MaxSubmitJobs) under AccountingStorageEnforce, and a seeded
 * property: over random trees, limits and workloads, the running jobs never
 * exceed any limit after any scheduling pass (SEED=n replays one run).
 */
import { describe, expect, it } from "vitest";
import { createRng, type Rng } from "../../../src/lib/rng.ts";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, CONF, ROOT, cluster, spec, submit } from "../sched/builders.ts";
import { acct } from "./helpers.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";
import { jobAssoc } from "../../../src/sched/acct/fair-tree.ts";
import { jobTres, inherited } from "../../../src/sched/acct/limits.ts";
import { assocChain, TRES_NAMES } from "../../../src/sched/acct/types.ts";
import type { ClusterState, JobSpecP } from "../../../src/sched/model/types.ts";
import { SUBMIT_LIMIT } from "../../../src/sched/acct/submit-policy.ts";
import { underQos } from "../../../src/sched/acct/qos-override.ts";

const BOB: Requester = { uid: 1001, gid: 1001, user: "bob", group: "bob" };
const ENFORCED = `${CONF}AccountingStorageEnforce=associations,limits,qos\n`;

function withAlice(conf = ENFORCED) {
  const c = cluster(conf);
  c.run(acct({ action: "add", entity: "account", names: ["phys"] }));
  c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys" } }));
  return c;
}

const reasonsAfterPass = (c: ReturnType<typeof cluster>, now: number) => {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  return r.reasons;
};

describe("limits in scheduling", () => {
  it("holds jobs over MaxJobs with AssocMaxJobsLimit without blocking others", () => {
    const c = withAlice();
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxjobs: "1" } }));
    for (let i = 0; i < 3; i++) expect(c.run(submit(spec({ timeLimitMin: 10 }), 10, ALICE)).error).toBe("");
    c.run(submit(spec({ timeLimitMin: 10 }), 11));
    const reasons = reasonsAfterPass(c, 20);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    expect(reasons.get(2)).toBe("AssocMaxJobsLimit");
    expect(reasons.get(3)).toBe("AssocMaxJobsLimit");
    expect(c.state.jobs.get(4)?.info.state).toBe("RUNNING");
  });

  it("names QOS and group limits as Slurm does", () => {
    const c = withAlice();
    c.run(acct({ action: "add", entity: "qos", names: ["small"], set: { maxjobsperuser: "1", maxtresperuser: "cpu=2", maxwall: "30" } }));
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { qos: "normal,small" } }));
    c.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grptres: "cpu=3,gres/gpu=1" } }));
    c.run(submit(spec({ qos: "small", timeLimitMin: 10 }), 10, ALICE));
    c.run(submit(spec({ qos: "small", timeLimitMin: 10 }), 10, ALICE));
    c.run(submit(spec({ qos: "small", timeLimitMin: 60 }), 10, ALICE));
    c.run(submit(spec({ ntasks: 3, timeLimitMin: 10 }), 10, ALICE));
    c.run(submit(spec({ partition: "gpu", gpusPerNode: "2", timeLimitMin: 10 }), 10, ALICE));
    const reasons = reasonsAfterPass(c, 20);
    expect(c.state.jobs.get(1)?.info.state).toBe("RUNNING");
    expect(reasons.get(2)).toBe("QOSMaxJobsPerUserLimit");
    expect(reasons.get(3)).toBe("QOSMaxWallDurationPerJobLimit");
    expect(reasons.get(4)).toBe("AssocGrpCpuLimit");
    expect(reasons.get(5)).toBe("AssocGrpGRES");
  });

  it("enforces nothing without AccountingStorageEnforce=limits", () => {
    const c = withAlice(CONF);
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxjobs: "1", maxsubmitjobs: "1" } }));
    for (let i = 0; i < 3; i++) expect(c.run(submit(spec({ timeLimitMin: 10 }), 10, ALICE)).error).toBe("");
    reasonsAfterPass(c, 20);
    expect([1, 2, 3].map((id) => c.state.jobs.get(id)?.info.state)).toEqual(["RUNNING", "RUNNING", "RUNNING"]);
  });
});

describe("limits at submission", () => {
  it("rejects over MaxSubmitJobs with Slurm's text, counting array tasks", () => {
    const c = withAlice();
    c.run(acct({ action: "modify", entity: "user", where: { name: "alice" }, set: { maxsubmitjobs: "3" } }));
    expect(c.run(submit(spec({ array: "1-2" }), 10, ALICE)).error).toBe("");
    expect(c.run(submit(spec({}), 10, ALICE)).error).toBe("");
    expect(c.run(submit(spec({}), 10, ALICE)).error).toBe(SUBMIT_LIMIT);
  });

  it("counts every user's unfinished jobs under an account's GrpSubmitJobs, nested accounts included", () => {
    const c = withAlice();
    c.run(acct({ action: "add", entity: "account", names: ["sub"], set: { parent: "phys" } }));
    c.run(acct({ action: "add", entity: "user", names: ["bob"], set: { account: "sub" } }));
    c.run(acct({ action: "add", entity: "account", names: ["chem"] }));
    c.run(acct({ action: "add", entity: "user", names: ["bob"], set: { account: "chem" } }));
    c.run(acct({ action: "modify", entity: "account", where: { name: "phys" }, set: { grpsubmitjobs: "3" } }));
    expect(c.run(submit(spec({ array: "1-2" }), 10, ALICE)).error).toBe("");
    expect(c.run(submit(spec({ account: "sub" }), 10, BOB)).error).toBe("");
    // phys holds 3 tasks (alice's two, bob's one in sub below it): a fourth is refused for either
    expect(c.run(submit(spec({}), 10, ALICE)).error).toBe(SUBMIT_LIMIT);
    expect(c.run(submit(spec({ account: "sub" }), 10, BOB)).error).toBe(SUBMIT_LIMIT);
    expect(c.run(submit(spec({ account: "chem" }), 10, BOB)).error).toBe(""); // another tree
    // a finished job no longer counts (bob's in sub)
    c.run({ v: 1, type: "cancel", at: 11, filter: { jobIds: ["2"], user: "", name: "", partition: "", states: [], account: "", nodelist: "", qos: "", reservation: "" }, signal: 0, batchOnly: false, by: ROOT });
    expect(c.state.jobs.get(2)?.info.state).toBe("CANCELLED");
    expect(c.run(submit(spec({}), 12, ALICE)).error).toBe("");
  });

  it("checks the account and the QOS under enforcement, and fills in defaults", () => {
    const c = withAlice();
    expect(c.run(submit(spec({}), 10, BOB)).error).toBe("Invalid account or account/partition combination specified");
    expect(c.run(submit(spec({ account: "root" }), 10, ALICE)).error).toBe("Invalid account or account/partition combination specified");
    expect(c.run(submit(spec({ qos: "nosuch" }), 10, ALICE)).error).toBe("Invalid qos specification");
    const ok = c.run(submit(spec({}), 10, ALICE));
    expect(ok.error).toBe("");
    const job = c.state.jobs.get(ok.ids[0] as number)!;
    expect([job.info.account, job.info.qos]).toEqual(["phys", "normal"]);
  });

  it("without enforcement, an account the user has no association in becomes the default one, an unknown QOS an empty one (oracle 22.05)", () => {
    const c = withAlice(CONF);
    const info = (s: Partial<JobSpecP>) => {
      const r = c.run(submit(spec(s), 10, ALICE));
      expect(r.error).toBe("");
      const j = c.state.jobs.get(r.ids[0] as number)!;
      return [j.info.account, j.info.qos];
    };
    expect(info({ account: "nosuch" })).toEqual(["phys", "normal"]);
    expect(info({ account: "PHYS", qos: "NORMAL" })).toEqual(["phys", "normal"]);
    expect(info({ account: "nosuch", qos: "nosuch" })).toEqual(["phys", ""]);
  });
});

// ---- property: no limit is ever exceeded by running jobs -------------------------------------

const SEEDS = process.env.SEED ? [Number(process.env.SEED)] : Array.from({ length: Number(process.env.SEEDS ?? 30) }, (_, i) => i + 1);
const USERS: Requester[] = [ALICE, BOB, { uid: 1002, gid: 1002, user: "carol", group: "carol" }];

function randomLimits(rng: Rng, qos: boolean): Record<string, string> {
  const set: Record<string, string> = {};
  if (rng.next() < 0.4) set[qos ? "maxjobsperuser" : "maxjobs"] = String(rng.int(0, 3));
  if (rng.next() < 0.4) set.grpjobs = String(rng.int(1, 5));
  if (rng.next() < 0.4) set.grptres = rng.pick(["cpu=4", "cpu=7", "gres/gpu=3", "node=2", "cpu=10,gres/gpu=4"]);
  if (rng.next() < 0.3) set.maxtres = rng.pick(["cpu=3", "gres/gpu=2", "node=1"]);
  if (qos && rng.next() < 0.4) set.maxtresperuser = rng.pick(["cpu=3", "gres/gpu=2"]);
  return set;
}

function setup(rng: Rng) {
  const c = cluster(ENFORCED);
  c.run(acct({ action: "add", entity: "account", names: ["a"], set: randomLimits(rng, false) }));
  c.run(acct({ action: "add", entity: "account", names: ["b"], set: { parent: "a", ...randomLimits(rng, false) } }));
  c.run(acct({ action: "add", entity: "qos", names: ["q"], set: randomLimits(rng, true) }));
  c.run(acct({ action: "modify", entity: "qos", names: ["normal"], set: randomLimits(rng, true) }));
  for (const u of USERS) {
    const r = c.run(acct({ action: "add", entity: "user", names: [u.user], set: { account: rng.pick(["a", "b", "a,b"]), qos: "normal,q", ...randomLimits(rng, false) } }));
    expect(r.error).toBe("");
  }
  return c;
}

function randomJob(rng: Rng): Partial<JobSpecP> {
  const s: Partial<JobSpecP> = { timeLimitMin: rng.pick([5, 10, 60]), qos: rng.pick(["", "q"]) };
  const roll = rng.next();
  if (roll < 0.4) s.ntasks = rng.int(1, 4);
  else if (roll < 0.6) Object.assign(s, { nodesMin: rng.int(1, 2), exclusive: rng.next() < 0.5 });
  else if (roll < 0.8) Object.assign(s, { partition: "gpu", gpusPerNode: String(rng.int(1, 2)) });
  if (rng.next() < 0.15) s.array = `1-${rng.int(2, 4)}`;
  return s;
}

/**
 * Every QOS and association limit, checked against what is running now. An association limit
 * that a running job's QOS hides (qos-override.ts) was not in force when that job started, so
 * it is checked only where no job under the association runs in such a QOS.
 */
function checkLimits(state: ClusterState): void {
  const running = [...state.jobs.values()].filter((j) => j.info.state === "RUNNING");
  const sum = (jobs: typeof running) => {
    const t = { cpu: 0, mem: 0, node: 0, "gres/gpu": 0, jobs: jobs.length };
    for (const j of jobs) for (const [k, v] of Object.entries(jobTres(j))) t[k as keyof typeof t] += v;
    return t;
  };
  for (const q of state.acct.qos.values()) {
    const all = sum(running.filter((j) => j.info.qos === q.name));
    if (q.limits.grpJobs !== undefined) expect(all.jobs).toBeLessThanOrEqual(q.limits.grpJobs);
    for (const n of TRES_NAMES) if (q.limits.grpTres?.[n] !== undefined) expect(all[n], `QOS ${q.name} GrpTRES ${n}`).toBeLessThanOrEqual(q.limits.grpTres[n]!);
    for (const u of USERS) {
      const mine = sum(running.filter((j) => j.info.qos === q.name && j.info.user === u.user));
      if (q.limits.maxJobsPerUser !== undefined) expect(mine.jobs).toBeLessThanOrEqual(q.limits.maxJobsPerUser);
      for (const n of TRES_NAMES) if (q.limits.maxTresPerUser?.[n] !== undefined) expect(mine[n]).toBeLessThanOrEqual(q.limits.maxTresPerUser[n]!);
    }
  }
  for (const j of running) {
    const t = jobTres(j);
    const q = state.acct.qos.get(j.info.qos);
    for (const n of TRES_NAMES) if (q?.limits.maxTresPerJob?.[n] !== undefined) expect(t[n]).toBeLessThanOrEqual(q.limits.maxTresPerJob[n]!);
    const leaf = jobAssoc(state, j)!;
    const chain = underQos(assocChain(state.acct, leaf), q);
    const perJob = inherited(chain, "maxTresPerJob");
    for (const n of TRES_NAMES) if (perJob?.[n] !== undefined) expect(t[n]).toBeLessThanOrEqual(perJob[n]!);
  }
  for (const a of state.acct.assocs.values()) {
    const under = running.filter((j) => assocChain(state.acct, jobAssoc(state, j)!).some((x) => x.id === a.id));
    const use = sum(under);
    const hides = (pick: (l: NonNullable<ReturnType<typeof state.acct.qos.get>>["limits"]) => unknown) =>
      under.some((j) => pick(state.acct.qos.get(j.info.qos)?.limits ?? {}) !== undefined);
    if (a.limits.grpJobs !== undefined && !hides((l) => l.grpJobs)) expect(use.jobs, `assoc ${a.account}/${a.user} GrpJobs`).toBeLessThanOrEqual(a.limits.grpJobs);
    for (const n of TRES_NAMES) if (a.limits.grpTres?.[n] !== undefined && !hides((l) => l.grpTres?.[n])) expect(use[n], `assoc ${a.account}/${a.user} GrpTRES ${n}`).toBeLessThanOrEqual(a.limits.grpTres[n]!);
    if (a.user !== "") {
      const max = inherited(assocChain(state.acct, a), "maxJobs");
      const own = running.filter((j) => jobAssoc(state, j)?.id === a.id);
      if (max !== undefined && !own.some((j) => state.acct.qos.get(j.info.qos)?.limits.maxJobsPerUser !== undefined)) expect(own.length, `assoc ${a.account}/${a.user} MaxJobs`).toBeLessThanOrEqual(max);
    }
  }
}

describe("limits property", () => {
  it(`running jobs never exceed a QOS or association limit (${SEEDS.length} seeds)`, { timeout: 120_000 }, () => {
    let started = 0;
    let limited = 0;
    for (const seed of SEEDS) {
      try {
        const rng = createRng(seed);
        const c = setup(rng);
        let now = 100;
        for (let round = 0; round < 8; round++) {
          for (let k = rng.int(2, 8); k > 0; k--) c.run(submit(spec(randomJob(rng)), now, rng.pick(USERS)));
          const r = schedule(c.state, now);
          limited += [...r.reasons.values()].filter((x) => x.startsWith("QOS") || x.startsWith("Assoc")).length;
          if (r.decisions.length > 0) expect(c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions }).ids.length).toBe(r.decisions.length);
          started += r.decisions.length;
          checkLimits(c.state);
          now += rng.int(10, 120);
          for (const j of [...c.state.jobs.values()]) {
            if (j.info.state === "RUNNING" && rng.next() < 0.3) c.run({ v: 1, type: "jobEnded", at: now, jobId: j.info.jobId, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
          }
        }
      } catch (error) {
        throw new Error(`SEED=${seed} failed (replay: SEED=${seed} bun --bun vitest run tests/unit/acct/limits.test.ts): ${String(error)}`);
      }
    }
    // The generator must actually exercise both starts and limit holds.
    if (SEEDS.length >= 10) {
      expect(started).toBeGreaterThan(SEEDS.length * 3);
      expect(limited).toBeGreaterThan(SEEDS.length);
    }
  });
});
void ROOT;
