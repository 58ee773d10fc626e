/**
 * @module format/squeue-fields-long
 * squeue columns reachable only by `-O` name (no `-o` letter), and the one
 * resolver that maps letters and names to columns. Values Spur does not track
 * (burst buffers, federation, boards...) print what Slurm prints when unset.
 */
import { isGivenEmpty } from "../given-empty.ts";
import type { ColumnDef } from "./format-spec.ts";
import { formatDuration } from "../format-time.ts";
import { accrueTimeOf, eligibleTimeOf, gresPerSocketText, gresPerTaskText, isPending, type JobRow, orNa, orNull, timeText, timeUsedText } from "./job-values.ts";
import { assert } from "../../lib/assert.ts";
import { type JobField, LETTER_FIELDS } from "./squeue-fields.ts";

const always =
  (text: string | undefined) =>
  (): string | undefined =>
    text;

const f = (key: string, header: string, get: JobField["get"], aliases?: string[]): JobField => ({
  key,
  header,
  get,
  ...(aliases === undefined ? {} : { aliases }),
});

function pendingTime(r: JobRow): string {
  const start = Math.floor(r.job.startTime);
  const submit = Math.floor(r.job.submitTime);
  return String(start !== 0 && start < r.now ? start - submit : r.now - submit);
}

const exitText = (r: JobRow): string => `${r.job.exitCode}:${r.job.exitSignal}`;
const tresAlloc = (r: JobRow): string => orNa(r.job.tresAlloc || r.job.tresReq);

/** Columns with a name but no letter, in squeue-Format.tsv order. */
export const NAME_ONLY_FIELDS: readonly JobField[] = [
  f("AccrueTime", "ACCRUE_TIME", (r) => timeText(accrueTimeOf(r.job, r.now))),
  f("admin_comment", "ADMIN_COMMENT", always(undefined)),
  // the submitting host as the controller resolved the client's address (as scontrol's AllocNode)
  f("AllocNodes", "ALLOC_NODES", (r) => orNull(r.job.allocNode || r.job.submitHost)),
  f("AllocSID", "ALLOC_SID", (r) => String(r.job.allocSid)),
  // the association the job was charged to, as sacct's AssocID (0 when none was resolved)
  f("AssocId", "ASSOC_ID", (r) => String(r.job.assocId ?? 0)),
  f("BatchFlag", "BATCH_FLAG", (r) => (r.job.batchFlag ? "1" : "0")),
  f("BoardsPerNode", "BOARDS_PER_NODE", always("0")),
  f("BurstBuffer", "BURST_BUFFER", (r) => r.job.burstBuffer || (isGivenEmpty(r.job.givenEmpty, "bb") ? "" : undefined)),
  f("BurstBufferState", "BURST_BUFFER_STATE", always(undefined)),
  f("Cluster", "CLUSTER", (r) => r.cluster),
  f("ClusterFeature", "CLUSTER_FEATURES", always(undefined)),
  f("Container", "CONTAINER", always(undefined)),
  f("ContainerId", "CONTAINERID", always(undefined)),
  f("CPUsPerTask", "CPUS_PER_TASK", (r) => String(Math.max(1, r.job.cpusPerTask)), ["cpus-per-task"]),
  f("cpus-per-tres", "CPUS_PER_TRES", always("N/A")),
  f("CronJob", "CRON_JOB", always("No")),
  f("Deadline", "DEADLINE", (r) => timeText(r.job.deadline)),
  f("DelayBoot", "DELAY_BOOT", always("0:00")),
  f("DerivedEC", "DERIVED_EC", (r) => `${r.job.derivedExitCode}:0`),
  f("EligibleTime", "ELIGIBLE_TIME", (r) => timeText(eligibleTimeOf(r.job))),
  f("Exclusive", "EXCLUSIVE", (r) => (r.job.exclusive ? "NODE" : "NO")),
  f("exit_code", "EXIT_CODE", exitText),
  f("HetJobId", "HET_JOB_ID", (r) => (r.job.hetJobId ? String(r.job.hetJobId) : "N/A"), ["PackJobId"]),
  f("HetJobIdSet", "HET_JOB_ID_SET", (r) => r.job.hetJobIdSet || "N/A", ["PackJobIdSet"]),
  f("HetJobOffset", "HET_JOB_OFFSET", (r) => (r.job.hetJobId ? String(r.job.hetJobOffset ?? 0) : "N/A"), ["PackJobOffset"]),
  f("LastSchedEval", "LAST_SCHED_EVAL", (r) => timeText(r.job.lastSchedEval)),
  f("LicensesAlloc", "LICENSES_ALLOC", (r) => r.job.licensesAlloc || undefined),
  f("MaxCPUs", "MAX_CPUS", (r) => String(r.job.numCpus)),
  f("MaxNodes", "MAX_NODES", (r) => String(r.job.numNodes)),
  f("mem-per-tres", "MEM_PER_TRES", always("N/A")),
  f("MCSLabel", "MCSLABEL", always(undefined)),
  f("MinTime", "TIME_MIN", always("0:00")),
  f("Network", "NETWORK", always(undefined)),
  f("NTPerCore", "NTASKS_PER_CORE", always("N/A")),
  f("NTPerNode", "NTASKS_PER_NODE", (r) => String(r.job.ntasksPerNode)),
  f("NTPerSocket", "NTASKS_PER_SOCKET", always("N/A")),
  f("NTPerBoard", "NTASKS_PER_BOARD", always("0")),
  // no task count (a job cancelled pending without -n) prints Slurm's NO_VAL (oracle: squeue -O NumTasks)
  f("NumTasks", "TASKS", (r) => String(r.job.numTasks === 0 ? 4294967294 : r.job.numTasks)),
  // not federated: no origin or sibling clusters (oracle 22.05: NA)
  f("Origin", "ORIGIN", always("NA")),
  f("OriginRaw", "ORIGIN_RAW", always("NA")),
  f("PendingTime", "PENDING_TIME", pendingTime),
  f("PreemptTime", "PREEMPT_TIME", always("N/A")),
  f("Prefer", "PREFER", (r) => r.job.prefer || (isGivenEmpty(r.job.givenEmpty, "prefer") ? "" : undefined)),
  f("Profile", "PROFILE", always("NotSet")),
  f("Reboot", "REBOOT", always("0")),
  f("ReqSwitch", "REQ_SWITCH", (r) => `${r.job.reqSwitch ?? 0}`),
  f("Requeue", "REQUEUE", (r) => (r.job.requeue ? "1" : "0")),
  f("ResizeTime", "RESIZE_TIME", always("N/A")),
  f("RestartCnt", "RESTART_COUNT", (r) => String(r.job.restarts)),
  f("Runtime", "RUNTIME", timeUsedText),
  f("SegmentSize", "SEGMENT_SIZE", always("N/A")),
  f("SiblingsActive", "ACTIVE_SIBLINGS", always("NA")),
  f("SiblingsActiveRaw", "ACTIVE_SIBLINGS_RAW", always("NA")),
  f("SiblingsViable", "VIABLE_SIBLINGS", always("NA")),
  f("SiblingsViableRaw", "VIALBLE_SIBLINGS_RAW", always("NA")),
  f("SPerBoard", "SOCKETS_PER_BOARD", always("0")),
  f("StdErr", "STDERR", (r) => orNull(r.job.stdErr)),
  f("StdIn", "STDIN", (r) => orNull(r.job.stdIn)),
  f("StdOut", "STDOUT", (r) => orNull(r.job.stdOut)),
  f("system_comment", "SYSTEM_COMMENT", always(undefined)),
  f("tres-alloc", "TRES_ALLOC", tresAlloc, ["Tres"]),
  f("tres-bind", "TRES_BIND", (r) => orNa((r.job.tresBind ?? "").replace(/^gres\/gpu:/, "gpu:"))),
  f("tres-freq", "TRES_FREQ", always("N/A")),
  f("tres-per-job", "TRES_PER_JOB", (r) => orNa(r.job.tresPerJob)),
  f("tres-per-socket", "TRES_PER_SOCKET", (r) => orNa(gresPerSocketText(r.job))),
  f("tres-per-task", "TRES_PER_TASK", (r) => orNa(gresPerTaskText(r.job.tresPerTask ?? ""))),
  f("Wait4Switch", "WAIT4SWITCH", (r) => formatDuration(r.job.wait4switchSec ?? 0)),
];

const ALL_FIELDS: readonly JobField[] = [...LETTER_FIELDS, ...NAME_ONLY_FIELDS];

const BY_KEY = new Map<string, JobField>(ALL_FIELDS.map((c) => [c.key, c]));
const BY_LETTER = new Map<string, string>();
for (const c of LETTER_FIELDS) {
  // The first row of a duplicated letter wins, as in Slurm's parser.
  if (c.letter !== undefined && !BY_LETTER.has(c.letter)) BY_LETTER.set(c.letter, c.key);
}
const BY_NAME = new Map<string, string>();
for (const c of ALL_FIELDS) {
  for (const name of [c.key, ...(c.aliases ?? [])]) {
    if (!BY_NAME.has(name.toLowerCase())) BY_NAME.set(name.toLowerCase(), c.key);
  }
}

/** `-o` letter → column key. */
export const jobLetter = (letter: string): string | undefined => BY_LETTER.get(letter);

/** `-O` name (any case) → column key. */
export const jobName = (name: string): string | undefined => BY_NAME.get(name.toLowerCase());

const COLUMNS = new Map<string, ColumnDef<JobRow>>();

/** Column definition for a key produced by the resolvers above (built once per key). */
export function jobColumn(key: string): ColumnDef<JobRow> {
  const known = COLUMNS.get(key);
  if (known !== undefined) return known;
  const c = BY_KEY.get(key);
  assert(c !== undefined, `unknown squeue column ${key}`);
  const column: ColumnDef<JobRow> = {
    header: c.header,
    value: c.get,
    ...(c.cut === undefined ? {} : { cut: c.cut }),
    ...(c.cutHeader === undefined ? {} : { cutHeader: c.cutHeader }),
  };
  COLUMNS.set(key, column);
  return column;
}
