/**
 * A QOS limit hides the association's limit of the same kind on the same TRES (Slurm's limit
 * hierarchy, resource_limits.html "Hierarchy": the Job QOS comes before the user and account
 * associations, and the first point where a limit is defined is used). Limits of another kind
 * or on another TRES still hold, and the pending reason names whichever limit is in force.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { ALICE, CONF, cluster, spec, submit } from "../sched/builders.ts";
import { acct } from "./helpers.ts";
import { assocLimitsUnderQos } from "../../../src/sched/acct/qos-override.ts";
import { SUBMIT_LIMIT } from "../../../src/sched/acct/submit-policy.ts";

const ENFORCED = `${CONF}AccountingStorageEnforce=associations,limits,qos\n`;

/** alice in account phys, allowed QOS normal and wide. */
function setup(accountLimits: Record<string, string>, wideLimits: Record<string, string>) {
  const c = cluster(ENFORCED);
  c.run(acct({ action: "add", entity: "account", names: ["phys"], set: accountLimits }));
  c.run(acct({ action: "add", entity: "qos", names: ["wide"], set: wideLimits }));
  c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys", qos: "normal,wide" } }));
  return c;
}

function pass(c: ReturnType<typeof cluster>, now: number): Map<number, string> {
  const r = schedule(c.state, now);
  if (r.decisions.length > 0) c.run({ v: 1, type: "startJobs", at: now, decisions: r.decisions });
  return r.reasons;
}

const stateOf = (c: ReturnType<typeof cluster>, id: number) => c.state.jobs.get(id)?.info.state;

describe("a QOS limit hides the association's of the same kind", () => {
  it("pairs kinds and TRES: same kind and TRES hidden, others kept (pure)", () => {
    const assoc = { grpTres: { cpu: 2, "gres/gpu": 1 }, maxJobs: 1, grpJobs: 3, maxWallMin: 10, maxTresPerJob: { node: 1 } };
    expect(assocLimitsUnderQos(assoc, { grpTres: { cpu: 8 }, maxJobsPerUser: 5, maxTresPerJob: { cpu: 4 } }))
      .toEqual({ grpTres: { "gres/gpu": 1 }, grpJobs: 3, maxWallMin: 10, maxTresPerJob: { node: 1 } });
    expect(assocLimitsUnderQos(assoc, { grpTres: { cpu: 8, "gres/gpu": 2 }, grpJobs: 9, maxWallMin: 60 }))
      .toEqual({ maxJobs: 1, maxTresPerJob: { node: 1 } });
    expect(assocLimitsUnderQos(assoc, {})).toEqual(assoc);
  });

  it("GrpTRES: the QOS's cpu limit is in force, the account's cpu limit is not; the account's GPU limit still holds", () => {
    const c = setup({ grptres: "cpu=2,gres/gpu=1" }, { grptres: "cpu=8" });
    c.run(submit(spec({ partition: "gpu", gpusPerNode: "2", qos: "wide", timeLimitMin: 10 }), 10, ALICE)); // 1: account's GPU limit
    c.run(submit(spec({ ntasks: 4, qos: "wide", timeLimitMin: 10 }), 10, ALICE)); // 2: over the account's cpu=2, under the QOS's 8
    c.run(submit(spec({ ntasks: 4, qos: "wide", timeLimitMin: 10 }), 10, ALICE)); // 3: 8 of 8
    c.run(submit(spec({ ntasks: 1, qos: "wide", timeLimitMin: 10 }), 10, ALICE)); // 4: QOS full
    c.run(submit(spec({ ntasks: 3, timeLimitMin: 10 }), 10, ALICE)); // 5: QOS normal sets nothing: the account's cpu=2 holds
    const reasons = pass(c, 20);
    expect(reasons.get(1)).toBe("AssocGrpGRES");
    expect([stateOf(c, 2), stateOf(c, 3)]).toEqual(["RUNNING", "RUNNING"]);
    expect(reasons.get(4)).toBe("QOSGrpCpuLimit");
    expect(reasons.get(5)).toBe("AssocGrpCpuLimit");
  });

  it("MaxJobs of the association gives way to the QOS's MaxJobsPerUser, MaxWall to the QOS's MaxWall", () => {
    const c = cluster(ENFORCED);
    c.run(acct({ action: "add", entity: "account", names: ["phys"] }));
    c.run(acct({ action: "add", entity: "qos", names: ["wide"], set: { maxjobsperuser: "2", maxwall: "120" } }));
    c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys", qos: "normal,wide", maxjobs: "1", maxwall: "30" } }));
    for (let i = 0; i < 3; i++) c.run(submit(spec({ qos: "wide", timeLimitMin: 60 }), 10, ALICE));
    const reasons = pass(c, 20);
    // 60 minutes is over the user's MaxWall=30 but the QOS's 120 is the one in force; two run (QOS), not one (association)
    expect([stateOf(c, 1), stateOf(c, 2)]).toEqual(["RUNNING", "RUNNING"]);
    expect(reasons.get(3)).toBe("QOSMaxJobsPerUserLimit");
    // without a time limit the job gets the QOS's MaxWall, not the smaller association one
    const r = c.run(submit(spec({ qos: "wide" }), 30, ALICE));
    expect(c.state.jobs.get(r.ids[0] as number)?.info.timeLimitMin).toBe(120);
  });

  it("MaxSubmitJobs of the association gives way to the QOS's MaxSubmitJobsPerUser", () => {
    const c = cluster(ENFORCED);
    c.run(acct({ action: "add", entity: "account", names: ["phys"] }));
    c.run(acct({ action: "add", entity: "qos", names: ["wide"], set: { maxsubmitjobsperuser: "3" } }));
    c.run(acct({ action: "add", entity: "user", names: ["alice"], set: { account: "phys", qos: "normal,wide", maxsubmitjobs: "1" } }));
    for (let i = 0; i < 3; i++) expect(c.run(submit(spec({ qos: "wide" }), 10, ALICE)).error).toBe("");
    expect(c.run(submit(spec({ qos: "wide" }), 10, ALICE)).error).toBe(SUBMIT_LIMIT);
    // QOS normal sets no submit limit: the association's MaxSubmitJobs=1 holds (4 of alice's jobs are queued)
    expect(c.run(submit(spec({}), 10, ALICE)).error).toBe(SUBMIT_LIMIT);
  });

  it("GrpTRESMins: the QOS's limit on cpu hides the account's on cpu", () => {
    const c = setup({ grptresmins: "cpu=1" }, { grptresmins: "cpu=100000" });
    c.run(submit(spec({ ntasks: 2, qos: "wide", timeLimitMin: 10 }), 10, ALICE));
    pass(c, 20);
    c.run({ v: 1, type: "jobEnded", at: 620, jobId: 1, exitCode: 0, exitSignal: 0, outcome: "COMPLETED" });
    // 20 cpu-minutes used: over the account's 1, far under the QOS's
    c.run(submit(spec({ qos: "wide", timeLimitMin: 10 }), 630, ALICE));
    c.run(submit(spec({ timeLimitMin: 10 }), 630, ALICE));
    const reasons = pass(c, 640);
    expect(stateOf(c, 2)).toBe("RUNNING");
    expect(reasons.get(3)).toBe("AssocGrpCPUMinutesLimit");
  });
});
