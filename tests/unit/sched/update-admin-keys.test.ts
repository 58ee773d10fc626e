/**
 * `scontrol update JobId=N` keys 22.05 takes that Spur used to refuse: AdminComment=, Licenses=,
 * SiteFactor=, Reboot=, ResetAccrueTime, and what scontrol itself does with Deadline=, UserID= and
 * bare words. Expectations are the oracle's answers (a held or a --begin=now+1hour `sbatch
 * --wrap=true` job, and a running one; /work/shared-probe).
 */
import { describe, expect, it } from "vitest";
import { ALICE, CONF, ROOT, cluster, spec, submit } from "./builders.ts";
import type { Requester } from "../../../src/sched/model/commands.ts";
import { parseJobUpdate } from "../../../src/compat/format/scontrol-update.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import type { Job } from "../../../src/compat/format/job-values.ts";
import { explainPriority, priorityContext } from "../../../src/sched/plan/priority.ts";

const MULTIFACTOR = `${CONF}PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\nPriorityWeightPartition=1000\n`;

function pending(conf = CONF, over: Partial<ReturnType<typeof spec>> = {}, by: Requester = ROOT) {
  const c = cluster(conf);
  c.run(submit(spec({ ntasks: 1, beginTime: 3600, ...over }), 10, by));
  const job = () => c.state.jobs.get(1)!;
  const set = (fields: Record<string, string>, who: Requester = ROOT) =>
    c.run({ v: 1, type: "updateJob", at: 20, jobIds: ["1"], action: "update", fields, by: who }).items[0]?.error;
  const shown = () => formatJobRecord(job().info as unknown as Job, { now: 20, oneLiner: false, detail: false });
  return { c, job, set, shown };
}

describe("scontrol update: keys 22.05 takes (oracle)", () => {
  it("AdminComment=hi shows on its own line before Comment=; only an administrator sets it", () => {
    const { job, set, shown } = pending(CONF, { comment: "cc" }, ALICE);
    expect(set({ AdminComment: "hello" }, ALICE)).toBe("Access/permission denied");
    expect(set({ AdminComment: "hello" })).toBe("");
    expect(job().info.adminComment).toBe("hello");
    expect(shown()).toContain("\n   AdminComment=hello \n   Comment=cc \n");
    // a started job takes it too (oracle: AdminComment=x on a running job)
    job().info.state = "RUNNING";
    expect(set({ AdminComment: "x" })).toBe("");
    expect(set({ AdminComment: "" })).toBe("");
    expect(shown()).not.toContain("AdminComment");
  });

  it("Licenses= is checked as -L at submission; empty shows Licenses= instead of (null)", () => {
    const { job, set, shown, c } = pending(`${CONF}Licenses=foo:2\n`);
    expect(set({ Licenses: "bar:1" })).toBe("Invalid license specification");
    expect(set({ Licenses: "foo:3" })).toBe("Invalid license specification");
    expect(shown()).toContain(" Licenses=(null) ");
    expect(set({ Licenses: "foo:1" })).toBe("");
    expect([job().info.licenses, job().spec.licenses]).toEqual(["foo:1", "foo:1"]);
    expect(set({ Licenses: "" })).toBe("");
    expect(shown()).toContain(" Licenses= Network=");
    // oracle: Licenses=foo on a cluster without it
    expect(pending().set({ Licenses: "foo" })).toBe("Invalid license specification");
    job().info.state = "RUNNING";
    expect(set({ Licenses: "" })).toBe("");
    expect(set({ Licenses: "foo:1" })).toBe("Job is no longer pending execution");
    expect(c.state.jobs.get(1)!.spec.licenses).toBe("");
  });

  it("SiteFactor= adds to the priority (oracle: +5 on 11156 is 11161, -3 is 11153, abc is 0), administrators only", () => {
    const { job, set, c } = pending(MULTIFACTOR, {}, ALICE);
    const prio = () => explainPriority(job(), priorityContext(c.state, 20, c.state.config.sched)).priority;
    const base = prio();
    const stored = job().info.priority; // what squeue shows until the next pass: moved at once
    expect(set({ SiteFactor: "5" })).toBe("");
    expect([prio(), job().info.priority]).toEqual([base + 5, stored + 5]);
    expect(set({ SiteFactor: "-3" })).toBe("");
    expect(prio()).toBe(base - 3);
    expect(set({ SiteFactor: "abc" })).toBe("");
    expect(prio()).toBe(base);
    expect(set({ SiteFactor: "1" }, ALICE)).toBe("Access/permission denied");
  });

  it("Reboot=yes shows Reboot=1, no takes it back; a started job refuses it", () => {
    const { job, set, shown } = pending();
    expect(shown()).toContain(" Reboot=0 ");
    expect(set({ Reboot: "yes" })).toBe("");
    expect(shown()).toContain(" Reboot=1 ");
    expect(set({ Reboot: "no" })).toBe("");
    expect(job().info.reboot).toBeUndefined();
    job().info.state = "RUNNING";
    expect(set({ Reboot: "yes" })).toBe("Job is no longer pending execution");
  });

  it("ResetAccrueTime is taken for a pending job only", () => {
    const { job, set } = pending();
    expect(set({ ResetAccrueTime: "" })).toBe("");
    job().info.state = "RUNNING";
    expect(set({ ResetAccrueTime: "" })).toBe("Job is no longer pending execution");
  });
});

describe("scontrol update: what scontrol itself reads (oracle)", () => {
  const parse = (...args: string[]) => {
    const r = parseJobUpdate(args, 1_800_000_000, (u) => ["0", "root", "65534"].includes(u));
    return r.ok ? r.value : r.error.message;
  };

  it("drops a Deadline= it cannot read, with Slurm's complaint", () => {
    expect(parse("JobId=5", "Deadline=abc")).toBe("Invalid time specification (pos=0): abc\nNo changes specified");
    expect(parse("JobId=5", "Deadline=abc", "Comment=x")).toEqual({ jobIds: ["5"], fields: { Comment: "x" }, warnings: ["Invalid time specification (pos=0): abc"] });
    expect(parse("JobId=5", "Deadline=now+1hour")).toMatchObject({ fields: { Deadline: "now+1hour" }, warnings: [] });
  });

  it("reads UserID= (3 letters) as a selector, checking the user", () => {
    expect(parse("JobId=5", "UserID=1")).toBe("Invalid UserID: 1\nRequest aborted");
    expect(parse("JobId=5", "UserID=65534")).toBe("No changes specified");
    expect(parse("JobName=x", "Use=root", "Comment=y")).toEqual({ jobIds: [], fields: { Name: "x", Comment: "y" }, warnings: [], userId: "root" });
    expect(parse("JobId=5", "Us=0")).toBe("Update of this parameter is not supported: Us=0\nRequest aborted");
  });

  it("takes ResetAccrueTime bare, before a bare word takes the next as its value", () => {
    expect(parse("JobId=5", "ResetAccrueTime")).toMatchObject({ fields: { ResetAccrueTime: "" } });
    expect(parse("JobId=5", "Res", "Comment=x")).toMatchObject({ fields: { ResetAccrueTime: "", Comment: "x" } });
    expect(parse("JobId=5", "ResetAccrueTime=5")).toBe("Update of this parameter is not supported: ResetAccrueTime=5\nRequest aborted");
    // the word taken as the value is the one named (oracle)
    expect(parse("JobId=5", "Re", "Comment=y")).toBe("Update of this parameter is not supported: Comment=y\nRequest aborted");
  });

  it("knows the keys by Slurm's shortest forms and checks Reboot's value", () => {
    expect(parse("JobId=5", "AdminC=x")).toMatchObject({ fields: { AdminComment: "x" } });
    expect(parse("JobId=5", "Admin=x")).toBe("Update of this parameter is not supported: Admin=x\nRequest aborted");
    expect(parse("JobId=5", "SiteF=1")).toMatchObject({ fields: { SiteFactor: "1" } });
    expect(parse("JobId=5", "Site=1")).toBe("Update of this parameter is not supported: Site=1\nRequest aborted");
    expect(parse("JobId=5", "Reboot=abc")).toBe("scontrol: error: Invalid reboot value: abc");
  });
});
