/**
 * @module format/sacct-fields
 * The sacct --format field table (facts: slurm-surface/sacct-fields.tsv, Slurm
 * 26.x): name, default width, justification, value kind and getter. One table
 * drives the default/-l/-b lists, --format name matching (case-insensitive
 * prefix, first row wins) and --helpformat. Fields with no data in Spur's
 * records (task statistics, energy, ...) print blank, as Slurm does for NULL.
 */
import { formatCpuTime, formatElapsed as formatElapsedText, formatTimeLimitScontrol } from "../format-time.ts";
import { eligibleTimeOf, memoByNumber } from "./job-values.ts";
import { isoTimeText } from "./time-memo.ts";
import { jobCpuValue, stepUsageValue, USAGE_FIELDS } from "./usage-values.ts";
import {
  exitText,
  jobIdRawText,
  jobIdText,
  nodeCount,
  plannedSecs,
  rowCpus,
  rowElapsed,
  rowEnd,
  rowStart,
  sacctState,
  sortTres,
  tresValue,
  type Job,
  type SacctRow,
} from "./sacct-row.ts";

/** s: text, cut with a trailing "+"; n: number, never cut; t: time, cut plainly. */
export type FieldKind = "s" | "n" | "t";

export type Getter = (row: SacctRow) => string;

export interface SacctField {
  name: string;
  width: number;
  left: boolean;
  kind: FieldKind;
  get: Getter;
}

/** name, default width, L/R justification, kind — in Slurm's table order. */
const FIELD_ROWS = `
Account 10 R s|AdminComment 15 R s|AllocCPUS 10 R n|AllocNodes 10 R s|AllocTRES 10 R s
AssocID 7 R n|AveCPU 10 R s|AveCPUFreq 10 R s|AveDiskRead 14 R s|AveDiskWrite 14 R s
AvePages 10 R s|AveRSS 10 R s|AveVMSize 10 R s|BlockID 16 R s|Cluster 10 R s|Comment 14 R s
Constraints 19 R s|ConsumedEnergy 14 R s|ConsumedEnergyRaw 17 R n|Container 19 R s
CPUTime 10 R t|CPUTimeRAW 10 R n|DBIndex 21 L n|DerivedExitCode 15 R s|Elapsed 10 R t
ElapsedRaw 10 R n|Eligible 19 R t|End 19 R t|Exclusive 14 R s|ExitCode 8 R s|Extra 14 R s
FailedNode 8 R s|Flags 19 R s|GID 6 R n|Group 9 R s|JobID 12 L s|JobIDRaw 12 L s
JobName 10 R s|Layout 9 R s|Licenses 10 R s|MaxDiskRead 12 R s|MaxDiskReadNode 15 R s
MaxDiskReadTask 15 R n|MaxDiskWrite 12 R s|MaxDiskWriteNode 16 R s|MaxDiskWriteTask 16 R n
MaxPages 8 R s|MaxPagesNode 12 R s|MaxPagesTask 14 R n|MaxRSS 10 R s|MaxRSSNode 10 R s
MaxRSSTask 10 R n|MaxVMSize 10 R s|MaxVMSizeNode 14 R s|MaxVMSizeTask 14 R n|McsLabel 12 R s
MinCPU 10 R s|MinCPUNode 10 R s|MinCPUTask 10 R n|NCPUS 10 R n|NNodes 8 R n|NodeList 15 R s
NTasks 8 R n|OriginalSLUID 14 R s|OverSubscribe 14 R s|Partition 10 R s|Planned 10 R t
PlannedCPU 10 R t|PlannedCPURAW 13 R n|Priority 10 R n|QOS 10 R s|QOSRAW 6 R n|QOSREQ 10 R s
Reason 22 R s|ReqCPUFreq 10 R s|ReqCPUFreqGov 13 R s|ReqCPUFreqMax 13 R s|ReqCPUFreqMin 13 R s
ReqCPUS 8 R n|ReqMem 10 R s|ReqNodes 8 R s|ReqTRES 10 R s|Reservation 20 R s
ReservationId 8 R n|ReqReservation 20 R s|Restarts 8 R n|SegmentSize 11 R n|SLUID 14 R s
Start 19 R t|State 10 R s|StdErr 20 R s|StdIn 20 R s|StdOut 20 R s|Submit 19 R t
SubmitLine 20 R s|Suspended 10 R t|SystemComment 15 R s|SystemCPU 10 R s|Timelimit 10 R s
TimelimitRaw 10 R s|TotalCPU 10 R s|TRESUsageInAve 14 R s|TRESUsageInMax 14 R s
TRESUsageInMaxNode 18 R s|TRESUsageInMaxTask 18 R s|TRESUsageInMin 14 R s
TRESUsageInMinNode 18 R s|TRESUsageInMinTask 18 R s|TRESUsageInTot 14 R s
TRESUsageOutAve 15 R s|TRESUsageOutMax 15 R s|TRESUsageOutMaxNode 19 R s
TRESUsageOutMaxTask 19 R s|TRESUsageOutMin 15 R s|TRESUsageOutMinNode 19 R s
TRESUsageOutMinTask 19 R s|TRESUsageOutTot 15 R s|UID 6 R n|User 9 R s|UserCPU 10 R s
WCKey 10 R s|WCKeyID 10 R n|WorkDir 20 R s`;

const iso = (t: number): string => isoTimeText(t);
/** Elapsed-style durations repeat across a day's jobs: memoised per value. */
const formatElapsed = memoByNumber(formatElapsedText);
/** A value only the job line has (steps print blank). */
const jobOnly =
  (f: (job: Job, row: SacctRow) => string): Getter =>
  (row) =>
    row.step === undefined ? f(row.job, row) : "";

const cpus: Getter = (r) => String(rowCpus(r));
const elapsedSecs = (r: SacctRow): number => rowElapsed(r);
/** CPU times: a step's from its measured usage, the job line's summed over its steps. */
const cpuTime =
  (field: "TotalCPU" | "UserCPU" | "SystemCPU"): Getter =>
  (r) =>
    r.step ? (stepUsageValue(field, r.step.usage) ?? "") : jobCpuValue(field, r.job.steps);
/** Per-step usage (MaxRSS, AveCPU, ...): blank on the job line and for unmeasured steps. */
const usageGetters: Record<string, Getter> = Object.fromEntries(
  USAGE_FIELDS.map((name) => [name, (r: SacctRow) => (r.step ? (stepUsageValue(name, r.step.usage) ?? "") : "")]),
);

/**
 * The job line's ExitCode: a job the controller ended (scancel, time limit) is recorded
 * 0:0; the signal its script died of shows on the .batch step (105-sacct-j-array,
 * x-timeout-sacct: `TIMEOUT 0:0` with `.batch CANCELLED 0:15`).
 */
const jobExitText = (j: SacctRow["job"]): string =>
  j.state === "CANCELLED" || j.state === "TIMEOUT" ? exitText(0, 0) : exitText(j.exitCode, j.exitSignal);

/**
 * The job's scheduling flags as slurmdbd keeps them (22.05's spelling, typo included): a job that
 * ran was started by the main scheduler (Spur's one pass; Scheduler=Main in scontrol), and the
 * database marks "start received" once it had more of the job than its submission; a job still
 * pending has none (oracle: a job that ran SchedMain,StartRecieved; one cancelled held StartRecieved).
 */
function jobFlagsText(j: Job): string {
  if (Math.floor(j.startTime) > 0 && j.nodelist !== "") return "SchedMain,StartRecieved";
  return j.state.toUpperCase() === "PENDING" ? "" : "StartRecieved";
}

const cpuFreq: Getter = (r) => (r.step === undefined ? "Unknown" : "0");

/** Until a job starts, accounting records a limit it did not ask for as the partition's: Timelimit=Partition_Limit. */
const partitionLimit = (j: Job): boolean => j.timeLimitDefault === true && Math.floor(j.startTime) === 0;

const GETTERS: Readonly<Record<string, Getter>> = {
  ...usageGetters,
  Account: (r) => r.job.account,
  AssocID: (r) => (r.job.assocId === undefined ? "" : String(r.job.assocId)),
  // an empty QOS (one the database lacks, not enforced) is QOS id 0, "Unknown" (oracle 22.05: -q foo)
  QOSRAW: jobOnly((j) => (j.qosId === undefined ? (j.qos === "" ? "0" : "") : String(j.qosId))),
  // --cpu-freq is not implemented: a job line shows Slurm's "not requested", a step line 0
  ReqCPUFreq: cpuFreq,
  ReqCPUFreqGov: cpuFreq,
  ReqCPUFreqMax: cpuFreq,
  ReqCPUFreqMin: cpuFreq,
  // no WCKey tracking (TrackWCKey=no): every job line has wckey id 0
  WCKeyID: jobOnly(() => "0"),
  AllocCPUS: cpus,
  AllocNodes: (r) => String(r.step ? nodeCount(r.step.nodelist) : r.job.nodelist === "" ? 0 : r.job.numNodes),
  AllocTRES: (r) => sortTres(r.step ? r.step.tres : r.job.tresAlloc),
  Cluster: (r) => r.cluster,
  Comment: jobOnly((j) => j.comment),
  // Slurm 22.05's sacct has no Licenses field; the 26.x table does (shared/slurm-surface/sacct-fields.tsv)
  Licenses: jobOnly((j) => j.licenses ?? ""),
  Constraints: jobOnly((j) => j.features),
  // --container as given (oracle: /tmp on the job line)
  Container: jobOnly((j) => j.container ?? ""),
  ConsumedEnergy: () => "0",
  ConsumedEnergyRaw: () => "0",
  CPUTime: (r) => formatElapsed(elapsedSecs(r) * rowCpus(r)),
  CPUTimeRAW: (r) => String(elapsedSecs(r) * rowCpus(r)),
  // the accounting row's index: Spur keys a job's row (and its steps') by the job id
  DBIndex: (r) => String(r.job.jobId),
  DerivedExitCode: jobOnly((j) => exitText(j.derivedExitCode, 0)),
  Elapsed: (r) => formatElapsed(elapsedSecs(r)),
  ElapsedRaw: (r) => String(elapsedSecs(r)),
  Eligible: (r) => iso(r.step ? r.step.startTime : eligibleTimeOf(r.job)),
  End: (r) => iso(rowEnd(r)),
  ExitCode: (r) => (r.step ? exitText(r.step.exitCode, r.step.exitSignal) : jobExitText(r.job)),
  Flags: jobOnly(jobFlagsText),
  GID: jobOnly((j) => String(j.gid)),
  Group: jobOnly((j) => j.group),
  JobID: jobIdText,
  JobIDRaw: jobIdRawText,
  JobName: (r) => (r.step ? r.step.name : accountedJobName(r.job.name)),
  NCPUS: cpus,
  // a job that never ran has its requested node count (the TRES node=, as ReqNodes), not the pending
  // estimate scontrol shows (oracle: held -n16 on 4-CPU nodes is NNodes 1; differential seeds 57/270)
  NNodes: (r) => (r.step ? String(nodeCount(r.step.nodelist)) : r.job.nodelist === "" ? (tresValue(r.job.tresReq, "node") ?? String(r.job.numNodes)) : String(r.job.numNodes)),
  NodeList: (r) => (r.step ? r.step.nodelist : r.job.nodelist || "None assigned"),
  NTasks: (r) => (r.step ? String(r.step.ntasks) : ""),
  Partition: jobOnly((j) => j.partition),
  Planned: jobOnly((_j, r) => formatElapsed(plannedSecs(r))),
  PlannedCPU: jobOnly((j, r) => formatElapsed(plannedSecs(r) * j.numCpus)),
  PlannedCPURAW: jobOnly((j, r) => String(plannedSecs(r) * j.numCpus)),
  Priority: jobOnly((j) => String(j.priority)),
  QOS: jobOnly((j) => (j.qos === "" ? "Unknown" : j.qos)),
  Reason: jobOnly(lastPendingReason),
  ReqCPUS: (r) => String(r.step ? r.step.cpus : r.job.numCpus),
  ReqMem: jobOnly((j) => tresValue(j.tresReq, "mem") ?? ""),
  ReqNodes: (r) => (r.step ? String(nodeCount(r.step.nodelist)) : (tresValue(r.job.tresReq, "node") ?? String(r.job.numNodes))),
  ReqTRES: jobOnly((j) => sortTres(j.tresReq)),
  Reservation: jobOnly((j) => j.reservation),
  ReqReservation: jobOnly((j) => j.reservation),
  Restarts: jobOnly((j) => String(j.restarts)),
  Start: (r) => iso(rowStart(r)),
  State: sacctState,
  StdErr: jobOnly((j) => j.stdErr),
  StdIn: jobOnly((j) => j.stdIn),
  StdOut: jobOnly((j) => j.stdOut),
  Submit: (r) => iso(r.step ? r.step.startTime : r.job.submitTime),
  SubmitLine: jobOnly((j) => j.submitLine),
  Suspended: () => formatElapsed(0),
  SystemCPU: cpuTime("SystemCPU"),
  Timelimit: jobOnly((j) => (partitionLimit(j) ? "Partition_Limit" : formatTimeLimitScontrol(j.timeLimitMin))),
  TimelimitRaw: jobOnly((j) => (partitionLimit(j) ? "Partition_Limit" : j.timeLimitMin === undefined ? "UNLIMITED" : String(j.timeLimitMin))),
  TotalCPU: cpuTime("TotalCPU"),
  UID: jobOnly((j) => String(j.uid)),
  User: jobOnly((j) => j.user),
  UserCPU: cpuTime("UserCPU"),
  WCKey: jobOnly((j) => j.wckey),
  WorkDir: jobOnly((j) => j.workDir),
};

const blank: Getter = () => "";

/** Fields with no data in Spur's records: they print "" on every line. */
export const isBlankField = (f: SacctField): boolean => f.get === blank;

/**
 * sacct Reason is the job's last *pending* reason as the database got it (slurmdbd's
 * state_reason_prev), not why it ended: a job that ran shows "None"; one still pending,
 * or cancelled by someone while pending, shows why it was waiting (oracle: JobHeldUser,
 * BeginTime, Dependency). A job the controller itself cancelled before it ever started
 * (--kill-on-invalid-dep: State CANCELLED, no "by UID") shows None: 22.05 cancels it in
 * the pass that finds the dependency broken, before a pending record reached slurmdbd
 * (oracle 2026-12-04: squeue DependencyNeverSatisfied, sacct None).
 */
export function lastPendingReason(job: Job): string {
  const state = job.state.toUpperCase();
  const neverStarted = Math.floor(job.startTime) === 0;
  const pending = state === "PENDING" || (neverStarted && !(state === "CANCELLED" && job.cancelledBy === ""));
  return pending ? job.reason || "None" : "None";
}

/** Every field, in Slurm's table order (what --helpformat and "ALL" list). */
export const SACCT_FIELDS: readonly SacctField[] = FIELD_ROWS.trim()
  .split(/[|\n]/)
  .map((cell) => {
    const [name = "", width = "0", just = "R", kind = "s"] = cell.trim().split(" ");
    return { name, width: Number(width), left: just === "L", kind: kind as FieldKind, get: GETTERS[name] ?? blank };
  });

/** Fields renamed in 23.02; the old names still select the new fields. */
const ALIASES: readonly (readonly [old: string, now: string])[] = [
  ["Reserved", "Planned"], ["ResvCPU", "PlannedCPU"], ["ResvCPURAW", "PlannedCPURAW"],
];

/** --format name lookup: case-insensitive prefix, first table row wins. */
export function findField(typed: string): SacctField | undefined {
  const lower = typed.toLowerCase();
  if (lower === "") return undefined;
  const hit = SACCT_FIELDS.find((f) => f.name.toLowerCase().startsWith(lower));
  if (hit) return hit;
  const alias = ALIASES.find(([old]) => old.toLowerCase() === lower);
  return alias ? SACCT_FIELDS.find((f) => f.name === alias[1]) : undefined;
}

/** Default, brief and long lists (slurm-surface/default-formats.tsv). */
/** The name accounting keeps for a job: slurmdbd records an empty name as "allocation" (oracle 22.05: --job-name= shows JobName= in scontrol, allocation in sacct; differential seed 10458). */
export const accountedJobName = (name: string): string => (name === "" ? "allocation" : name);

export const DEFAULT_FIELDS = "jobid,jobname,partition,account,alloccpus,state,exitcode";
export const BRIEF_FIELDS = "jobid,state,exitcode";
export const LONG_FIELDS = [
  "jobid,jobidraw,jobname,partition,maxvmsize,maxvmsizenode,maxvmsizetask,avevmsize,maxrss",
  "maxrssnode,maxrsstask,averss,maxpages,maxpagesnode,maxpagestask,avepages,mincpu,mincpunode",
  "mincputask,avecpu,ntasks,alloccpus,elapsed,state,exitcode,avecpufreq,reqcpufreqmin",
  "reqcpufreqmax,reqcpufreqgov,reqmem,consumedenergy,maxdiskread,maxdiskreadnode,maxdiskreadtask",
  "avediskread,maxdiskwrite,maxdiskwritenode,maxdiskwritetask,avediskwrite,reqtres,alloctres",
  "tresusageinave,tresusageinmax,tresusageinmaxn,tresusageinmaxt,tresusageinmin,tresusageinminn",
  "tresusageinmint,tresusageintot,tresusageoutmax,tresusageoutmaxn,tresusageoutmaxt",
  "tresusageoutave,tresusageouttot",
].join(",");
