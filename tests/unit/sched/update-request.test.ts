/**
 * `scontrol update JobId=N` keys that change what a job asks for (sched/model/update-request.ts),
 * with the values 22.05 showed for each on the oracle (a held `sbatch --wrap=true` job: -n1,
 * 256M per CPU, 4000 MB nodes; probed key by key with scontrol show job -o before and after):
 * the record shows what the oracle showed, the spec (what the scheduler reads) changes with it,
 * a started job keeps what it had, and a bad value changes nothing.
 */
import { describe, expect, it } from "vitest";
import { schedule } from "../../../src/sched/plan/schedule.ts";
import { buildRequest } from "../../../src/sched/plan/request.ts";
import { parseJobUpdate } from "../../../src/compat/format/scontrol-update.ts";
import { withTresItem } from "../../../src/sched/model/update-request.ts";
import { ROOT, cluster, spec, submit } from "./builders.ts";

const update = (fields: Record<string, string>, id = "1", at = 20) => ({ v: 1 as const, type: "updateJob" as const, at, jobIds: [id], action: "update", fields, by: ROOT });

function held() {
  const c = cluster();
  c.run(submit(spec({ hold: true, ntasks: 1 })));
  const job = () => c.state.jobs.get(1)!;
  const set = (fields: Record<string, string>) => c.run(update(fields)).items[0]?.error;
  return { c, job, set };
}

describe("scontrol update: request keys on a pending job (oracle 22.05)", () => {
  it("TimeMin=5 shows 00:05:00; above the job's limit it is refused", () => {
    const { job, set, c } = held();
    expect(set({ TimeMin: "5" })).toBe("");
    expect([job().info.timeMinMin, job().spec.timeMinMin]).toEqual([5, 5]);
    c.run(submit(spec({ hold: true, timeLimitMin: 5 })));
    expect(c.run(update({ TimeMin: "10" }, "2")).items[0]?.error).toBe("Invalid time-min specification (exceeds job's time or other limits)");
  });

  it("Deadline takes a time in the future only", () => {
    const { job, set, c } = held();
    expect(set({ Deadline: "now+2hours" })).toBe("");
    expect(job().info.deadline).toBe(20 + 7200);
    const at = 1_800_000_000;
    expect(c.run(update({ Deadline: "now-1hour" }, "1", at)).items[0]?.error).toBe("Invalid time specified");
    expect(job().info.deadline).toBe(20 + 7200);
  });

  it("MailUser shows only once a MailType is set, the user defaulting to the submitter", () => {
    const { job, set } = held();
    expect(set({ MailUser: "bob@x" })).toBe("");
    expect(job().info.mailUser).toBeUndefined();
    const other = held();
    other.set({ MailType: "END,FAIL" });
    expect([other.job().info.mailType, other.job().info.mailUser]).toEqual(["END,FAIL", "root"]);
  });

  it("Requeue=0, Contiguous=yes, OverSubscribe=yes (Shared=), DelayBoot in minutes", () => {
    const { job, set } = held();
    set({ Requeue: "0" });
    expect([job().info.requeue, job().spec.noRequeue]).toEqual([false, true]);
    set({ Contiguous: "yes" });
    expect([job().info.contiguous, job().spec.contiguous]).toEqual([true, true]);
    set({ Shared: "yes" });
    expect(job().info.oversubscribe).toBe(true);
    set({ DelayBoot: "60" });
    expect(job().info.delayBootSec).toBe(3600);
  });

  it("Switches=N[@wait]: the wait is capped at 5 minutes; a count that is not a number changes nothing", () => {
    const { job, set } = held();
    set({ Switches: "abc" });
    expect(job().info.reqSwitch ?? 0).toBe(0);
    set({ Switches: "2@10:00" });
    expect([job().info.reqSwitch, job().info.wait4switchSec]).toEqual([2, 300]);
    set({ Switches: "2@abc" });
    expect(job().info.wait4switchSec).toBe(300);
  });

  it("WorkDir (relative too) and StdOut move the output paths; stderr follows stdout", () => {
    const { job, set } = held();
    set({ WorkDir: "rel" });
    expect([job().info.workDir, job().info.stdOut, job().info.stdErr]).toEqual(["rel", "rel/slurm-1.out", "rel/slurm-1.out"]);
    set({ StdOut: "o.txt" });
    expect([job().info.stdOut, job().info.stdErr]).toEqual(["rel/o.txt", "rel/o.txt"]);
  });

  it("sockets/cores/threads, CPUs per task and tasks per node reach the scheduler's request", () => {
    const { job, set, c } = held();
    set({ ReqSockets: "1" });
    set({ ReqCores: "2" });
    set({ ReqThreads: "1" });
    set({ CPUsPerTask: "2" });
    set({ TasksPerNode: "0" }); // 0 leaves it (oracle)
    expect([job().info.reqSocketsPerNode, job().info.reqCoresPerSocket, job().info.reqThreadsPerCore, job().info.cpusPerTask]).toEqual([1, 2, 1, 2]);
    const req = buildRequest(job().spec, c.state.config, (h) => [h]);
    expect(typeof req !== "string" && [req.cpusPerTask, req.socketsPerNode, req.coresPerSocket]).toEqual([2, 1, 2]);
  });

  it("MinCPUsNode=2 raises NumCPUs and TRES cpu/billing; memory keys rewrite TRES mem", () => {
    const { job, set } = held();
    set({ MinCPUsNode: "2" });
    expect([job().info.minCpusNode, job().info.numCpus, job().info.tresReq]).toEqual([2, 2, "cpu=2,mem=256M,node=1,billing=2"]);
    set({ MinMemoryNode: "500" });
    expect([job().info.memPerNodeMib, job().info.memPerCpuMib, job().info.tresReq]).toEqual([500, 0, "cpu=2,mem=500M,node=1,billing=2"]);
    set({ MinMemoryNode: "0" }); // the nodes' whole memory
    expect(job().info.tresReq).toContain("mem=8000M");
    const other = held();
    other.set({ MinMemoryCPU: "300" });
    expect([other.job().info.memPerCpuMib, other.job().spec.memPerCpuMib, other.job().info.tresReq]).toEqual([300, 300, "cpu=1,mem=300M,node=1,billing=1"]);
  });

  it("NumCPUs=2 on -n1: NumCPUs and TRES cpu/billing 2, MinCPUsNode stays; the scheduler places 2 CPUs", () => {
    const { job, set, c } = held();
    expect(set({ NumCPUs: "2" })).toBe("");
    expect([job().info.numCpus, job().info.minCpusNode, job().info.tresReq]).toEqual([2, 1, "cpu=2,mem=256M,node=1,billing=2"]);
    c.run({ v: 1, type: "updateJob", at: 25, jobIds: ["1"], action: "release", fields: {}, by: ROOT });
    const decisions = schedule(c.state, 30).decisions;
    c.run({ v: 1, type: "startJobs", at: 30, decisions });
    expect(c.state.jobs.get(1)!.info.alloc.reduce((n, a) => n + a.cpus, 0)).toBe(2);
  });

  it("MinTmpDiskNode, Prefer (known features only), WCKey", () => {
    const { job, set } = held();
    set({ MinTmpDiskNode: "100" });
    expect([job().info.minTmpDiskMib, job().spec.tmpMib]).toEqual([100, 100]);
    expect(set({ Prefer: "x" })).toBe("Invalid preferred feature specification");
    expect(set({ Prefer: "" })).toBe("");
    set({ WCKey: "abc" });
    expect(job().info.wckey).toBe("abc");
  });

  it("refusals as 22.05 gives them here", () => {
    const { set } = held();
    expect(set({ EndTime: "now+1hour" })).toBe("Job is not running");
    expect(set({ CoreSpec: "1" })).toBe("Access/permission denied");
    expect(set({ BurstBuffer: "x" })).toBe("Requested operation not supported on this system");
    expect(set({ Clusters: "x" })).toBe("Unspecified error");
    expect(set({ Priority: "5" })).toBe("Job is in held state, pending scheduler release");
    expect(set({ ReservationName: "none" })).toBe("Requested reservation is invalid");
  });

  it("a running job: request keys are refused, TimeMin/Deadline taken without effect, Switches and mail changed", () => {
    const c = cluster();
    c.run(submit(spec({})));
    c.run({ v: 1, type: "startJobs", at: 30, decisions: schedule(c.state, 30).decisions });
    const set = (fields: Record<string, string>) => c.run(update(fields)).items[0]?.error;
    const job = c.state.jobs.get(1)!;
    for (const key of ["WCKey", "MinTmpDiskNode", "CPUsPerTask", "MinMemoryNode", "MinCPUsNode", "WorkDir", "StdOut", "Contiguous", "ReqSockets", "TasksPerNode", "OverSubscribe"]) {
      expect(set({ [key]: "1" }), key).toBe("Job is no longer pending execution");
    }
    expect([set({ TimeMin: "5" }), set({ Deadline: "now+2hours" })]).toEqual(["", ""]);
    expect([c.state.jobs.get(1)!.info.timeMinMin, c.state.jobs.get(1)!.info.deadline]).toEqual([undefined, 0]);
    expect(set({ Switches: "1" })).toBe("");
    expect(set({ MailType: "END" })).toBe("");
    expect(c.state.jobs.get(1)!.info.mailType).toBe("END");
    expect(job.info.state).toBe("RUNNING");
  });
});

describe("scontrol's own checks before asking (oracle 22.05)", () => {
  it.each([
    [["MinMemoryNode=500M"], "scontrol: error: Invalid MinMemoryNode value: 500M"],
    [["CPUsPerTask=abc"], "scontrol: error: Invalid CPUsPerTask value: abc"],
    [["Requeue=abc"], "scontrol: error: Invalid Requeue value: abc"],
    [["Contiguous=abc"], "scontrol: error: Invalid Contiguous value: abc"],
    [["TimeMin=abc"], "scontrol: error: Invalid TimeMin value"],
    [["DelayBoot="], "scontrol: error: Invalid DelayBoot value"],
    [["MailType=bogus"], "Invalid MailType: bogus"],
    [["TimeLimit=bogus"], "scontrol: error: Invalid TimeLimit value"],
    [["TimeLimit=1:2:3:4"], "scontrol: error: Invalid TimeLimit value"],
    [["NumCPUs=bogus"], 'scontrol: error: Invalid numeric value "bogus" for NumCPUs.\nscontrol: error: Invalid NumCPUs value: bogus'],
    [["Priority=bogus"], "scontrol: error: Invalid Priority value: bogus"],
    [["StartTime=bogus"], "Invalid time specification (pos=0): bogus\nNo changes specified"],
    [["EligibleTime=bogus"], "Invalid time specification (pos=0): bogus\nNo changes specified"],
  ])("%j", (args, message) => {
    const r = parseJobUpdate(["JobId=1", ...args]);
    expect(r.ok ? "" : r.error.message).toBe(message);
  });

  it("reads Nice= and ArrayTaskThrottle= as strtol does; gives the update up without failing on a node count it cannot read", () => {
    const fields = (arg: string) => {
      const r = parseJobUpdate(["JobId=1", arg]);
      return r.ok ? r.value.fields : r.error.message;
    };
    expect(fields("Nice=7abc")).toEqual({ Nice: "7" });
    expect(fields("Nice=bogus")).toEqual({ Nice: "0" });
    expect(fields("Nice=-5")).toEqual({ Nice: "-5" });
    expect(fields("ArrayTaskThrottle=bogus")).toEqual({ ArrayTaskThrottle: "0" });
    expect(fields("TimeLimit=+10")).toEqual({ TimeLimit: "+10" });
    const gaveUp = parseJobUpdate(["JobId=1", "NumNodes=bogus", "Comment=x"]);
    expect(gaveUp.ok && gaveUp.value).toMatchObject({ abandoned: 'scontrol: error: Invalid numeric value "bogus" for requested node count.', fields: {} });
    expect(fields("NumNodes=2-3")).toEqual({ NumNodes: "2-3" });
  });

  it("takes the keys 22.05 takes, empty whole numbers too", () => {
    for (const arg of ["WorkDir=/tmp", "Prefer=", "MinTmpDiskNode=", "Contiguous=yes", "DelayBoot=1:00", "MailType=end,FAIL", "Switches=2@abc"]) {
      expect(parseJobUpdate(["JobId=1", arg]).ok, arg).toBe(true);
    }
  });
});

describe("TimeLimit=+N/-N, node lists and features (oracle 22.05)", () => {
  it("changes the limit by N; an unlimited one stays unlimited; a decrement to nothing is refused", () => {
    const { job, set } = held();
    expect(set({ TimeLimit: "+10" })).toBe("");
    expect(job().info.timeLimitMin).toBeUndefined();
    expect(set({ TimeLimit: "30" })).toBe("");
    expect(set({ TimeLimit: "+10" })).toBe("");
    expect(job().info.timeLimitMin).toBe(40);
    expect(set({ TimeLimit: "-15" })).toBe("");
    expect(job().info.timeLimitMin).toBe(25);
    expect(set({ TimeLimit: "-25" })).toBe("Invalid time specification");
    expect(job().info.timeLimitMin).toBe(25);
  });

  it("ReqNodeList= and ExcNodeList= name nodes only; Features= only features some node has", () => {
    const { job, set } = held();
    expect(set({ ReqNodeList: "n9" })).toBe("Invalid node name specified");
    expect(set({ ReqNodeList: "bogus[" })).toBe("Invalid node name specified");
    expect(set({ ExcNodeList: "n[1-9]" })).toBe("Invalid node name specified");
    expect(set({ ReqNodeList: "n[1-2]" })).toBe("");
    expect(job().spec.nodelist).toBe("n[1-2]");
    expect(set({ Features: "gpu" })).toBe("Invalid feature specification");
    expect(set({ Features: "" })).toBe("");
  });
});

describe("withTresItem", () => {
  it("replaces an item in place or appends it", () => {
    expect(withTresItem("cpu=1,mem=256M,node=1,billing=1", "mem", "1G")).toBe("cpu=1,mem=1G,node=1,billing=1");
    expect(withTresItem("cpu=1", "gres/gpu", "2")).toBe("cpu=1,gres/gpu=2");
  });
});

describe("Gres= on a pending job (oracle 22.05: Gres=gpu:1 adds gres/gpu=1 to TRES)", () => {
  it("sets the GPUs per node, the TRES and the scheduler's request; a GRES the cluster does not count is refused", () => {
    const { job, set, c } = held();
    expect(set({ Gres: "gpu:1" })).toBe("");
    expect([job().info.tresPerNode, job().info.tresReq]).toEqual(["gres/gpu:1", "cpu=1,mem=256M,node=1,billing=1,gres/gpu=1"]);
    const req = buildRequest(job().spec, c.state.config, (h) => [h]);
    expect(typeof req !== "string" && req.gpusPerNode).toBe(1);
    expect(set({ Gres: "gpu:mi300x:2" })).toBe("");
    expect(job().info.tresReq).toBe("cpu=1,mem=256M,node=1,billing=1,gres/gpu=2");
    expect(set({ Gres: "bogus:1" })).toBe("Invalid generic resource (gres) specification");
    expect(set({ Gres: "" })).toBe("");
    expect([job().info.tresPerNode, job().info.tresReq]).toEqual(["", "cpu=1,mem=256M,node=1,billing=1"]);
  });
});
