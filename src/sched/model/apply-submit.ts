/**
 * @module sched/model/apply-submit
 * Submission: validate against the partitions and nodes as they are, then create
 * the job record (one record for a whole array; elements split off as they
 * start). Rejections use the words sbatch prints after "Batch job submission
 * failed: ", with an optional first line (the `detail`) that Slurm prints first.
 */
import { acctTaskAllowed, acctgTaskSec, DEFAULT_ACCT_TASK_SEC } from "../../compat/acctg-freq.ts";
import type { Command, Requester } from "./commands.ts";
import type { ClusterState, JobRecord, JobSpecP, PartitionRecord } from "./types.ts";
import { emptyJobInfo } from "./records.ts";
import { emptyResult, rejected, type ApplyResult } from "./apply-result.ts";
import { buildRequest, gpuTresTexts, layoutOf, tresPerTaskText, type ResourceRequest } from "../plan/request.ts";
import { cpusNeeded, pendingCounts } from "../../compat/job-layout.ts";
import { socketsCoresThreadsFit, type NodeView } from "../plan/fit-node.ts";
import { everViews, fitsEver, viewTotals } from "../plan/ever-views.ts";
import { clusterFeatures } from "./cluster-features.ts";
import { parseArraySpec, formatArrayTasks } from "../../compat/array-spec.ts";
import { parseDependency } from "../../compat/dependency.ts";
import { compressHostlist, expandHostlist, hostlistUniq } from "../../compat/hostlist.ts";
import { expandFilenamePattern, defaultOutputPattern } from "../../compat/filename-pattern.ts";
import { licenseTres, tresText } from "./tres.ts";
import { gresTresText, trackedGresNames } from "../../compat/gres-generic.ts";
import { licenseText, parseLicenseRequest, type LicenseRequest } from "../../compat/licenses.ts";
import { TIME_INFINITE } from "../../compat/parse-time.ts";
import { SLURM_ERRORS } from "../../compat/slurm-errors.ts";
import { submitPolicy, tresMinsTimeLimit } from "../acct/submit-policy.ts";
import { limitsEnforced } from "../acct/limits.ts";
import { userAssoc } from "../acct/types.ts";
import { assert } from "../../lib/assert.ts";
import { hetIdSet } from "./het.ts";
import { requestEcho } from "./request-echo.ts";
import { setStdPaths } from "./std-paths.ts";
import { SWITCH_WAIT_DEFAULT_SEC } from "../../compat/options/spec-syntax.ts";
import { compactCopy } from "../../lib/compact-record.ts";
import { jobPartitions, partitionListWithFirst } from "./job-partitions.ts";

type Submit = Extract<Command, { type: "submit" }>;

/** Priority/basic: the first job gets the highest value; each later one a step lower. */
export const BASIC_PRIORITY_TOP = 4_294_901_759;

const expand = (h: string): string[] => {
  const r = expandHostlist(h);
  return r.ok ? r.value : [];
};

export function applySubmit(state: ClusterState, c: Submit): ApplyResult {
  if ((c.het?.length ?? 0) > 0) return applySubmitHet(state, c);
  const prepared = prepareSubmit(state, c.spec, c.by, c.at);
  if (typeof prepared === "string") {
    if (prepared.endsWith(NODE_CONFIG_UNAVAILABLE)) recordFailedAllocation(state, c);
    return rejectedWithDetail(prepared);
  }
  const jobId = createJob(state, c, c.spec, prepared);
  return { ...emptyResult(), ids: [jobId] };
}

/** Slurm: a job array cannot be heterogeneous (oracle, 22.05: `sbatch -a 1-2 -n1 : -n1` is refused with this text, exit 1). */
export const HET_ARRAY_REFUSAL = "Invalid job array specification";

/**
 * A heterogeneous job: every component is checked as an ordinary job first (one refusal
 * refuses the whole job, nothing is created), then the components become records with
 * consecutive ids, the first the leader: HetJobId = its id, HetJobOffset = the component's
 * index, HetJobIdSet = every component's id. Every component shows BatchFlag=1 (as in Slurm);
 * only the leader runs the batch script (het.ts runsBatchScript).
 */
function applySubmitHet(state: ClusterState, c: Submit): ApplyResult {
  const specs = excludeOthersNodes([c.spec, ...(c.het ?? [])]);
  assert(specs.length >= 2, "a het submission has at least two components");
  const prepared: PreparedSubmit[] = [];
  for (const spec of specs) {
    if (spec.array !== "") return rejectedWithDetail(HET_ARRAY_REFUSAL);
    const one = prepareSubmit(state, spec, c.by, c.at);
    if (typeof one === "string") return rejectedWithDetail(one);
    prepared.push(one);
  }
  const leaderId = state.nextJobId;
  const idSet = hetIdSet(leaderId, specs.length);
  specs.forEach((spec, offset) => {
    const id = createJob(state, c, spec, prepared[offset] as PreparedSubmit);
    const info = state.jobs.get(id)?.info;
    assert(info !== undefined && id === leaderId + offset, "het components have consecutive ids");
    Object.assign(info, { hetJobId: leaderId, hetJobOffset: offset, hetJobIdSet: idSet });
  });
  return { ...emptyResult(), ids: [leaderId] };
}

/**
 * Each component also excludes the nodes the other components require (oracle 22.05:
 * `-w n1 : -N1 : -x n4 -w n3` gives ExcNodeList=n3, n[1,3] and n[1,4]).
 */
function excludeOthersNodes(specs: JobSpecP[]): JobSpecP[] {
  const required = specs.map((s) => (s.nodelist ? expand(s.nodelist) : []));
  return specs.map((s, i) => {
    const others = required.flatMap((r, j) => (j === i ? [] : r));
    if (others.length === 0) return s;
    const own = s.exclude ? expand(s.exclude) : [];
    return { ...s, exclude: hostlistUniq([...own, ...others]) };
  });
}

/** A submission that passed every check, ready to become a record. */
export interface PreparedSubmit {
  checked: Checked;
  policy: Exclude<ReturnType<typeof submitPolicy>, string>;
}

/** Every submit-time check of one job (or het component) at `at` (the command's time): the refusal's text, or what creating it needs. */
export function prepareSubmit(state: ClusterState, spec: JobSpecP, by: Requester, at: number): PreparedSubmit | string {
  const checked = validateSubmit(state, spec, by);
  if (typeof checked === "string") return checked;
  const { partition, arrayTasks } = checked;
  const times = timeSpecRefusal(spec, timeLimitOf(spec, partition), at);
  if (times !== "") return times;
  const acctg = acctgRefusal(state, spec, checked.req);
  if (acctg !== "") return acctg;
  const policy = submitPolicy(state, spec, by, partition.info.name, Math.max(1, arrayTasks.length), timeLimitOf(spec, partition));
  if (typeof policy === "string") return policy;
  const access = partitionAllows(partition, policy.account, policy.qos);
  if (access !== "") return access;
  return { checked, policy };
}

/**
 * --acctg-freq's task interval, for a job with a memory limit (compat/acctg-freq.ts; soak seed 7230);
 * --test-only checks it too (oracle 22.05: `--test-only --acctg-freq=task=60` is "allocation failure:
 * Invalid accounting frequency requested", energy=0 alone is placed; differential seed 13717).
 */
function acctgRefusal(state: ClusterState, spec: JobSpecP, req: ResourceRequest): string {
  const limited = req.mem.kind !== "all";
  return limited && !acctTaskAllowed(acctgTaskSec(spec.acctgFreq ?? ""), state.config.acctTaskFreqSec ?? DEFAULT_ACCT_TASK_SEC)
    ? "Invalid accounting frequency requested" : "";
}

/** Create the record of a prepared submission; returns its id (the next one). */
export function createJob(state: ClusterState, c: Submit, spec: JobSpecP, prepared: PreparedSubmit): number {
  const { partition, req, arrayTasks, throttle, oversizedNodes, unfit, licenses, members } = prepared.checked;
  const policy = prepared.policy;
  const jobId = state.nextJobId;
  state.nextJobId += 1;
  const sequence = state.nextSequence;
  state.nextSequence += 1;
  const info = emptyJobInfo();
  const counts = pendingCounts(layoutOf(req), Math.max(1, viewTotals(members).maxCpus));
  Object.assign(info, {
    jobId,
    // sbatch always names the job; an empty name is one given as -J "" (Slurm shows JobName= empty)
    name: spec.name,
    uid: c.by.uid, user: c.by.user, gid: c.by.gid, group: c.by.group,
    account: policy.account,
    partition: prepared.checked.partitionText,
    qos: policy.qos,
    priority: spec.hold ? 0 : Math.max(1, BASIC_PRIORITY_TOP - sequence - spec.nice),
    reason: spec.hold ? "JobHeldUser" : "None",
    nice: spec.nice,
    submitTime: c.at,
    eligibleTime: Math.max(c.at, spec.beginTime),
    // Slurm evaluates a new job at once (even a held or dependent one): LastSchedEval is its submit time
    lastSchedEval: c.at,
    timeLimitMin: policy.timeLimitMin,
    // pending: Slurm's node estimate and CPU count (job-layout.ts; --overcommit asks one CPU per node)
    numNodes: counts.numNodes,
    numCpus: counts.numCpus,
    numTasks: counts.numTasks,
    cpusPerTask: req.cpusPerTask,
    ntasksPerNode: req.ntasksPerNode,
    memPerNodeMib: req.mem.kind === "node" ? req.mem.mib : 0,
    // --mem-per-gpu keeps the default per-CPU memory in the record (oracle: MinMemoryCPU=256M beside MemPerTres=gres:gpu:N)
    memPerCpuMib: req.mem.kind === "cpu" ? req.mem.mib : req.mem.kind === "gpu" ? state.config.defMemPerCpuMiB : 0,
    // both lists sorted and ranged as the node bitmaps print them (oracle: -w n4,n3 is n[3-4], -x n2,n1 is n[1-2])
    reqNodelist: req.nodelist.length > 0 ? hostlistUniq(req.nodelist) : spec.nodelist,
    excNodelist: req.exclude.length > 0 ? hostlistUniq(req.exclude) : spec.exclude,
    workDir: spec.workDir, command: spec.command,
    dependency: spec.dependency, features: spec.constraint, comment: spec.comment,
    exclusive: spec.exclusive, requeue: !spec.noRequeue, batchFlag: !spec.interactive,
    submitLine: spec.submitLine, submitHost: spec.submitHost, deadline: spec.deadline,
    killWaitSec: spec.killWaitSec || state.config.killWaitSec, signal: spec.signal,
    reservation: spec.reservation, wckey: spec.wckey,
    tresPerNode: gpuTresTexts(spec).perNode,
    tresPerJob: gpuTresTexts(spec).perJob,
  });
  Object.assign(info, accountingIds(state, policy.account, policy.qos, c.by.user, partition.info.name));
  if (spec.timeLimitMin === undefined) info.timeLimitDefault = true;
  if ((spec.socketsPerNode ?? 0) > 0) info.reqSocketsPerNode = spec.socketsPerNode;
  const hinted = hintedRequest(spec.hint ?? "");
  if ((spec.coresPerSocket ?? 0) > 0) info.reqCoresPerSocket = spec.coresPerSocket;
  else if (hinted.cores > 0) info.reqCoresPerSocket = hinted.cores;
  if (spec.threadsPerCore > 0) info.reqThreadsPerCore = spec.threadsPerCore;
  // --ntasks-per-core overrides the hint's thread count (oracle 22.05: with both, ReqB:S:C:T=0:0:*:*)
  else if (hinted.threads > 0 && (spec.ntasksPerCore ?? 0) === 0) info.reqThreadsPerCore = hinted.threads;
  Object.assign(info, requestEcho(spec, c.by.user));
  const perTask = tresPerTaskText(spec);
  if (perTask !== "") info.tresPerTask = perTask;
  const perSocket = gpuTresTexts(spec).perSocket;
  if (perSocket !== "") info.tresPerSocket = perSocket;
  // the wait is capped at max_switch_wait (300 s by default; oracle: --switches=2@10:00 shows Switches=2@00:05:00)
  if (spec.reqSwitch > 0) Object.assign(info, { reqSwitch: spec.reqSwitch, wait4switchSec: Math.min(spec.wait4switchSec, SWITCH_WAIT_DEFAULT_SEC) });
  if (spec.oversubscribe) info.oversubscribe = true;
  // in an OverSubscribe=EXCLUSIVE partition the job gets whole nodes and reads as --exclusive (oracle 22.05: OverSubscribe=NO, NumCPUs=4)
  if (spec.exclusiveUser && partition.info.oversubscribe.startsWith("EXCLUSIVE")) info.exclusive = true;
  else if (spec.exclusiveUser) info.exclusiveUser = true;
  if (spec.prefer) info.prefer = spec.prefer;
  if (spec.burstBuffer) info.burstBuffer = spec.burstBuffer;
  if (spec.contiguous) info.contiguous = true;
  if (spec.gpuBind !== "") info.tresBind = `gres/gpu:${spec.gpuBind}`;
  info.minCpusNode = Math.max(spec.mincpus ?? 0, counts.minCpusNode);
  if (req.layout?.nodesGiven === true) info.numNodesMax = req.layout.nodesMax;
  // --spread-job without -N may take a node per task, up to the partition's nodes (oracle 22.05: held -n 3 is NumNodes=1-3)
  // (one task, or one node: no range; differential seed 27: held --spread-job is NumNodes=1)
  else if (spec.spreadJob === true) {
    const most = Math.min(req.ntasks, members.length);
    if (most > counts.numNodes) info.numNodesMax = most;
  }
  if (counts.listedNodes !== counts.numNodes) info.nodeCountEstimate = counts.listedNodes;
  if ((req.tmpMib ?? 0) > 0) info.minTmpDiskMib = req.tmpMib;
  const nodeMem = viewTotals(members).maxMemMiB;
  // GPUs asked per node, per job, per task and per socket count once: the largest (oracle: -G 3 --gres=gpu:3 is gres/gpu=3,
  // -N 2 --ntasks-per-node=3 --gpus-per-task=2 is gres/gpu=12, -N2 --gpus-per-socket=2 --sockets-per-node=1 gres/gpu=4)
  const socketGpus = (req.gpusPerSocket ?? 0) * Math.max(1, req.socketsPerNode ?? 0) * req.nodesMin;
  info.tresReq = tresText(counts.numCpus, reqMemText(req, state, counts.numCpus, nodeMem), req.nodesMin, Math.max(req.gpusPerNode * req.nodesMin, req.gpusTotal, req.gpusPerTask * counts.numTasks, socketGpus))
    + gresTresText(req.gresGeneric ?? [], trackedGresNames(state.config.accountingTres), req.nodesMin);
  if (licenses !== undefined) {
    info.licenses = licenseText(licenses);
    if (!licenses.anyOf) info.tresReq += licenseTres(licenses.items, state.config.accountingTres);
  }
  const record: JobRecord = {
    info, spec, arrayPending: [], arrayThrottle: 0, nextStepId: 0, endRequested: "", sequence,
  };
  if (info.timeLimitMin === undefined && limitsEnforced(state)) {
    const fit = tresMinsTimeLimit(state, record);
    if (fit !== undefined) info.timeLimitMin = fit;
  }
  if (arrayTasks.length > 0) {
    info.arrayJobId = jobId;
    info.arrayMaxTasks = throttle;
    record.arrayPending = arrayTasks;
    record.arrayThrottle = throttle;
    info.arrayTaskStr = formatArrayTasks(arrayTasks, throttle);
  }
  if (c.allocNode) info.allocNode = c.allocNode;
  // (a -N range keeps its maximum: NumNodes=2-2 for -N1-2 -n9 -c2 --exclusive)
  const oversized = Math.min(oversizedNodes, info.numNodesMax ?? oversizedNodes);
  if (oversizedNodes > 0) {
    Object.assign(info, { numNodes: oversized, reason: spec.hold ? info.reason : "PartitionConfig" });
    delete info.nodeCountEstimate;
    record.nodesNeeded = oversized;
  }
  if (unfit) record.unfitAtSubmit = true;
  setStdPaths(record, "");
  // Kept for the job's life: laid out compactly (compact-record.ts), about 40% of a queued job's heap.
  record.info = compactCopy(record.info);
  record.spec = compactCopy(record.spec);
  state.jobs.set(jobId, record);
  return jobId;
}

/** The ids accounting records the job under (sacct AssocID, QOSRAW); absent where none exists. */
function accountingIds(state: ClusterState, account: string, qos: string, user: string, partition: string): { assocId?: number; qosId?: number } {
  const assoc = userAssoc(state.acct, state.config.clusterName, account, user, partition);
  const q = state.acct.qos.get(qos);
  return { ...(assoc ? { assocId: assoc.id } : {}), ...(q ? { qosId: q.id } : {}) };
}

/**
 * --deadline and --time-min as 22.05's controller checks them at submission (oracle, 2026-12-05): a deadline
 * already past (now-1: "Requested time limit is invalid"; now itself is accepted); a time-min that is
 * INFINITE (--time-min=0 or unlimited), longer than the job's time limit (-t 1 --time-min=2), or that
 * no longer fits before the deadline (--deadline=now+10 --time-min=1) is "Invalid time-min specification".
 * `limit` in minutes, undefined = unlimited.
 */
export function timeSpecRefusal(spec: Pick<JobSpecP, "deadline" | "timeMinMin">, limit: number | undefined, at: number): string {
  const now = Math.floor(at);
  if (spec.deadline > 0 && spec.deadline < now) return SLURM_ERRORS.InvalidTimeLimit.text;
  const min = spec.timeMinMin;
  if (min === undefined) return "";
  const tooLong = min === TIME_INFINITE || (limit !== undefined && min > limit) || (spec.deadline > 0 && spec.deadline < now + min * 60);
  return tooLong ? SLURM_ERRORS.InvalidTimeMin.text : "";
}

/** The job's limit: as requested (0xffffffff = UNLIMITED as given), else the partition's default, else its maximum. */
function timeLimitOf(spec: JobSpecP, partition: PartitionRecord): number | undefined {
  if (spec.timeLimitMin === TIME_INFINITE) return undefined;
  return spec.timeLimitMin ?? partition.info.defaultTimeMin ?? partition.info.maxTimeMin;
}

/** Memory the TRES request counts; --mem=0 (all of a node's memory) counts the partition's largest node per node (oracle: -N 2 --mem=0 is mem=8000M on 4000M nodes). */
function reqMemText(req: ResourceRequest, state: ClusterState, cpus: number, nodeMemMiB: number): number {
  if (req.mem.kind === "all") return nodeMemMiB * req.nodesMin;
  if (req.mem.kind === "node") return req.mem.mib * req.nodesMin;
  if (req.mem.kind === "cpu") return req.mem.mib * cpus;
  if (req.mem.kind === "gpu") return req.mem.mib * Math.max(req.gpusPerNode * req.nodesMin, req.gpusTotal);
  return state.config.defMemPerCpuMiB * cpus;
}

const NODE_CONFIG_UNAVAILABLE = "Requested node configuration is not available";

/**
 * A submission asking for what no node of the partition has (sbatch, srun or salloc):
 * Slurm 22.05 creates the job before its node test fails, so the refusal uses a job id
 * and accounting keeps a FAILED record: ExitCode 1:0, the CPUs asked for, started and
 * ended at submission (golden 102: `srun --gres=gpu:99`; live oracle: `sbatch --gpus=99`,
 * `sbatch --mem=999999`).
 */
function recordFailedAllocation(state: ClusterState, c: Submit): void {
  // a list's record names the last partition tried (oracle 22.05: `-p debug,gpu -N9` is FAILED with Partition=gpu)
  const partition = lastOf(resolvePartitions(state, c.spec.partition));
  const req = buildRequest(c.spec, state.config, expand);
  if (partition === undefined || typeof req === "string") return;
  const jobId = state.nextJobId;
  state.nextJobId += 1;
  const sequence = state.nextSequence;
  state.nextSequence += 1;
  const spec = c.spec;
  const info = emptyJobInfo();
  const account = spec.account.toLowerCase() || state.acct.users.get(c.by.user)?.defaultAccount || (c.by.uid === 0 ? "root" : "");
  Object.assign(info, {
    jobId, name: spec.name, uid: c.by.uid, user: c.by.user, gid: c.by.gid, group: c.by.group, account,
    partition: partition.info.name, qos: spec.qos || "normal", priority: 0, reason: "BadConstraints", nice: spec.nice,
    state: "FAILED", exitCode: 1, submitTime: c.at, eligibleTime: c.at, startTime: c.at, endTime: c.at, lastSchedEval: c.at,
    numNodes: req.nodesMin, numCpus: Math.max(req.ntasks * req.cpusPerTask, req.nodesMin), numTasks: req.ntasks,
    cpusPerTask: req.cpusPerTask, workDir: spec.workDir, command: spec.command, submitLine: spec.submitLine,
    submitHost: spec.submitHost, batchFlag: !spec.interactive, requeue: false,
  });
  if (c.allocNode) info.allocNode = c.allocNode;
  state.jobs.set(jobId, { info, spec, arrayPending: [], arrayThrottle: 0, nextStepId: 0, endRequested: "", sequence });
}

export interface Checked {
  /** Where the job is queued (of a list, the first that passed; its DefaultTime, node counts and association). */
  partition: PartitionRecord;
  /** Its Partition= text: the name, or a list (job-partitions.ts). */
  partitionText: string;
  req: ResourceRequest;
  arrayTasks: number[];
  throttle: number;
  /** > 0: the job needs this many nodes, more than its partition has (queued: PartitionConfig). */
  oversizedNodes: number;
  /** Held at submission although no node of the partition could ever hold it (Slurm skips the test for --hold). */
  unfit: boolean;
  /** -L, validated against the configured licenses. */
  licenses?: LicenseRequest;
  /** The partition's nodes as the checks saw them (ever-views.ts; read-only), for creating the record without a second walk. */
  members: NodeView[];
}

export interface ValidateOptions {
  /** `--test-only`: the node-configuration test always runs, dependencies are not looked up (as Slurm). */
  testOnly?: boolean;
}

/** Validation shared by apply (deterministic) and `sbatch --test-only`. */
export function validateSubmit(state: ClusterState, spec: JobSpecP, by?: Requester, opts: ValidateOptions = {}): Checked | string {
  const listed = resolvePartitions(state, spec.partition);
  if (typeof listed === "string") return listed;
  // a closed partition of a list is passed over; the job is refused only when none is open
  const open = listed.filter((p) => partitionOpen(p, by) === "");
  if (open.length === 0) return partitionOpen(listed[0] as PartitionRecord, by);
  const req = buildRequest(spec, state.config, expand);
  if (typeof req === "string") return req;
  const licenses = spec.licenses === "" ? undefined : parseLicenseRequest(spec.licenses, state.licenses ?? new Map());
  if (licenses !== undefined && !licenses.ok) return licenses.error.message;
  for (const name of [...req.nodelist, ...req.exclude]) {
    if (!state.nodes.has(name)) return "Invalid node name specified";
  }
  if (!knownFeatures(state, spec.constraint)) return "Invalid feature specification";
  // --prefer's names are checked the same way (oracle 22.05: --prefer=bogus and --prefer='a|bogus' are refused)
  if (!knownFeatures(state, spec.prefer ?? "")) return "Invalid preferred feature specification";
  // Each open partition in turn, the first that passes is where the job is queued (Slurm tests the
  // listed partitions in order; when none passes, the last one's refusal is the answer).
  // A held job is not tested (below): of a list, the first partition that could ever hold it, else the first open one.
  let fitted: PartitionFit | string = "";
  let heldUnfit: PartitionFit | undefined;
  for (const partition of open) {
    fitted = fitInPartition(state, spec, req, partition, open.length > 1, by, opts);
    if (typeof fitted !== "string" && !fitted.unfit) break;
    if (typeof fitted !== "string") heldUnfit ??= fitted;
  }
  if (heldUnfit !== undefined && (typeof fitted === "string" || fitted.unfit)) fitted = heldUnfit;
  if (typeof fitted === "string") return fitted;
  let arrayTasks: number[] = [];
  let throttle = 0;
  if (spec.array) {
    const parsed = parseArraySpec(spec.array, state.config.maxArraySize);
    if (!parsed.ok) return "Invalid job array specification";
    arrayTasks = parsed.value.taskIds;
    throttle = parsed.value.throttle;
  }
  if (spec.dependency && !opts.testOnly) {
    const dep = parseDependency(spec.dependency);
    if (!dep.ok) return "Job dependency problem";
    for (const item of dep.value.items) {
      for (const ref of item.jobIds) if (!state.jobs.has(ref.jobId)) return "Job dependency problem";
    }
  }
  if (opts.testOnly) {
    const acctg = acctgRefusal(state, spec, req);
    if (acctg !== "") return acctg;
  }
  const { partition } = fitted;
  // a list keeps its text as given when no node test ran (held), else the partition that passed leads (job-partitions.ts)
  const tested = !(spec.hold && !opts.testOnly);
  const partitionText = !spec.partition.includes(",") ? partition.info.name : tested ? partitionListWithFirst(spec.partition, partition.info.name) : spec.partition;
  return { ...fitted, partitionText, req, arrayTasks, throttle, ...(licenses === undefined ? {} : { licenses: licenses.value }) };
}

type PartitionFit = Pick<Checked, "partition" | "oversizedNodes" | "unfit" | "members">;

/** The partition-dependent checks of a submission: access (for --test-only) and the node test. */
function fitInPartition(
  state: ClusterState, spec: JobSpecP, req: ResourceRequest, partition: PartitionRecord, inList: boolean, by: Requester | undefined, opts: ValidateOptions,
): PartitionFit | string {
  // --test-only runs the submission's account, QOS and reservation checks too (Slurm's will-run creates
  // the job record first; oracle: `--test-only --reservation=nope` is "Requested reservation is invalid")
  if (opts.testOnly && by !== undefined) {
    const policy = submitPolicy(state, spec, by, partition.info.name, 1, timeLimitOf(spec, partition));
    if (typeof policy === "string") return policy;
    const access = partitionAllows(partition, policy.account, policy.qos);
    if (access !== "") return access;
  }
  const members = nodeViewsOf(state, partition);
  // a job larger than one partition of a list is refused, not queued (oracle 22.05: `-p debug,gpu -N5` on 4 nodes)
  const oversizedNodes = inList ? 0 : nodesBeyondPartition(state, req, members);
  let unfit = false;
  // Slurm 22.05 accepts a held job without testing the nodes (oracle: `sbatch --hold -c 96` on 4-CPU
  // nodes is queued); released, it pends with reason PartitionConfig.
  if (oversizedNodes === 0 && spec.hold && !opts.testOnly) unfit = !fitsEver(req, members);
  else if (oversizedNodes === 0 && !fitsEver(req, members)) {
    const memoryFree = { ...req, mem: { kind: "node" as const, mib: 0 } };
    const memDetail = fitsEver(memoryFree, members) ? "Memory specification can not be satisfied\n" : "";
    // one task's CPUs exceed every node of the partition (x-err-sbatch-cpus-too-many)
    const cpuDetail = req.cpusPerTask > viewTotals(members).maxCpus ? "CPU count per node can not be satisfied\n" : "";
    // --tmp beyond every node's TmpDisk (oracle: sbatch --tmp=10 on TmpDisk=0 nodes)
    const tmpDetail = (req.tmpMib ?? 0) > viewTotals(members).maxTmpDiskMib ? "Temporary disk specification can not be satisfied\n" : "";
    // sockets, cores per socket or threads per core that no node has (oracle: -B 4, --sockets-per-node=4,
    // --cores-per-socket=64, --threads-per-core=8 on 1-socket nodes; differential seed 36)
    const sctDetail = members.some((m) => socketsCoresThreadsFit(req, m)) ? "" : "Socket, core and/or thread specification can not be satisfied\n";
    return `${sctDetail}${cpuDetail}${memDetail}${tmpDetail}${NODE_CONFIG_UNAVAILABLE}`;
  }
  return { partition, oversizedNodes, unfit, members };
}

/** The feature names of a --constraint expression ("a&b", "a|b", "[a*2&b]", "a,b"). */
export function constraintFeatures(constraint: string): string[] {
  return constraint.split(/[&|,[\]()]/).map((f) => f.replace(/\*[0-9]+$/, "").trim()).filter((f) => f !== "");
}

/**
 * Slurm refuses a constraint naming a feature that no node of the cluster has (any partition)
 * with "Invalid feature specification", held or not, before the node test (oracle seeds 112, 271, 300).
 */
export function knownFeatures(state: ClusterState, constraint: string): boolean {
  if (constraint === "") return true;
  const have = clusterFeatures(state);
  return constraintFeatures(constraint).every((f) => have.has(f));
}

/**
 * The core/thread request a --hint stands for in Slurm 22.05 (oracle: compute_bound and nomultithread
 * show ReqB:S:C:T=0:0:*:1, memory_bound 0:0:1:1, multithread nothing; differential tester).
 */
export function hintedRequest(hint: string): { cores: number; threads: number } {
  const h = hint.toLowerCase();
  if (h === "memory_bound") return { cores: 1, threads: 1 };
  if (h === "compute_bound" || h === "nomultithread") return { cores: 0, threads: 1 };
  return { cores: 0, threads: 0 };
}

/**
 * EnforcePartLimits=NO: a request that one node could serve task by task but that needs
 * more nodes than the partition has (-N5 on 4 nodes, -n 100 on 16 CPUs) is queued, not
 * rejected; it pends with reason PartitionConfig. Returns the node count it needs (as
 * Slurm shows it: -N, or its CPUs over the largest node's), 0 when it fits or when
 * it must be rejected (limits enforced, or no node could hold even one task).
 */
function nodesBeyondPartition(state: ClusterState, req: ResourceRequest, members: NodeView[]): number {
  if ((state.config.enforcePartLimits ?? "NO") !== "NO" || members.length === 0 || req.nodelist.length > 0) return 0;
  const cpus = cpusNeeded(layoutOf(req), req.nodesMin);
  const totalCpus = viewTotals(members).cpus;
  if (req.nodesMin <= members.length && cpus <= totalCpus) return 0;
  const oneTask = { ...req, ntasks: 1, nodesMin: 1, nodesMax: 1 };
  if (!fitsEver(oneTask, members)) return 0;
  return Math.max(req.nodesMin, Math.ceil(cpus / Math.max(1, viewTotals(members).maxCpus)));
}

/**
 * Slurm's submit-time partition rules: a DRAIN or INACTIVE partition takes no
 * new jobs (a DOWN one does, they wait with PartitionDown); AllowGroups (the
 * submitter's primary group; root passes) limits who may use it.
 */
function partitionOpen(partition: PartitionRecord, by: Requester | undefined): string {
  const p = partition.info;
  if (p.state === "DRAIN" || p.state === "INACTIVE") return "Required partition not available (inactive or drain)";
  if (by !== undefined && by.uid !== 0 && !allows(p.allowGroups, by.group)) return "User's group not permitted to use this partition";
  return "";
}

/** AllowAccounts and AllowQos, checked against the account and QOS accounting resolved (defaults included). */
function partitionAllows(partition: PartitionRecord, account: string, qos: string): string {
  const p = partition.info;
  if (!allows(p.allowAccounts, account)) return "Job's account not permitted to use this partition";
  if (!allows(p.allowQos, qos || "normal")) return "Job's QOS not permitted to use this partition";
  return "";
}

const allows = (list: string, value: string): boolean => list.toUpperCase() === "ALL" || list.split(",").includes(value);

/**
 * The listed partitions (`-p a,b`), each of which must exist: an unknown one is named in the
 * refusal (oracle 22.05: `-p debug,nosuch` is "invalid partition specified: nosuch"). None
 * given: the default partition.
 */
function resolvePartitions(state: ClusterState, requested: string): PartitionRecord[] | string {
  if (!requested) {
    const def = state.partitions.find((p) => p.info.isDefault) ?? state.partitions[0];
    return def === undefined ? "No partition specified or system default partition" : [def];
  }
  const out: PartitionRecord[] = [];
  for (const name of jobPartitions(requested)) {
    const found = state.partitions.find((p) => p.info.name === name);
    if (found === undefined) return `invalid partition specified: ${name}\nInvalid partition name specified`;
    out.push(found);
  }
  return out.length > 0 ? out : `invalid partition specified: ${requested}\nInvalid partition name specified`;
}

const lastOf = (listed: PartitionRecord[] | string): PartitionRecord | undefined => (typeof listed === "string" ? undefined : listed[listed.length - 1]);

/** The partition's nodes as submission checks see them: configured capacity, as if up and empty (ever-views.ts). */
export function nodeViewsOf(state: ClusterState, partition: PartitionRecord): NodeView[] {
  return everViews(state, partition.nodeNames);
}

function rejectedWithDetail(message: string): ApplyResult {
  return rejected("SubmitRejected", message);
}
