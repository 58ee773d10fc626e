/**
 * @module sched/model/update-request
 * `scontrol update JobId=N` keys that change what a job asks for (its spec, which the scheduler
 * reads through plan/request.ts) and how its record shows it (scontrol show job). Each setter
 * changes both, as the same option does at submission. What 22.05 does with each key was probed
 * on the oracle (tests/unit/sched/update-request.test.ts): the values it shows, the values it
 * takes without a word (Switches=abc, TasksPerNode=0) and its refusals.
 */
import type { ClusterState, JobRecord } from "./types.ts";
import { parseBeginTime, parseTimeLimit } from "../../compat/parse-time.ts";
import { mailTypeText } from "../../compat/mail-type.ts";
import { knownFeatures } from "./apply-submit.ts";
import { setStdPaths } from "./std-paths.ts";
import { memText } from "./tres.ts";
import { mayUse } from "../resv/types.ts";
import { parseGres } from "../../compat/options/spec-syntax.ts";
import { gpuTresTexts } from "../plan/request.ts";
import { INVALID_RESERVATION, RESERVATION_ACCESS } from "../acct/submit-policy.ts";
import { noteGiven } from "../../compat/given-empty.ts";
import { INVALID_LICENSE, licenseText, parseLicenseRequest } from "../../compat/licenses.ts";

/** What a setter may read besides the job: the state, whether an administrator asks, the command's time. */
export interface UpdateCtx {
  state: ClusterState;
  admin: boolean;
  at: number;
}

type Setter = (job: JobRecord, value: string, ctx: UpdateCtx) => string;

/** Slurm's cap on --switches' wait (max_switch_wait's default), as at submission. */
const SWITCH_WAIT_MAX_SEC = 300;

/** A whole number as Slurm's update reads it (strtol: leading digits; none: 0). */
const leadingInt = (v: string): number => {
  const m = /^\s*(\d+)/.exec(v);
  return m ? Number(m[1]) : 0;
};

/** A TRES text ("cpu=1,mem=256M,node=1,billing=1") with one item set (added at the end when absent). */
export function withTresItem(tres: string, key: string, value: string): string {
  const items = tres === "" ? [] : tres.split(",");
  const at = items.findIndex((i) => i.startsWith(`${key}=`));
  if (at >= 0) items[at] = `${key}=${value}`;
  else items.push(`${key}=${value}`);
  return items.join(",");
}

/** A TRES text without one item. */
export function withoutTresItem(tres: string, key: string): string {
  return tres.split(",").filter((i) => i !== "" && !i.startsWith(`${key}=`)).join(",");
}

const TRES_INVALID = "Invalid Trackable RESource (TRES) specification";

/** The mail fields of the record from the spec: shown only with a type, the user defaulting to the submitter. */
function showMail(job: JobRecord): void {
  const type = mailTypeText(job.spec.mailType);
  if (type === "") {
    delete job.info.mailType;
    delete job.info.mailUser;
  } else Object.assign(job.info, { mailType: type, mailUser: job.spec.mailUser || job.info.user });
}

/** The job's nodes' largest memory (MinMemoryNode=0 asks for all of it; TRES shows that). */
function nodeMemory(ctx: UpdateCtx, job: JobRecord): number {
  let most = 0;
  const part = ctx.state.partitions.find((p) => p.info.name === job.info.partition.split(",")[0]);
  for (const name of part?.nodeNames ?? []) most = Math.max(most, ctx.state.nodes.get(name)?.info.realMemoryMib ?? 0);
  return most;
}

export const REQUEST_SETTERS: Record<string, Setter> = {
  // a started job takes TimeMin= and Deadline= without a word and keeps what it had (oracle)
  timemin: (job, v) => {
    if (job.info.state !== "PENDING") return "";
    const parsed = parseTimeLimit(v, "TimeMin");
    if (!parsed.ok || parsed.value === undefined) return "Invalid time specification";
    const limit = job.info.timeLimitMin;
    if (limit !== undefined && parsed.value > limit) return "Invalid time-min specification (exceeds job's time or other limits)";
    job.spec.timeMinMin = parsed.value;
    job.info.timeMinMin = parsed.value;
    return "";
  },
  deadline: (job, v, ctx) => {
    if (job.info.state !== "PENDING") return "";
    const t = parseBeginTime(v, ctx.at, "Deadline");
    if (!t.ok) return "Invalid time specification";
    if (t.value <= ctx.at) return "Invalid time specified";
    job.spec.deadline = t.value;
    job.info.deadline = t.value;
    return "";
  },
  mailuser: (job, v) => {
    job.spec.mailUser = v;
    showMail(job);
    return "";
  },
  mailtype: (job, v) => {
    job.spec.mailType = v;
    showMail(job);
    return "";
  },
  requeue: (job, v) => {
    const on = leadingInt(v) !== 0;
    Object.assign(job.spec, { requeue: on, noRequeue: !on });
    job.info.requeue = on;
    return "";
  },
  contiguous: (job, v) => {
    const on = /^(y|yes|true)$/i.test(v.trim()) || leadingInt(v) !== 0;
    job.spec.contiguous = on;
    if (on) job.info.contiguous = true;
    else delete job.info.contiguous;
    return "";
  },
  // OverSubscribe=yes shares nodes as -s does; no takes the sharing back (22.05 then shows NO, Spur OK: the same placement)
  oversubscribe: (job, v) => {
    const on = /^(y|yes|force)/i.test(v.trim());
    job.spec.oversubscribe = on;
    if (on) job.info.oversubscribe = true;
    else delete job.info.oversubscribe;
    return "";
  },
  // "N[@wait]"; a count that is not a number (or 0) leaves the job as it was (oracle: Switches=abc changes nothing)
  switches: (job, v) => {
    const [countText = "", waitText] = v.split("@");
    const count = leadingInt(countText);
    if (count === 0) return "";
    job.spec.reqSwitch = count;
    job.info.reqSwitch = count;
    if (waitText !== undefined) setSwitchWait(job, waitText);
    job.info.wait4switchSec ??= 0;
    return "";
  },
  "wait-for-switch": (job, v) => {
    setSwitchWait(job, v);
    return "";
  },
  wckey: (job, v) => {
    job.spec.wckey = v;
    job.info.wckey = v;
    return "";
  },
  // minutes, as --delay-boot (oracle: DelayBoot=60 is 01:00:00)
  delayboot: (job, v) => {
    const parsed = parseTimeLimit(v, "DelayBoot");
    if (!parsed.ok || parsed.value === undefined) return "Invalid time specification";
    job.spec.delayBootSec = parsed.value * 60;
    if (parsed.value > 0) job.info.delayBootSec = parsed.value * 60;
    else delete job.info.delayBootSec;
    return "";
  },
  // as given, relative too (oracle: WorkDir=rel shows StdOut=rel/slurm-N.out); the output paths follow
  workdir: (job, v) => {
    job.spec.workDir = v;
    job.info.workDir = v;
    setStdPaths(job, job.info.batchHost);
    return "";
  },
  // stderr follows stdout when it was not given apart (oracle)
  stdout: (job, v) => {
    job.spec.stdOut = v;
    setStdPaths(job, job.info.batchHost);
    return "";
  },
  mintmpdisknode: (job, v) => {
    const mib = leadingInt(v);
    job.spec.tmpMib = mib;
    if (mib > 0) job.info.minTmpDiskMib = mib;
    else delete job.info.minTmpDiskMib;
    return "";
  },
  reqsockets: (job, v) => {
    job.spec.socketsPerNode = leadingInt(v);
    job.info.reqSocketsPerNode = leadingInt(v);
    return "";
  },
  reqcores: (job, v) => {
    job.spec.coresPerSocket = leadingInt(v);
    job.info.reqCoresPerSocket = leadingInt(v);
    return "";
  },
  reqthreads: (job, v) => {
    job.spec.threadsPerCore = leadingInt(v);
    job.info.reqThreadsPerCore = leadingInt(v);
    return "";
  },
  // the count per task changes; NumCPUs stays until the job is placed (oracle)
  cpuspertask: (job, v) => {
    job.spec.cpusPerTask = leadingInt(v);
    job.info.cpusPerTask = leadingInt(v);
    return "";
  },
  // 0 leaves it (oracle)
  taskspernode: (job, v) => {
    const n = leadingInt(v);
    if (n === 0) return "";
    job.spec.ntasksPerNode = n;
    job.info.ntasksPerNode = n;
    return "";
  },
  // --mincpus: NumCPUs and TRES cpu/billing grow to it (oracle: MinCPUsNode=2 on -n1 shows NumCPUs=2, cpu=2, billing=2)
  mincpusnode: (job, v) => {
    const n = leadingInt(v);
    job.spec.mincpus = n;
    job.info.minCpusNode = n;
    const cpus = Math.max(job.info.numCpus, n * Math.max(1, job.info.numNodes));
    if (cpus !== job.info.numCpus) {
      job.info.numCpus = cpus;
      job.info.tresReq = withTresItem(withTresItem(job.info.tresReq, "cpu", String(cpus)), "billing", String(cpus));
    }
    return "";
  },
  // the job's least CPU count over all its nodes: NumCPUs and TRES cpu/billing show it, MinCPUsNode stays (oracle:
  // NumCPUs=2 on -n1); the scheduler gets it as a per-node minimum over the job's nodes. Of a range
  // (NumCPUs=2-4) the minimum is kept (22.05 shows the range)
  numcpus: (job, v) => {
    const cpus = leadingInt(v);
    if (cpus === 0) return "";
    const nodes = Math.max(1, job.spec.nodesMin);
    job.spec.mincpus = Math.max(job.spec.mincpus ?? 0, Math.ceil(cpus / nodes));
    job.info.numCpus = cpus;
    job.info.tresReq = withTresItem(withTresItem(job.info.tresReq, "cpu", String(cpus)), "billing", String(cpus));
    return "";
  },
  // --mem: 0 asks for the nodes' whole memory (oracle: TRES mem=4000M on 4000 MB nodes)
  minmemorynode: (job, v, ctx) => {
    const mib = leadingInt(v);
    setMemory(job, "node", mib);
    const shown = mib === 0 ? nodeMemory(ctx, job) : mib;
    job.info.tresReq = withTresItem(job.info.tresReq, "mem", memText(shown * Math.max(1, job.info.numNodes)));
    return "";
  },
  // --mem-per-cpu; 0 reads as MinMemoryNode=0 with the TRES left as they were (oracle)
  minmemorycpu: (job, v) => {
    const mib = leadingInt(v);
    if (mib === 0) {
      setMemory(job, "node", 0);
      return "";
    }
    setMemory(job, "cpu", mib);
    job.info.tresReq = withTresItem(job.info.tresReq, "mem", memText(mib * Math.max(1, job.info.numCpus)));
    return "";
  },
  prefer: (job, v, ctx) => {
    if (v !== "" && !knownFeatures(ctx.state, v)) return "Invalid preferred feature specification";
    job.spec.prefer = v;
    if (v === "") delete job.info.prefer;
    else job.info.prefer = v;
    return "";
  },
  // as --reservation at submission: it must exist and let the job's user and account in; empty leaves it
  reservationname: (job, v, ctx) => {
    if (job.info.state !== "PENDING") return v === "" ? "" : "Job is no longer pending execution";
    if (v !== "") {
      const r = ctx.state.reservations.get(v);
      if (r === undefined) return INVALID_RESERVATION;
      if (!mayUse(r, job.info.user, job.info.account)) return RESERVATION_ACCESS;
    }
    job.spec.reservation = v;
    job.info.reservation = v;
    return "";
  },
  // --gres: TresPerNode and TRES gres/gpu follow, per node (oracle: Gres=gpu:1 adds gres/gpu=1, on -N2 gres/gpu=2); a name
  // the cluster does not count is refused (oracle: Gres=bogus:1); empty clears it (22.05 leaves TRES and shows "gres:")
  gres: (job, v, ctx) => {
    const parsed = v === "" ? { ok: true as const, value: [] } : parseGres(v);
    if (!parsed.ok) return TRES_INVALID;
    const counted = new Set(["gpu", ...(ctx.state.config.gresTypes ?? []).map((t) => t.toLowerCase())]);
    if (!parsed.value.every((g) => counted.has(g.name.toLowerCase()))) return "Invalid generic resource (gres) specification";
    job.spec.gresPerNode = parsed.value;
    job.info.tresPerNode = gpuTresTexts(job.spec).perNode;
    const gpus = parsed.value.filter((g) => g.name === "gpu").reduce((n, g) => n + g.count, 0) * Math.max(1, job.info.numNodes);
    job.info.tresReq = gpus > 0 ? withTresItem(job.info.tresReq, "gres/gpu", String(gpus)) : withoutTresItem(job.info.tresReq, "gres/gpu");
    return "";
  },
  // an administrator's note (scontrol show job, before Comment=); empty clears it
  admincomment: (job, v, ctx) => {
    if (!ctx.admin) return "Access/permission denied";
    if (v === "") delete job.info.adminComment;
    else job.info.adminComment = v;
    return "";
  },
  // as -L at submission (oracle: Licenses=foo on a cluster without it); empty clears it (shown "Licenses=", not (null))
  licenses: (job, v, ctx) => {
    if (v !== "") {
      const parsed = parseLicenseRequest(v, ctx.state.licenses ?? new Map());
      if (!parsed.ok) return INVALID_LICENSE;
      if (job.info.state !== "PENDING") return "Job is no longer pending execution";
      job.info.licenses = licenseText(parsed.value);
    } else job.info.licenses = "";
    job.spec.licenses = v;
    const given = noteGiven(job.info.givenEmpty, "licenses", v === "");
    if (given === undefined) delete job.info.givenEmpty;
    else job.info.givenEmpty = given;
    return "";
  },
  // added to the priority (oracle: SiteFactor=5 on 11156 shows 11161, then -3 shows 11153, abc reads 0), running or not
  sitefactor: (job, v, ctx) => {
    if (!ctx.admin) return "Access/permission denied";
    const m = /^\s*([+-]?\d+)/.exec(v);
    const site = m ? Number(m[1]) : 0;
    if (job.info.priority > 0 && job.priorityFixed !== true) job.info.priority = Math.max(1, job.info.priority - (job.info.siteFactor ?? 0) + site);
    if (site === 0) delete job.info.siteFactor;
    else job.info.siteFactor = site;
    return "";
  },
  // scontrol checks the value (yes|no|1|0); Spur reboots no node for it, the record shows it (Reboot=1)
  reboot: (job, v) => {
    if (/^(yes|1)$/i.test(v.trim())) job.info.reboot = true;
    else delete job.info.reboot;
    return "";
  },
  // Spur keeps no accrue time (no QOS accrue limits): accepted for a pending job, as 22.05, changing nothing
  resetaccruetime: () => "",
  // Refused as 22.05 refuses them on a cluster like Spur's
  endtime: (job) => (job.info.state === "PENDING" ? "Job is not running" : "Update of this parameter is not supported: EndTime"),
  corespec: () => "Access/permission denied", // AllowSpecResourcesUsage=No
  threadspec: () => "Access/permission denied",
  burstbuffer: () => "Requested operation not supported on this system", // no burst buffer plugin
  clusters: () => "Unspecified error", // one cluster, no federation
  clusterfeatures: () => "Unspecified error",
};

function setSwitchWait(job: JobRecord, text: string): void {
  const parsed = parseTimeLimit(text, "wait-for-switch");
  // a wait that is not a time is the most there is (oracle: Switches=2@abc shows 2@00:05:00)
  const sec = parsed.ok && parsed.value !== undefined ? Math.min(parsed.value * 60, SWITCH_WAIT_MAX_SEC) : SWITCH_WAIT_MAX_SEC;
  job.spec.wait4switchSec = sec;
  job.info.wait4switchSec = sec;
}

function setMemory(job: JobRecord, kind: "node" | "cpu", mib: number): void {
  delete job.spec.memPerGpuMib;
  if (kind === "node") {
    job.spec.memPerNodeMib = mib;
    delete job.spec.memPerCpuMib;
    Object.assign(job.info, { memPerNodeMib: mib, memPerCpuMib: 0 });
  } else {
    job.spec.memPerCpuMib = mib;
    delete job.spec.memPerNodeMib;
    Object.assign(job.info, { memPerNodeMib: 0, memPerCpuMib: mib });
  }
  delete job.info.memPerTres;
}
