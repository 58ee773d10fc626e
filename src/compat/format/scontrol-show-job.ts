/**
 * @module format/scontrol-show-job
 * `scontrol show job` records in Slurm 22.05's line layout (goldens 059, 062,
 * 063, 064, 065, 081, 118): one line per group of Key=Value pairs, optional
 * lines (BatchHost, TresPerNode, -d details) only when they apply. Values Spur
 * does not track print what Slurm prints for unset ones (TimeMin=N/A, ...).
 */
import { emptyOrNull, isGivenEmpty } from "../given-empty.ts";
import { overSubscribeText } from "../oversubscribe.ts";
import { formatElapsed, formatIsoTime, formatTimeLimitScontrol } from "../format-time.ts";
import { jobStateLong } from "../states.ts";
import { accrueTimeOf, askedGpuType, convertNumUnit, eligibleTimeOf, gresPerSocketText, shownGpuType, gresPerTaskText, isPending, jobTimeUsed, orAny, shownStartTime, type Job } from "./job-values.ts";
import { formatRecord, orNull } from "./scontrol-record.ts";
import { formatCpuList } from "../../lib/cpu-list.ts";
import { compressHostlist } from "../hostlist.ts";
import { gpuTypesOfText } from "../gpu-types.ts";

const iso = (t: number): string => formatIsoTime(t);

function idLine(job: Job, shownTask: number | undefined): string {
  let array = "";
  if (job.arrayJobId !== 0) {
    const task = shownTask ?? (job.arrayTaskStr !== "" ? job.arrayTaskStr : job.arrayTaskId);
    array = ` ArrayJobId=${job.arrayJobId} ArrayTaskId=${task}`;
    if (job.arrayMaxTasks > 0) array += ` ArrayTaskThrottle=${job.arrayMaxTasks}`;
  } else if (job.hetJobId) {
    array = ` HetJobId=${job.hetJobId} HetJobOffset=${job.hetJobOffset ?? 0}`;
  }
  return `JobId=${job.jobId}${array} JobName=${job.name}`;
}

const isActive = (job: Job): boolean => ["RUNNING", "SUSPENDED"].includes(job.state.toUpperCase());

/** EndTime: the recorded end, else the limit-based expected end of a running job. */
function endText(job: Job): string {
  if (job.endTime !== 0) return iso(job.endTime);
  if (isActive(job) && job.startTime !== 0 && job.timeLimitMin !== undefined) {
    return iso(job.startTime + job.timeLimitMin * 60);
  }
  return "Unknown";
}

function memoryText(job: Job): string {
  if (job.memPerCpuMib > 0) return `MinMemoryCPU=${convertNumUnit(job.memPerCpuMib, 2)}`;
  return `MinMemoryNode=${convertNumUnit(job.memPerNodeMib, 2)}`;
}

/**
 * -d: the allocation per node (a run of nodes with equal values on one line): the CPU ids the controller chose for the job on that node
 * (records from before the choice was kept show the first ones), memory, GPUs with their indices.
 */
function detailLines(job: Job, gpuTypeOf: (node: string, held: readonly number[]) => string | undefined): string[] {
  if (job.alloc.length === 0) return [];
  const gres = (job.tresPerNode || job.tresPerJob).replace(/(^|,)gres[/:]/g, "$1");
  const asked = askedGpuType(job);
  // the GPUs held are of their node's type, whatever the request named (shownGpuType): as recorded, else as listed
  const typeAt = (a: Job["alloc"][number]): string | undefined => shownGpuType(a, asked, a.gpuType ? undefined : gpuTypeOf(a.node, a.gpuIndices));
  const lines = [`JOB_GRES=${orNull(jobGres(job, gres, typeAt))}`];
  // consecutive nodes with the same CPU ids, memory and GPUs share one line, as Slurm prints them
  const groups: { nodes: string[]; rest: string }[] = [];
  for (const a of job.alloc) {
    const cpuIds = a.cpuIds || (a.cpus > 1 ? `0-${a.cpus - 1}` : "0");
    const type = typeAt(a);
    const gpu = a.gpuIndices.length > 0 ? `gpu:${type ? `${type}:` : ""}${a.gpuIndices.length}(IDX:${formatCpuList(a.gpuIndices)})` : "";
    // Counted GRES (no device indices) follow the GPUs: "nvme:1".
    const idx = [gpu, a.gres ?? ""].filter((t) => t !== "").join(",");
    const rest = `CPU_IDs=${cpuIds} Mem=${a.memMib} GRES=${idx}`;
    const last = groups[groups.length - 1];
    if (last !== undefined && last.rest === rest) last.nodes.push(a.node);
    else groups.push({ nodes: [a.node], rest });
  }
  for (const g of groups) lines.push(`  Nodes=${compressHostlist(g.nodes)} ${g.rest}`);
  return lines;
}

function timeLines(job: Job, now: number): string[] {
  const deadline = job.deadline === 0 ? "N/A" : iso(job.deadline);
  const suspended = job.suspendTime === 0 ? "None" : iso(job.suspendTime);
  return [
    `RunTime=${formatElapsed(jobTimeUsed(job, now))} TimeLimit=${formatTimeLimitScontrol(job.timeLimitMin)} TimeMin=${job.timeMinMin === undefined ? "N/A" : formatTimeLimitScontrol(job.timeMinMin)}`,
    `SubmitTime=${iso(job.submitTime)} EligibleTime=${iso(eligibleTimeOf(job))}`,
    `AccrueTime=${iso(accrueTimeOf(job, now))}`,
    `StartTime=${iso(shownStartTime(job))} EndTime=${endText(job)} Deadline=${deadline}`,
    `SuspendTime=${suspended} SecsPreSuspend=${Math.floor(job.preSusTime)} LastSchedEval=${iso(job.lastSchedEval)} Scheduler=Main`,
  ];
}

/** A pending job given -N shows its range ("2-2", "1-3"); once nodes are allocated, their count. */
const numNodesText = (job: Job): string =>
  job.state === "PENDING" && job.numNodesMax !== undefined ? `${job.numNodes}-${job.numNodesMax}` : String(job.numNodes);

/**
 * JOB_GRES: the GPUs the job holds on all its nodes, per type in the order first held, then the
 * request's other GRES (oracle 22.05: -N2 --gpus-per-node=1 shows gpu:mi300x:2, --gpus=3 on two
 * nodes gpu:mi300x:3); before any GPU is held, what was asked.
 */
function jobGres(job: Job, asked: string, typeAt: (a: Job["alloc"][number]) => string | undefined): string {
  const held = new Map<string, number>();
  for (const a of job.alloc) {
    if (a.gpuIndices.length === 0) continue;
    const type = typeAt(a) ?? "";
    held.set(type, (held.get(type) ?? 0) + a.gpuIndices.length);
  }
  if (held.size === 0) return asked;
  const gpus = [...held].map(([type, n]) => `gpu:${type ? `${type}:` : ""}${n}`);
  // a GRES asked with a count of 0 holds nothing (oracle 22.05: --gres=gpu:1,tmpfs:0 shows JOB_GRES=gpu:mi300x:1)
  const others = asked.split(",").filter((g) => g !== "" && g !== "gpu" && !g.startsWith("gpu:") && !g.endsWith(":0"));
  return [...gpus, ...others].join(",");
}

function placementLines(job: Job, detail: boolean, gpuTypeOf: (node: string, held: readonly number[]) => string | undefined): string[] {
  const started = job.nodelist !== "";
  const minCpus = job.cpusPerTask * Math.max(1, job.ntasksPerNode);
  const lines = [
    `Partition=${job.partition} AllocNode:Sid=${job.allocNode || job.submitHost}:${job.allocSid}`,
    `ReqNodeList=${emptyOrNull(job.reqNodelist, job.givenEmpty, "nodelist")} ExcNodeList=${emptyOrNull(job.excNodelist, job.givenEmpty, "exclude")}`,
    `NodeList=${job.nodelist}`,
  ];
  if (job.batchHost !== "") lines.push(`BatchHost=${job.batchHost}`);
  lines.push(
    `NumNodes=${numNodesText(job)} NumCPUs=${job.numCpus} NumTasks=${job.numTasks === 0 ? "N/A" : job.numTasks} CPUs/Task=${job.cpusPerTask} ReqB:S:C:T=0:0:${orAny(job.reqCoresPerSocket)}:${orAny(job.reqThreadsPerCore)}`,
    `TRES=${started && job.tresAlloc !== "" ? job.tresAlloc : job.tresReq}`,
    `Socks/Node=${orAny(job.reqSocketsPerNode)} NtasksPerN:B:S:C=${job.ntasksPerNode}:0:${orAny(job.ntasksPerSocket)}:${orAny(job.ntasksPerCore)} CoreSpec=*`,
  );
  if (detail) lines.push(...detailLines(job, gpuTypeOf));
  // the controller records Slurm's per-node minimum at submission (job-layout.ts, with --mincpus)
  lines.push(`MinCPUsNode=${job.minCpusNode ?? minCpus} ${memoryText(job)} MinTmpDiskNode=${job.minTmpDiskMib ? convertNumUnit(job.minTmpDiskMib, 2) : 0}`);
  return lines;
}

/**
 * --cpu-freq as recorded ("Low-High:Performance"): 22.05 prints the range with a trailing
 * space ("CPU_max_freq=High ", "CPU_min_freq=Low CPU_max_freq=High "), the governor after it.
 */
function cpuFreqLine(text: string | undefined): string {
  if (!text) return "";
  const colon = text.indexOf(":");
  const govOnly = colon < 0 && !/^[0-9]|^(Low|Medium|High|Highm1)(-|$)/.test(text);
  const range = govOnly ? "" : colon < 0 ? text : text.slice(0, colon);
  const governor = govOnly ? text : colon < 0 ? "" : text.slice(colon + 1);
  const dash = range.indexOf("-");
  const freq = range === "" ? "" : dash < 0 ? `CPU_max_freq=${range} ` : `CPU_min_freq=${range.slice(0, dash)} CPU_max_freq=${range.slice(dash + 1)} `;
  return `${freq}${governor === "" ? "" : `Governor=${governor}`}`;
}

function fileLines(job: Job): string[] {
  const lines = [`Features=${emptyOrNull(job.features, job.givenEmpty, "constraint")} DelayBoot=${formatElapsed(job.delayBootSec ?? 0)}`];
  // only when set, empty too (oracle 22.05: a Prefer= line of its own after Features=)
  if (job.prefer || isGivenEmpty(job.givenEmpty, "prefer")) lines.push(`Prefer=${job.prefer ?? ""}`);
  if (job.reservation !== "") lines.push(`Reservation=${job.reservation}`);
  lines.push(
    `OverSubscribe=${overSubscribeText(job)} Contiguous=${job.contiguous ? 1 : 0} Licenses=${emptyOrNull(job.licenses ?? "", job.givenEmpty, "licenses")} Network=${job.network ?? "(null)"}`,
    `Command=${orNull(job.command)}`,
    `WorkDir=${job.workDir}`,
  );
  if (job.adminComment) lines.push(`AdminComment=${job.adminComment} `);
  if (job.comment !== "" || isGivenEmpty(job.givenEmpty, "comment")) lines.push(`Comment=${job.comment} `);
  if (job.batchFlag) {
    lines.push(`StdErr=${job.stdErr}`, `StdIn=${job.stdIn}`, `StdOut=${job.stdOut}`);
  }
  // --switches=N@wait (oracle: Switches=2@00:01:00 after the Std lines)
  if ((job.reqSwitch ?? 0) > 0) lines.push(`Switches=${job.reqSwitch}@${formatElapsed(job.wait4switchSec ?? 0)}`);
  // --bb, empty too (oracle 22.05: BurstBuffer= after Switches=, before the CPU frequency line)
  if (job.burstBuffer || isGivenEmpty(job.givenEmpty, "bb")) lines.push(`BurstBuffer=${job.burstBuffer ?? ""}`);
  const cpuFreq = cpuFreqLine(job.cpuFreq);
  if (cpuFreq !== "") lines.push(cpuFreq);
  lines.push("Power=");
  // one line after Power=, the two flags printed without a separator as 22.05 prints them (oracle:
  // "GresEnforceBind=YesKillOInInvalidDependent=Yes")
  const flags = job.gresFlags?.split(",") ?? [];
  const bind = flags.includes("enforce-binding") ? "GresEnforceBind=Yes" : flags.includes("disable-binding") ? "GresEnforceBind=No" : "";
  const kill = job.killOnInvalidDep === undefined ? "" : `KillOInInvalidDependent=${job.killOnInvalidDep ? "Yes" : "No"}`;
  const flagLine = `${bind}${kill}${job.spreadJob === true ? "SpreadJob=Yes" : ""}`;
  if (flagLine !== "") lines.push(flagLine);
  if (job.cpusPerTres) lines.push(`CpusPerTres=${job.cpusPerTres}`);
  if (job.memPerTres) lines.push(`MemPerTres=${job.memPerTres}`);
  // 22.05 prints the binding as "gpu:closest" (26.x: "gres/gpu:closest"), before the per-TRES requests.
  if ((job.tresBind ?? "") !== "") lines.push(`TresBind=${(job.tresBind ?? "").replace(/^gres\/gpu:/, "gpu:")}`);
  // --gpu-freq, between the binding and the per-TRES requests (oracle 22.05: TresFreq=gpu:high)
  if (job.tresFreq) lines.push(`TresFreq=${job.tresFreq}`);
  // 22.05 prints the per-node request as "gres:gpu:2" (26.x: "gres/gpu:2").
  if (job.tresPerJob !== "") lines.push(`TresPerJob=${job.tresPerJob.replace(/^gres\//, "gres:")}`);
  if (job.tresPerNode !== "") lines.push(`TresPerNode=${job.tresPerNode.replace(/(^|,)gres\//g, "$1gres:")}`);
  // --gpus-per-socket, between the per-node and per-task requests (oracle 22.05: TresPerSocket=gres:gpu:2)
  if ((job.tresPerSocket ?? "") !== "") lines.push(`TresPerSocket=${gresPerSocketText(job)}`);
  // 22.05 lists only the GRES per task, as "gres:gpu:1" (26.x: "cpu=4,gres/gpu=1"; oracle: --gpus-per-task=1 -N 2)
  const perTask = gresPerTaskText(job.tresPerTask ?? "");
  if (perTask !== "") lines.push(`TresPerTask=${perTask}`);
  // shown only when a mail type is set (the user then defaults to the submitter)
  if (job.mailType) lines.push(`MailUser=${job.mailUser ?? ""} MailType=${job.mailType}`);
  // --ntasks-per-gpu, after the mail line (oracle 22.05: NtasksPerTRES=1)
  if ((job.ntasksPerTres ?? 0) > 0) lines.push(`NtasksPerTRES=${job.ntasksPerTres}`);
  // --container as given, also empty (oracle: Container=/tmp, Container=; last line)
  if (job.container !== undefined) lines.push(`Container=${job.container}`);
  return lines;
}

export interface ShowJobOptions {
  now: number;
  oneLiner: boolean;
  detail: boolean;
  /** Show a pending remainder as this one task ("show job 17_5"). */
  shownTask?: number;
  /** -d: the type of the GPUs a job holds on a node (nodeGpuTypes, heldGpuType); unknown: the request's. */
  gpuTypeOf?: (node: string, held: readonly number[]) => string | undefined;
}

/** Node name -> the type of each of its GPU indices (compat/gpu-types.ts reads the node's Gres= text). */
export function nodeGpuTypes(nodes: readonly { name: string; gres: string }[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of nodes) {
    const types = gpuTypesOfText(n.gres);
    if (types !== undefined && types.length > 0) out.set(n.name, types);
  }
  return out;
}


/** One `scontrol show job` record. */
export function formatJobRecord(job: Job, o: ShowJobOptions): string {
  // no WCKey= (Slurm 22.05 with TrackWCKey=No, as Spur: oracle, differential seeds 107/229/293); sacct has it
  const lines = [
    idLine(job, o.shownTask),
    ...(job.hetJobIdSet ? [`HetJobIdSet=${job.hetJobIdSet}`] : []),
    `UserId=${job.user}(${job.uid}) GroupId=${job.group}(${job.gid}) MCS_label=N/A`,
    `Priority=${job.priority} Nice=${job.nice} Account=${job.account} QOS=${job.qos}`,
    `JobState=${jobStateLong(job)} Reason=${job.reason || "None"} Dependency=${orNull(job.dependency)}`,
    `Requeue=${job.requeue ? 1 : 0} Restarts=${job.restarts} BatchFlag=${job.batchFlag ? 1 : 0} Reboot=${job.reboot === true ? 1 : 0} ExitCode=${job.exitCode}:${job.exitSignal}`,
  ];
  if (o.detail) lines.push(`DerivedExitCode=${job.derivedExitCode}:0`);
  lines.push(...timeLines(job, o.now), ...placementLines(job, o.detail, o.gpuTypeOf ?? (() => undefined)), ...fileLines(job));
  return formatRecord(lines, o.oneLiner, "separator");
}
