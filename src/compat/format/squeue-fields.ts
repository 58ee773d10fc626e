/**
 * @module format/squeue-fields
 * The squeue job column table: one row per `-o` letter with its `-O` name(s),
 * header and value (facts: shared/slurm-surface/squeue-format.tsv and
 * squeue-Format.tsv). The -O-only names live in squeue-fields-long.ts; both
 * feed one resolver, so default, -l, --start and user formats print alike.
 */
import { emptyOrNull } from "../given-empty.ts";
import { overSubscribeText } from "../oversubscribe.ts";
import { formatTimeLimit } from "../format-time.ts";
import {
  arrayJobIdOf,
  arrayTaskIdText,
  convertNumUnit,
  displayJobId,
  durationText,
  expectedEndTime,
  hasBeginTime,
  isPending,
  shownStartTime,
  type JobRow,
  memoByNumber,
  orAny,
  orNa,
  orNull,
  priorityFraction,
  reasonList,
  showsReason,
  stateCompactText,
  stateLongText,
  timeLeftAt,
  timeText,
  timeUsedText,
} from "./job-values.ts";

/** One squeue column. `key` is its canonical -O name. */
export interface JobField {
  key: string;
  letter?: string;
  /** Further -O names that select this column (case-insensitive). */
  aliases?: readonly string[];
  header: string;
  get: (row: JobRow, width: number) => string | undefined;
  cut?: boolean | ((row: JobRow) => boolean);
  cutHeader?: boolean;
}

const field = (
  key: string,
  letter: string | undefined,
  header: string,
  get: JobField["get"],
  extra: Partial<JobField> = {},
): JobField => ({ key, ...(letter === undefined ? {} : { letter }), header, get, ...extra });

/** The job's limit text and whether it may be cut (only the words may). */
const limitText = memoByNumber((min) => formatTimeLimit(min));
export const timeLimitText = (r: JobRow): string =>
  r.job.timeLimitMin === undefined ? formatTimeLimit(undefined) : limitText(r.job.timeLimitMin);
const limitIsWord = (r: JobRow): boolean => r.job.timeLimitMin === undefined;

export function timeLeftText(r: JobRow): string {
  const left = timeLeftAt(r.job, r);
  return left === undefined ? "UNLIMITED" : durationText(left);
}

/**
 * %e: "NONE" for a job without a limit that ends in the future: a running (or suspended) one, or a
 * pending one that waits for its begin time (Slurm gives it an end a limit after its begin; oracle,
 * held --begin). A job that has ended shows its end, also within the second it ended in (its end
 * has a fraction of a second that `now`, whole seconds, lacks; oracle: squeue -o %e right after
 * scancel of a held job).
 */
export function endTimeText(r: JobRow): string {
  const waitsForBegin = isPending(r.job) && hasBeginTime(r.job) && r.job.startTime > r.now;
  const active = r.job.state === "RUNNING" || r.job.state === "SUSPENDED";
  if (r.job.timeLimitMin === undefined && ((active && expectedEndTime(r.job) > r.now) || waitsForBegin)) return "NONE";
  return timeText(r.job.endTime);
}

export const overSubscribeOf = (r: JobRow): string => overSubscribeText(r.job);

const execHost = (r: JobRow): string => {
  const host = r.job.batchFlag ? r.job.batchHost : r.job.submitHost;
  return host === "" ? "n/a" : host;
};

const minMemory = (r: JobRow): string =>
  convertNumUnit(r.job.memPerNodeMib || r.job.memPerCpuMib, 2);

const groupName = (r: JobRow): string => r.job.group || String(r.job.gid);

/** Columns reachable through a `-o` letter, in Slurm's table order. */
export const LETTER_FIELDS: readonly JobField[] = [
  field("Account", "a", "ACCOUNT", (r) => orNull(r.job.account)),
  field("JobId", "A", "JOBID", (r) => String(r.job.jobId)),
  field("tres-per-node", "b", "TRES_PER_NODE", (r) => orNa(r.job.tresPerNode), { aliases: ["Gres"] }),
  field("BatchHost", "B", "EXEC_HOST", execHost),
  field("MinCPUs", "c", "MIN_CPUS", (r) => String(Math.max(1, r.job.cpusPerTask, r.job.minCpusNode ?? 0))),
  field("NumCPUs", "C", "CPUS", (r) => String(r.job.numCpus)),
  field("MinTmpDisk", "d", "MIN_TMP_DISK", (r) => (r.job.minTmpDiskMib ? convertNumUnit(r.job.minTmpDiskMib, 2) : "0")),
  // a pending job given -N lists the node estimate beyond -N's maximum (job-layout.ts listedNodes)
  field("NumNodes", "D", "NODES", (r) => String(r.job.state === "PENDING" ? (r.job.nodeCountEstimate ?? r.job.numNodes) : r.job.numNodes)),
  field("EndTime", "e", "END_TIME", endTimeText),
  field("Dependency", "E", "DEPENDENCY", (r) => orNull(r.job.dependency)),
  field("Feature", "f", "FEATURES", (r) => emptyOrNull(r.job.features, r.job.givenEmpty, "constraint")),
  field("ArrayJobId", "F", "ARRAY_JOB_ID", (r) => String(arrayJobIdOf(r.job))),
  field("GroupName", "g", "GROUP", groupName),
  field("GroupId", "G", "GROUP", (r) => String(r.job.gid)),
  field("OverSubscribe", "h", "OVER_SUBSCRIBE", overSubscribeOf, { aliases: ["Shared"] }),
  field("Sockets", "H", "SOCKETS_PER_NODE", (r) => orAny(r.job.reqSocketsPerNode)),
  field("JobArrayId", "i", "JOBID", (r) => displayJobId(r.job)),
  field("Cores", "I", "CORES_PER_SOCKET", (r) => orAny(r.job.reqCoresPerSocket)),
  field("Name", "j", "NAME", (r) => r.job.name),
  field("Threads", "J", "THREADS_PER_CORE", (r) => orAny(r.job.reqThreadsPerCore)),
  field("Comment", "k", "COMMENT", (r) => emptyOrNull(r.job.comment, r.job.givenEmpty, "comment")),
  field("ArrayTaskId", "K", "ARRAY_TASK_ID", (r) => arrayTaskIdText(r.job)),
  field("TimeLimit", "l", "TIME_LIMIT", timeLimitText, { cut: limitIsWord }),
  field("TimeLeft", "L", "TIME_LEFT", timeLeftText, { cut: limitIsWord }),
  field("MinMemory", "m", "MIN_MEMORY", minMemory),
  field("TimeUsed", "M", "TIME", timeUsedText, { cut: false }),
  field("ReqNodes", "n", "REQ_NODES", (r) => r.job.reqNodelist, { cut: false }),
  field("NodeList", "N", "NODELIST", (r) => r.job.nodelist, { cut: false, cutHeader: false }),
  field("Command", "o", "COMMAND", (r) => orNull(r.job.command)),
  field("Contiguous", "O", "CONTIGUOUS", (r) => (r.job.contiguous ? "1" : "0")),
  field("Priority", "p", "PRIORITY", (r) => priorityFraction(r.job.priority)),
  field("Partition", "P", "PARTITION", (r) => r.job.partition),
  // a job whose QOS the database lacks has an empty one, printed empty (oracle 22.05: -q foo)
  field("QOS", "q", "QOS", (r) => r.job.qos),
  field("PriorityLong", "Q", "PRIORITY", (r) => String(r.job.priority)),
  field("Reason", "r", "REASON", (r) => r.job.reason || "None"),
  field("ReasonList", "R", "NODELIST(REASON)", (r) => reasonList(r.job), {
    cut: (r) => showsReason(r.job),
    cutHeader: false,
  }),
  // 22.05 printed select-plugin info here; Slurm 26.x prints the SLUID (tables win).
  field("SLUID", "s", "SLUID", () => undefined),
  field("StartTime", "S", "START_TIME", (r) => timeText(shownStartTime(r.job))),
  field("StateCompact", "t", "ST", (r) => stateCompactText(r.job)),
  field("State", "T", "STATE", (r) => stateLongText(r.job)),
  field("UserName", "u", "USER", (r) => r.job.user || String(r.job.uid)),
  field("UserId", "U", "UID", (r) => String(r.job.uid)),
  field("Reservation", "v", "RESERVATION", (r) => orNull(r.job.reservation)),
  field("SubmitTime", "V", "SUBMIT_TIME", (r) => timeText(r.job.submitTime)),
  field("WCKey", "w", "WCKEY", (r) => emptyOrNull(r.job.wckey, r.job.givenEmpty, "wckey")),
  // --licenses= given empty prints empty, left out (null) (oracle 22.05), as scontrol's Licenses=
  field("Licenses", "W", "LICENSES", (r) => emptyOrNull(r.job.licenses ?? "", r.job.givenEmpty, "licenses")),
  field("ExcNodes", "x", "EXC_NODES", (r) => r.job.excNodelist, { cut: false }),
  field("CoreSpec", "X", "CORE_SPEC", () => "N/A"),
  field("Nice", "y", "NICE", (r) => String(r.job.nice)),
  field("SchedNodes", "Y", "SCHEDNODES", (r) => orNull(r.job.schedNodelist), {
    cut: false,
    cutHeader: false,
  }),
  field("SCT", "z", "S:C:T", (r) => `${orAny(r.job.reqSocketsPerNode)}:${orAny(r.job.reqCoresPerSocket)}:${orAny(r.job.reqThreadsPerCore)}`),
  field("WorkDir", "Z", "WORK_DIR", (r) => r.job.workDir),
];

/** What squeue's `-o %all` stands for: every letter a..z, A..Z joined with "|". */
export const ALL_FORMAT = [..."abcdefghijklmnopqrstuvwxyz", ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"].map((l) => `%${l}`).join("|");
