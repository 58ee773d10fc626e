/**
 * Request fields scontrol show job echoes as Slurm 22.05 does (differential tester, oracle
 * seeds 57, 149, 237, 250, 253): MailUser=/MailType= once a mail type is set (the user
 * defaults to the submitter), TresBind=gpu:<value> for --gpu-bind, KillOInInvalidDependent=Yes.
 */
import { describe, expect, it } from "vitest";
import { mailTypeText } from "../../../src/compat/mail-type.ts";
import { formatJobRecord } from "../../../src/compat/format/scontrol-show-job.ts";
import type { JobSpecP } from "../../../src/sched/model/types.ts";
import { cluster, spec, submit } from "../sched/builders.ts";

function shown(over: Partial<JobSpecP>): string {
  const c = cluster();
  c.run(submit(spec({ name: "e", hold: true, ...over })));
  const info = c.state.jobs.get(1)?.info;
  if (info === undefined) throw new Error("not submitted");
  return formatJobRecord(info, { now: 100, oneLiner: true, detail: false });
}

describe("scontrol show job echoes", () => {
  it("the mail request, with the submitter as the default user, only when a type is set", () => {
    expect(shown({ mailType: "END,FAIL" })).toContain(" MailUser=root MailType=END,FAIL");
    expect(shown({ mailType: "BEGIN", mailUser: "a@b.c" })).toContain(" MailUser=a@b.c MailType=BEGIN");
    expect(shown({ mailUser: "a@b.c" })).not.toContain("MailUser=");
    expect(shown({ mailType: "NONE" })).not.toContain("MailType=");
  });

  it("mail types in Slurm's order, ALL as its events", () => {
    expect(mailTypeText("FAIL,BEGIN")).toBe("BEGIN,FAIL");
    expect(mailTypeText("ALL")).toBe("INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
    // repeated --mail-type, joined by the option handler (oracle: ALL then END prints the ALL set)
    expect(mailTypeText("ALL,END")).toBe("INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT");
    expect(mailTypeText("NONE")).toBe("");
  });

  it("the GPU binding as a TRES binding, and KillOInInvalidDependent=Yes", () => {
    expect(shown({ gpuBind: "closest" })).toContain(" TresBind=gpu:closest");
    expect(shown({})).not.toContain("TresBind=");
    expect(shown({ killOnInvalidDep: true })).toContain(" Power= KillOInInvalidDependent=Yes");
    // 22.05 prints the two flags without a separator (oracle)
    expect(shown({ killOnInvalidDep: true, gresFlags: "enforce-binding" })).toContain(" Power= GresEnforceBind=YesKillOInInvalidDependent=Yes");
    expect(shown({ gresFlags: "disable-binding" })).toContain(" Power= GresEnforceBind=No");
    expect(shown({})).not.toContain("KillOInInvalidDependent");
  });

  it("KillOInInvalidDependent=No for --kill-on-invalid-dep=no, kept apart from not given (oracle 22.05, differential seeds 12203, 12230)", () => {
    expect(shown({ noKillOnInvalidDep: true })).toContain(" Power= KillOInInvalidDependent=No");
    expect(shown({ noKillOnInvalidDep: true, gresFlags: "enforce-binding" })).toContain(" Power= GresEnforceBind=YesKillOInInvalidDependent=No");
    // yes then no: 22.05 keeps both flags and prints both; Spur shows (and acts on) Yes
    expect(shown({ killOnInvalidDep: true, noKillOnInvalidDep: true })).toContain(" Power= KillOInInvalidDependent=Yes");
  });
});

describe("the WCKey (TrackWCKey=No, as on the oracle: differential seeds 107, 229, 293)", () => {
  it("is not shown by scontrol show job", () => {
    expect(shown({ wckey: "wk1" })).not.toContain("WCKey");
  });
});

describe("--switches (oracle: Switches=2@00:01:00 after the Std lines; the wait capped at 300 s)", () => {
  it("shows the count and the wait", () => {
    expect(shown({ reqSwitch: 2, wait4switchSec: 60 })).toContain(" Switches=2@00:01:00 ");
    expect(shown({ reqSwitch: 1, wait4switchSec: 600 })).toContain(" Switches=1@00:05:00 ");
    expect(shown({})).not.toContain("Switches=");
  });
});

describe("--container (oracle: Container=/tmp, Container= for an empty one; sacct Container)", () => {
  it("is shown as given, empty too, and not at all without one", () => {
    expect(shown({ container: "/tmp" })).toMatch(/ Container=\/tmp \n$/);
    expect(shown({ container: "" })).toMatch(/ Container= \n$/);
    expect(shown({})).not.toContain("Container=");
  });
});

describe("--ntasks-per-socket and --mem-per-gpu (oracle: NtasksPerN:B:S:C=3:0:1:*, MemPerTres=gres:gpu:0)", () => {
  it("shows the tasks per socket and the memory per GPU", () => {
    expect(shown({ ntasksPerNode: 3, ntasksPerSocket: 1 })).toContain(" NtasksPerN:B:S:C=3:0:1:* ");
    expect(shown({})).toContain(" NtasksPerN:B:S:C=0:0:*:* ");
    expect(shown({ memPerGpuMib: 0 })).toContain(" MemPerTres=gres:gpu:0 ");
    // oracle: --cpus-per-gpu=2 --gpus=1 --mem-per-gpu=100 is "CpusPerTres=gres:gpu:2 MemPerTres=gres:gpu:100" (differential seed 1268)
    expect(shown({ cpusPerGpu: 2, gpus: "1", memPerGpuMib: 100 })).toContain(" Power= CpusPerTres=gres:gpu:2 MemPerTres=gres:gpu:100 ");
    expect(shown({})).not.toContain("MemPerTres");
  });

  it("--mem-per-gpu=0 leaves the default memory per CPU", () => {
    expect(shown({ memPerGpuMib: 0 })).not.toContain("MinMemoryNode=0");
  });
});

describe("--time-min and --deadline (oracle: TimeMin=00:05:00; --deadline without -t is TimeMin=00:01:00)", () => {
  it("shows the minimum time", () => {
    expect(shown({ timeMinMin: 5 })).toContain(" TimeMin=00:05:00 ");
    expect(shown({ deadline: 2_000_000_000 })).toContain(" TimeMin=00:01:00 ");
    expect(shown({ deadline: 2_000_000_000, timeLimitMin: 10 })).toContain(" TimeMin=N/A ");
    expect(shown({})).toContain(" TimeMin=N/A ");
  });
});
