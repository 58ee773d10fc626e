import { describe, expect, it } from "vitest";
import { JOB_STATES_ALL, isJobFinished, jobStateCompact, jobStateFromName, jobStateLong } from "../../../src/compat/states.ts";
import { INVALID_REASON, JOB_REASONS, JOB_REASON_BY_NUMBER, isJobReason, jobReasonName } from "../../../src/compat/job-reasons.ts";
import {
  nodeStateCompact, nodeStateComplete, nodeStateLong, nodeStateScontrol, nodeStateSinfoComplete, nodeStateStrings,
} from "../../../src/compat/node-states.ts";
import { goldenLines, goldenStdout, haveGoldens, keyValues } from "./golden.ts";

const job = (state: string, ...stateFlags: string[]) => ({ state, stateFlags });
const node = job;

describe("job states", () => {
  it.each([
    ["PENDING", "PD"], ["RUNNING", "R"], ["SUSPENDED", "S"], ["COMPLETED", "CD"], ["CANCELLED", "CA"],
    ["FAILED", "F"], ["TIMEOUT", "TO"], ["NODE_FAIL", "NF"], ["PREEMPTED", "PR"], ["BOOT_FAIL", "BF"],
    ["DEADLINE", "DL"], ["OUT_OF_MEMORY", "OOM"],
  ])("base %s / %s", (long, short) => {
    expect(jobStateLong(job(long))).toBe(long);
    expect(jobStateCompact(job(long))).toBe(short);
    expect(jobStateFromName(long.toLowerCase())).toBe(long);
    expect(jobStateFromName(short.toLowerCase())).toBe(long);
  });

  it("flags win over the base state, in precedence order", () => {
    expect(jobStateLong(job("COMPLETED", "COMPLETING"))).toBe("COMPLETING");
    expect(jobStateCompact(job("COMPLETED", "COMPLETING"))).toBe("CG");
    expect(jobStateLong(job("RUNNING", "CONFIGURING"))).toBe("CONFIGURING");
    expect(jobStateCompact(job("RUNNING", "CONFIGURING"))).toBe("CF");
    expect(jobStateLong(job("PENDING", "REQUEUED", "COMPLETING"))).toBe("COMPLETING");
    expect(jobStateLong(job("RUNNING", "SIGNALING", "STAGE_OUT"))).toBe("STAGE_OUT");
    expect(jobStateCompact(job("PENDING", "REQUEUE_HOLD"))).toBe("RH");
    expect(jobStateCompact(job("PENDING", "SPECIAL_EXIT"))).toBe("SE");
    expect(jobStateLong(job("PENDING", "REQUEUE"))).toBe("REQUEUED");
    expect(jobStateCompact(job("PENDING", "requeued"))).toBe("RQ");
  });

  it("EXPEDITING has no short code: the base code shows", () => {
    expect(jobStateLong(job("PENDING", "EXPEDITING"))).toBe("EXPEDITING");
    expect(jobStateCompact(job("PENDING", "EXPEDITING"))).toBe("PD");
    expect(jobStateCompact(job("PENDING", "EXPEDITING", "RESIZING"))).toBe("PD");
  });

  it("unknown base prints ?", () => {
    expect(jobStateLong(job("BOGUS"))).toBe("?");
    expect(jobStateCompact(job("BOGUS"))).toBe("?");
  });

  it("parses names for -t/-s", () => {
    expect(jobStateFromName("cg")).toBe("COMPLETING");
    expect(jobStateFromName("Completing")).toBe("COMPLETING");
    expect(jobStateFromName("oom")).toBe("OUT_OF_MEMORY");
    expect(jobStateFromName("expediting")).toBe("EXPEDITING");
    expect(jobStateFromName("requeue")).toBe("REQUEUED");
    expect(jobStateFromName(" r ")).toBe("RUNNING");
    expect(jobStateFromName("all")).toBeUndefined();
    expect(jobStateFromName("nope")).toBeUndefined();
    expect(jobStateFromName("")).toBeUndefined();
  });

  it("lists all states", () => {
    expect(JOB_STATES_ALL).toHaveLength(25);
    expect(JOB_STATES_ALL.slice(0, 2)).toEqual(["PENDING", "RUNNING"]);
    expect(JOB_STATES_ALL).toContain("SIGNALING");
    expect(isJobFinished(job("COMPLETED"))).toBe(true);
    expect(isJobFinished(job("RUNNING", "COMPLETING"))).toBe(false);
  });
});

describe("job reasons", () => {
  it("numbers and names as in states.tsv", () => {
    expect(JOB_REASON_BY_NUMBER).toHaveLength(221);
    expect(jobReasonName(0)).toBe("None");
    expect(jobReasonName(1)).toBe("Priority");
    expect(jobReasonName(16)).toBe("JobHeldUser");
    expect(jobReasonName(34)).toBe(INVALID_REASON);
    expect(jobReasonName(76)).toBe(INVALID_REASON);
    expect(jobReasonName(165)).toBe("AssocMaxBBMinutesPerJob");
    expect(jobReasonName(220)).toBe("MpiPortsBusy");
    expect(jobReasonName(221)).toBe(INVALID_REASON);
    expect(JOB_REASONS).toHaveLength(221 - 3 - 2);
    expect(new Set(JOB_REASONS).size).toBe(JOB_REASONS.length);
  });

  it.each(["None", "Priority", "Resources", "Dependency", "BeginTime", "JobHeldUser", "JobHeldAdmin",
    "DependencyNeverSatisfied", "NonZeroExitCode", "PartitionConfig", "ReqNodeNotAvail", "DeadLine",
    "QOSMaxWallDurationPerJobLimit"])("%s is a reason", (r) => {
    expect(isJobReason(r)).toBe(true);
  });

  it("is case-sensitive and rejects unknown names", () => {
    expect(isJobReason("priority")).toBe(false);
    expect(isJobReason("InvalidReason")).toBe(false);
    expect(isJobReason("BlockFreeAction")).toBe(false);
  });
});

describe("node states (sinfo %T / %t)", () => {
  it.each([
    [["IDLE"], "idle", "idle"],
    [["MIXED"], "mixed", "mix"],
    [["ALLOCATED"], "allocated", "alloc"],
    [["DOWN"], "down", "down"],
    [["UNKNOWN"], "unknown", "unk"],
    [["FUTURE"], "future", "futr"],
    [["IDLE", "DRAIN"], "drained", "drain"],
    [["MIXED", "DRAIN"], "draining", "drng"],
    [["ALLOCATED", "DRAIN"], "draining", "drng"],
    [["IDLE", "DRAIN", "COMPLETING"], "draining", "drng"],
    [["DOWN", "DRAIN"], "drained", "drain"],
    [["IDLE", "DRAIN", "NOT_RESPONDING"], "drained*", "drain*"],
    [["DOWN", "DRAIN", "NOT_RESPONDING"], "drained*", "drain*"],
    [["DOWN", "NOT_RESPONDING"], "down*", "down*"],
    [["IDLE", "NOT_RESPONDING"], "idle*", "idle*"],
    [["UNKNOWN", "NOT_RESPONDING"], "unknown*", "unk*"],
    [["IDLE", "COMPLETING"], "completing", "comp"],
    [["ALLOCATED", "COMPLETING"], "allocated+", "alloc+"],
    [["MIXED", "COMPLETING"], "completing", "comp"],
    [["ALLOCATED", "COMPLETING", "NOT_RESPONDING"], "allocated*", "alloc*"],
    [["IDLE", "RESERVED"], "reserved", "resv"],
    [["IDLE", "PLANNED"], "planned", "plnd"],
    [["IDLE", "BLOCKED"], "blocked", "block"],
    [["MIXED", "PLANNED"], "mixed-", "mix-"],
    [["IDLE", "RESERVED", "NOT_RESPONDING"], "idle*", "idle*"],
    [["IDLE", "POWERED_DOWN"], "idle~", "idle~"],
    [["IDLE", "POWERING_UP"], "idle#", "idle#"],
    [["IDLE", "POWER_DOWN"], "idle!", "idle!"],
    [["IDLE", "POWERING_DOWN"], "idle%", "idle%"],
    [["IDLE", "POWERED_DOWN", "NOT_RESPONDING"], "idle~", "idle~"],
    [["MIXED", "MAINT"], "mixed$", "mix$"],
    [["IDLE", "MAINT"], "maint", "maint"],
    [["IDLE", "MAINT", "NOT_RESPONDING"], "maint*", "maint*"],
    [["IDLE", "MAINTENANCE"], "maint", "maint"],
    [["DOWN", "MAINT"], "down$", "down$"],
    [["IDLE", "DRAIN", "MAINT"], "drained$", "drain$"],
    [["IDLE", "REBOOT_REQUESTED"], "reboot", "boot"],
    [["IDLE", "REBOOT_ISSUED"], "reboot^", "boot^"],
    [["DOWN", "REBOOT_REQUESTED", "NOT_RESPONDING"], "reboot*", "boot*"],
    [["MIXED", "REBOOT_REQUESTED"], "mixed@", "mix@"],
    [["ALLOCATED", "REBOOT_ISSUED"], "allocated^", "alloc^"],
    [["MIXED", "DRAIN", "REBOOT_REQUESTED"], "draining@", "drng@"],
    [["IDLE", "FAIL"], "fail", "fail"],
    [["ALLOCATED", "FAIL"], "failing", "failg"],
    [["IDLE", "FAIL", "NOT_RESPONDING"], "fail*", "fail*"],
    [["IDLE", "INVALID_REG"], "inval", "inval"],
    [["UNKNOWN", "CLOUD"], "cloud", "cloud"],
    [["UNKNOWN", "POWERED_DOWN"], "powered_down", "powered_dn"],
    [["UNKNOWN", "POWERING_DOWN"], "powering_down", "powring_dn"],
    [["UNKNOWN", "EXTERNAL"], "external", "ext"],
    [["UNKNOWN", "CANCEL_REBOOT"], "cancel_reboot", "canc_r"],
    [["UNKNOWN", "RESUME", "CLOUD"], "resume", "resm"],
    [["IDLE", "CLOUD"], "idle", "idle"],
    [["ERROR"], "?", "?"],
    [["weird"], "?", "?"],
    [["idle", "drain"], "drained", "drain"],
  ])("%j → %s / %s", ([state, ...flags], long, compact) => {
    const n = node(state as string, ...flags);
    expect(nodeStateLong(n)).toBe(long);
    expect(nodeStateCompact(n)).toBe(compact);
  });

  it("gives upper-case strings too", () => {
    expect(nodeStateStrings(node("MIXED", "DRAIN", "NOT_RESPONDING"))).toEqual(["DRAINING*", "DRNG*"]);
  });
});

describe("node states (scontrol State=, sinfo StateComplete)", () => {
  it.each([
    [["IDLE"], "IDLE"],
    [["ALLOCATED"], "ALLOCATED"],
    [["MIXED", "DRAIN"], "MIXED+DRAIN"],
    [["IDLE", "DRAIN"], "IDLE+DRAIN"],
    [["DOWN", "NOT_RESPONDING"], "DOWN+NOT_RESPONDING"],
    [["DOWN", "NOT_RESPONDING", "DRAIN"], "DOWN+DRAIN+NOT_RESPONDING"],
    [["IDLE", "POWERED_DOWN", "CLOUD"], "IDLE+CLOUD+POWERED_DOWN"],
    [["DOWN", "NOT_RESPONDING", "POWERED_DOWN", "POWER_DOWN", "CLOUD"], "DOWN+CLOUD+POWER_DOWN+POWERED_DOWN+NOT_RESPONDING"],
    [["IDLE", "MAINT", "RESERVED"], "IDLE+MAINTENANCE+RESERVED"],
    [["MIXED", "PLANNED"], "MIXED+PLANNED"],
    [["ALLOCATED", "COMPLETING"], "ALLOCATED+COMPLETING"],
    [["IDLE", "REBOOT_ISSUED", "REBOOT_REQUESTED", "DRAIN"], "IDLE+DRAIN+REBOOT_REQUESTED+REBOOT_ISSUED"],
    [["IDLE", "SOMETHING_NEW"], "IDLE+SOMETHING_NEW"],
  ])("%j → %s", ([state, ...flags], text) => {
    const n = node(state as string, ...flags);
    expect(nodeStateComplete(n)).toBe(text);
    expect(nodeStateScontrol(n)).toBe(text);
    expect(nodeStateSinfoComplete(n)).toBe(text.toLowerCase());
  });
});

describe.skipIf(!haveGoldens)("goldens", () => {
  it("squeue ST (044) and STATE (047) columns", () => {
    const st = goldenLines("044").slice(1).map((l) => l.trim().split(/\s+/)[4]);
    expect(st).toEqual([...Array(4).fill("PENDING"), ...Array(4).fill("RUNNING")].map((s) => jobStateCompact(job(s))));
    const state = goldenLines("047").slice(2).map((l) => l.trim().split(/\s+/)[4]);
    expect(state).toEqual([...Array(4).fill("PENDING"), ...Array(4).fill("RUNNING")].map((s) => jobStateLong(job(s))));
  });

  it("squeue reasons (044) are Slurm reason names", () => {
    for (const l of goldenLines("044").slice(1, 5)) {
      const reason = /\((\w+)\)$/.exec(l)?.[1] ?? "";
      expect(isJobReason(reason)).toBe(true);
    }
  });

  it("sinfo %t (056) and %T (057) columns", () => {
    const compact = goldenLines("056").slice(1).map((l) => l.split(/\s+/)[4]);
    expect(compact).toEqual(["MIXED", "ALLOCATED", "IDLE", "MIXED", "ALLOCATED"].map((s) => nodeStateCompact(node(s))));
    const long = goldenLines("057").slice(2).map((l) => l.trim().split(/\s+/)[3]);
    expect(long).toEqual(["IDLE", "IDLE", "ALLOCATED", "ALLOCATED", "MIXED", "MIXED"].map((s) => nodeStateLong(node(s))));
  });

  it("scontrol show node State= (018, 066) and show job JobState=/Reason= (118)", () => {
    expect(keyValues(goldenStdout("018")).get("State")).toEqual(Array(4).fill(nodeStateScontrol(node("IDLE"))));
    expect(keyValues(goldenStdout("066")).get("State")).toEqual([nodeStateScontrol(node("ALLOCATED"))]);
    const kv = keyValues(goldenStdout("118"));
    expect(kv.get("JobState")).toEqual([jobStateLong(job("FAILED"))]);
    expect(isJobReason(kv.get("Reason")?.[0] ?? "")).toBe(true);
  });

  it("sacct State column (104)", () => {
    const states = goldenLines("104").slice(2).map((l) => l.trim().split(/\s+/)[5]);
    for (const s of states) expect(["COMPLETED", "FAILED", "CANCELLED+"]).toContain(s);
    expect(states).toContain(jobStateLong(job("COMPLETED")));
    expect(states).toContain(jobStateLong(job("FAILED")));
  });
});
