/**
 * @module rest/ui/view
 * The cluster as the web page (/ui) shows it, built once per poll from the controller's
 * answers (ListNodes, ListJobs, GetShares, ListReservations): pure, no I/O. Rows are
 * arrays, not objects, and repeated strings are written once, so that 10k nodes and
 * 100k jobs fit in a few MB that the browser parses quickly; the column order is the
 * contract with page.js (NODE_COLUMNS / JOB_COLUMNS are sent along for readers). The page gets
 * it in two parts (rest/ui/routes: the nodes first, then the jobs), so the grid is drawn
 * before the queue has arrived. It holds no
 * clock reading, so an unchanged cluster gives the same bytes (and ETag) poll after poll.
 */
import type { Plain } from "../../../lib/plain.ts";
import type { ListJobsAnswer } from "../../ctl-port.ts";
import type { ListJobsResponse, ListNodesResponse, ListReservationsResponse, SharesResponse } from "../../gen/spur/v1/controller_pb.ts";
import { parseGpuTopology } from "../../../devices/gpu-topology.ts";
import { assert } from "../../../lib/assert.ts";

/**
 * Column names of a node row and a job row, in order (page.js reads them by position). Columns
 * marked * hold an index into `strings` (the few distinct states, users, partitions, reasons
 * written once), `gpuGroups` an index into `groupSets`; a job's `id` is "" when it is its jobId.
 */
export const NODE_COLUMNS = ["name", "state*", "cpus", "allocCpus", "memMiB", "allocMemMiB", "gpuModel*", "gpuJobs", "gpuGroups", "reason", "cpuLoad"] as const;
export const JOB_COLUMNS = ["id", "state*", "user*", "account*", "name", "partition*", "reason*", "nodes", "cpus", "gpus", "start", "priority", "jobId"] as const;

export type NodeRow = [string, number, number, number, number, number, number, number[], number, string, number];
export type JobRow = [string, number, number, number, string, number, number, string, number, number, number, number, number];

export interface UiView {
  cluster: string;
  user: string;
  nodeColumns: readonly string[];
  jobColumns: readonly string[];
  strings: string[];
  /** Each distinct GPU grouping (see gpuGroups), referenced by the node rows. */
  groupSets: number[][];
  nodes: NodeRow[];
  /** The jobs holding GPUs (by jobId): display id ("" = the jobId) and user (`strings` index), for the cells' names. */
  holders: Record<string, [string, number]>;
  /** Running jobs first, then pending by priority (highest first), then the rest. */
  jobs: JobRow[];
  partitions: { name: string; state: string; nodes: string; totalNodes: number; totalCpus: number; maxTimeMin: number; isDefault: boolean }[];
  reservations: { name: string; state: string; start: number; end: number; nodes: string; users: string; accounts: string; flags: string }[];
  shares: { account: string; user: string; depth: number; rawShares: number; normShares: number; rawUsage: number; effectiveUsage: number; fairshare: number }[];
  totals: { nodes: number; gpus: number; gpusAllocated: number; cpus: number; cpusAllocated: number; running: number; pending: number };
}

export interface UiInput {
  nodes: Plain<ListNodesResponse>;
  jobs: ListJobsAnswer;
  shares?: Plain<SharesResponse> | undefined;
  reservations?: Plain<ListReservationsResponse> | undefined;
  user: string;
}

/** XGMI/NVLink class in link-matrix terms (devices/gpu-topology: class 3 and up). */
const FAST_LINK_CLASS = 3;

/**
 * The fast-link group of each GPU (connected components over XGMI/NVLink links), or [] when
 * the topology is unknown. One group for a fully linked node; several show as separate boxes.
 */
export function gpuGroups(topology: string, count: number): number[] {
  const matrix = parseGpuTopology(topology, count);
  if (matrix === undefined) return [];
  const group = new Array<number>(count).fill(-1);
  let next = 0;
  for (let start = 0; start < count; start++) {
    if (group[start] !== -1) continue;
    const stack = [start];
    group[start] = next;
    while (stack.length > 0) {
      const a = stack.pop() ?? 0;
      for (let b = 0; b < count; b++) {
        if (group[b] === -1 && (matrix.links[a]?.[b]?.bandwidthClass ?? 0) >= FAST_LINK_CLASS) {
          group[b] = next;
          stack.push(b);
        }
      }
    }
    next++;
  }
  assert(group.every((g) => g >= 0 && g < next), "every GPU gets a group");
  return group;
}

type WireJob = Plain<ListJobsResponse>["jobs"][number];

/** The job that holds each GPU of each node: node name → job id per GPU index (0 = free). */
function gpuHolders(jobs: readonly WireJob[], gpuCounts: ReadonlyMap<string, number>, held: (job: WireJob) => void): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const job of jobs) {
    if (job.state !== "RUNNING" && job.state !== "SUSPENDED" && !job.stateFlags.includes("COMPLETING")) continue;
    let holds = false;
    for (const a of job.alloc) {
      const count = gpuCounts.get(a.node) ?? 0;
      if (a.gpuIndices.length === 0 || count === 0) continue;
      holds = true;
      let row = out.get(a.node);
      if (row === undefined) out.set(a.node, (row = new Array<number>(count).fill(0)));
      for (const i of a.gpuIndices) if (i < count) row[i] = job.jobId;
    }
    if (holds) held(job);
  }
  return out;
}

const displayId = (j: WireJob): string => (j.arrayJobId !== 0 && j.arrayTaskId >= 0 ? `${j.arrayJobId}_${j.arrayTaskId}` : String(j.jobId));
const GPU_TRES_RE = /gres\/gpu(?::[^=,]*)?=(\d+)/;
/** GPUs held (running) or asked for (pending: from its TRES request). A loop, not reduce: 100k calls per view. */
function gpusOf(j: WireJob): number {
  let held = 0;
  for (const a of j.alloc) held += a.gpuIndices.length;
  return held > 0 || j.tresReq === "" ? held : Number(GPU_TRES_RE.exec(j.tresReq)?.[1] ?? 0);
}
const rank = (j: WireJob): number => (j.state === "RUNNING" ? 0 : j.state === "PENDING" ? 1 : 2);
const jobOrder = (a: WireJob, b: WireJob): number => rank(a) - rank(b) || b.priority - a.priority || a.submitTime - b.submitTime || a.jobId - b.jobId;

/** Writes each distinct string once: 100k jobs have a few hundred users, states and reasons. */
function stringTable(): { strings: string[]; intern(s: string): number } {
  const strings: string[] = [];
  const index = new Map<string, number>();
  return {
    strings,
    intern(s) {
      let i = index.get(s);
      if (i === undefined) {
        i = strings.length;
        strings.push(s);
        index.set(s, i);
      }
      return i;
    },
  };
}

function jobRow(j: WireJob, intern: (s: string) => number): JobRow {
  const state = j.stateFlags.length > 0 ? `${j.state},${j.stateFlags.join(",")}` : j.state;
  const id = displayId(j);
  return [id === String(j.jobId) ? "" : id, intern(state), intern(j.user), intern(j.account), j.name, intern(j.partition), intern(j.reason), j.nodelist, j.numCpus, gpusOf(j), j.startTime, j.priority, j.jobId];
}

export function buildView(input: UiInput): UiView {
  const gpuCounts = new Map(input.nodes.nodes.map((n) => [n.name, n.gpuCount] as const));
  const { strings, intern } = stringTable();
  const holderLabels: Record<string, [string, number]> = {};
  const holders = gpuHolders(input.jobs.jobs, gpuCounts, (j) => {
    const id = displayId(j);
    holderLabels[j.jobId] = [id === String(j.jobId) ? "" : id, intern(j.user)];
  });
  const totals = { nodes: 0, gpus: 0, gpusAllocated: 0, cpus: 0, cpusAllocated: 0, running: 0, pending: 0 };
  // nodes of one model share one topology: its groups are computed and sent once
  const groupsOf = new Map<string, number>();
  const groupSets: number[][] = [];
  const nodes: NodeRow[] = input.nodes.nodes.map((n) => {
    const topologyKey = `${n.gpuCount}|${n.gpuTopology}`;
    let groups = groupsOf.get(topologyKey);
    if (groups === undefined) groupsOf.set(topologyKey, (groups = groupSets.push(gpuGroups(n.gpuTopology, n.gpuCount)) - 1));
    const owners = holders.get(n.name) ?? new Array<number>(n.gpuCount).fill(0);
    totals.nodes++;
    totals.gpus += n.gpuCount;
    totals.gpusAllocated += owners.filter((o) => o !== 0).length;
    totals.cpus += n.cpus;
    totals.cpusAllocated += n.allocCpus;
    const state = n.stateFlags.length > 0 ? `${n.state}+${n.stateFlags.join("+")}` : n.state;
    return [n.name, intern(state), n.cpus, n.allocCpus, n.realMemoryMib, n.allocMemoryMib, intern(n.gpuModel), owners, groups, n.reason, n.cpuLoad];
  });
  const sorted = [...input.jobs.jobs].sort(jobOrder);
  for (const j of sorted) {
    if (j.state === "RUNNING") totals.running++;
    else if (j.state === "PENDING") totals.pending++;
  }
  const view: UiView = {
    cluster: input.jobs.clusterName, user: input.user, nodeColumns: NODE_COLUMNS, jobColumns: JOB_COLUMNS,
    strings, groupSets, nodes, holders: holderLabels, jobs: sorted.map((j) => jobRow(j, intern)), totals,
    partitions: input.nodes.partitions.map((p) => ({ name: p.name, state: p.state, nodes: p.nodes, totalNodes: p.totalNodes, totalCpus: p.totalCpus, maxTimeMin: p.maxTimeMin ?? -1, isDefault: p.isDefault })),
    reservations: (input.reservations?.reservations ?? []).map((r) => ({ name: r.name, state: r.state, start: r.startTime, end: r.endTime, nodes: r.nodes, users: r.users.join(","), accounts: r.accounts.join(","), flags: r.flags.join(",") })),
    shares: (input.shares?.rows ?? []).map((r) => ({ account: r.account, user: r.user, depth: r.depth, rawShares: r.rawShares, normShares: fin(r.normShares), rawUsage: r.rawUsage, effectiveUsage: fin(r.effectvUsage), fairshare: fin(r.fairshare) })),
  };
  assert(view.nodes.length === input.nodes.nodes.length && view.jobs.length === input.jobs.jobs.length, "the view keeps every node and job");
  return view;
}

/** JSON has no Infinity/NaN: such shares figures go out as 0. */
const fin = (x: number): number => (Number.isFinite(x) ? x : 0);
