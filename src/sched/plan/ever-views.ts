/**
 * @module sched/plan/ever-views
 * The nodes as an "ever" fit sees them (fit-node.ts, mode "ever"): configured capacity, as if
 * every node were up and empty. Submission checks ask this of a partition's nodes for every
 * job, on every replica (issue 16: building the scheduler's full views of all nodes, three
 * times a Submit, made one Submit's apply cost 12-20 ms at 10k nodes).
 *
 * A node's view depends only on its configuration and its position in the cluster's order, so
 * a partition's views are kept (per partition name list; a node's view is shared by the
 * partitions that hold it) and a view is rebuilt whenever one of
 * the fields it is built from differs: they are compared one by one on every use, so a kept
 * view is always what a rebuild would give (nodes are updated in place; there is no version
 * counter that a path could forget to bump). Nothing kept is replicated state: a replica that
 * never kept anything computes the same views. Views are frozen: callers only read them, and
 * one that wrote would fail loudly.
 */
import { gpuSocketsOf } from "../../compat/gpu-locality.ts";
import { gpuTypesOfGres, mixedGpuTypes } from "../../compat/gpu-types.ts";
import { parseGresItems } from "../../compat/gres-generic.ts";
import { parseGpuTopology } from "../../devices/gpu-topology.ts";
import type { ClusterState, NodeInfoP, NodeRecord } from "../model/types.ts";
import { fitJob, type NodeView } from "./fit-node.ts";
import type { ResourceRequest } from "./request.ts";

/** What a node's view was built from: every node field an "ever" view reads (allocations, state and users it never looks at), and its position. */
interface Source {
  name: string;
  cpus: number;
  realMemoryMib: number;
  gpuCount: number;
  gpuModel: string;
  features: string;
  weight: number;
  gpuTopology: string;
  sockets: number;
  coresPerSocket: number;
  threadsPerCore: number;
  gpuCpus: string | undefined;
  gres: string;
  tmpDiskMib: number;
  gresGeneric: string | undefined;
  order: number;
}

const sourceOf = (i: NodeInfoP, order: number): Source => ({
  name: i.name, cpus: i.cpus, realMemoryMib: i.realMemoryMib, gpuCount: i.gpuCount, gpuModel: i.gpuModel, features: i.features,
  weight: i.weight, gpuTopology: i.gpuTopology, sockets: i.sockets, coresPerSocket: i.coresPerSocket, threadsPerCore: i.threadsPerCore,
  gpuCpus: i.gpuCpus, gres: i.gres, tmpDiskMib: i.tmpDiskMib, gresGeneric: i.gresGeneric, order,
});

/** Field by field, written out: this runs for every node of a partition on every submission. */
const sameSource = (s: Source, i: NodeInfoP, order: number): boolean =>
  s.order === order && s.name === i.name && s.cpus === i.cpus && s.realMemoryMib === i.realMemoryMib && s.gpuCount === i.gpuCount
  && s.gpuModel === i.gpuModel && s.features === i.features && s.weight === i.weight && s.gpuTopology === i.gpuTopology
  && s.sockets === i.sockets && s.coresPerSocket === i.coresPerSocket && s.threadsPerCore === i.threadsPerCore
  && s.gpuCpus === i.gpuCpus && s.gres === i.gres && s.tmpDiskMib === i.tmpDiskMib && s.gresGeneric === i.gresGeneric;

/** The cluster's nodes in order, as last seen: a new object whenever a name or record changed place. */
interface ClusterOrder {
  names: string[];
  records: NodeRecord[];
  at: Map<string, number>;
}

/** A partition's views as last handed out, with what each was built from (members: cluster positions). */
interface PartitionViews {
  cluster: ClusterOrder;
  names: string[];
  members: number[];
  from: Source[];
  views: NodeView[];
}

const clusterOrders = new WeakMap<ClusterState["nodes"], ClusterOrder>();
const partitionViews = new WeakMap<readonly string[], PartitionViews>();

/**
 * Each node's view with what it was built from, shared by every partition holding the node
 * (a 10k-node partition's views are ~6.6 MiB; sites list the same nodes in several partitions).
 */
const byNode = new WeakMap<NodeRecord, { from: Source; view: NodeView }>();

function viewOf(node: NodeRecord, order: number): { from: Source; view: NodeView } {
  const was = byNode.get(node);
  if (was !== undefined && sameSource(was.from, node.info, order)) return was;
  const made = { from: sourceOf(node.info, order), view: buildEverView(node, order) };
  byNode.set(node, made);
  return made;
}

/**
 * The "ever" views of `names` (a partition's node names, in its order; unknown names are left
 * out). What it costs per call: a walk over the cluster's nodes and one over the partition's,
 * comparing; views are built only for nodes whose configuration changed. The array is frozen
 * and the same one while no view changed.
 */
export function everViews(state: ClusterState, names: readonly string[]): NodeView[] {
  const cluster = clusterOrder(state);
  let pv = partitionViews.get(names);
  if (pv === undefined || pv.cluster !== cluster || !sameNames(pv.names, names)) {
    const members = names.map((n) => cluster.at.get(n)).filter((k) => k !== undefined);
    const kept = members.map((k) => viewOf(cluster.records[k] as NodeRecord, k));
    pv = { cluster, names: [...names], members, from: kept.map((k) => k.from), views: Object.freeze(kept.map((k) => k.view)) as NodeView[] };
    partitionViews.set(names, pv);
    return pv.views;
  }
  const { members, from } = pv;
  let views: NodeView[] | undefined;
  for (let j = 0; j < members.length; j++) {
    const order = members[j] as number;
    const info = (cluster.records[order] as NodeRecord).info;
    if (sameSource(from[j] as Source, info, order)) continue;
    const kept = viewOf(cluster.records[order] as NodeRecord, order);
    from[j] = kept.from;
    views ??= [...pv.views];
    views[j] = kept.view;
  }
  // a changed view makes a new array: the array's identity stands for its content (fitsEver keeps answers by it)
  if (views !== undefined) pv.views = Object.freeze(views) as NodeView[];
  return pv.views;
}

/** Answers kept per views array (bounded: a full table starts over), by the request's JSON. */
const answers = new WeakMap<readonly NodeView[], Map<string, boolean>>();
const ANSWERS_MAX = 256;

/** JSON of a request, with non-finite numbers kept apart (JSON would write them all as null). */
const requestKey = (req: ResourceRequest): string => JSON.stringify(req, (_k, v: unknown) => (typeof v === "number" && !Number.isFinite(v) ? `#${v}` : v));

/**
 * Whether the request could ever be placed on `views` (an everViews array): fitJob in "ever"
 * mode, which reads only the request and the views, so the answer is kept for that array and
 * request (a site's submissions repeat a few shapes; each fit walks every node of the partition).
 */
export function fitsEver(req: ResourceRequest, views: readonly NodeView[]): boolean {
  const key = requestKey(req);
  let known = answers.get(views);
  const was = known?.get(key);
  if (was !== undefined) return was;
  const fits = fitJob(req, views as NodeView[], "ever") !== undefined;
  if (known === undefined || known.size >= ANSWERS_MAX) answers.set(views, (known = new Map()));
  known.set(key, fits);
  return fits;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The cluster's order, the same object while every name and record is where it was. */
function clusterOrder(state: ClusterState): ClusterOrder {
  const was = clusterOrders.get(state.nodes);
  if (was !== undefined && was.names.length === state.nodes.size) {
    let i = 0;
    let same = true;
    state.nodes.forEach((record, name) => {
      if (same && (was.names[i] !== name || was.records[i] !== record)) same = false;
      i++;
    });
    if (same) return was;
  }
  const names = [...state.nodes.keys()];
  const order: ClusterOrder = { names, records: [...state.nodes.values()], at: new Map(names.map((n, i) => [n, i])) };
  clusterOrders.set(state.nodes, order);
  return order;
}

function buildEverView(node: NodeRecord, order: number): NodeView {
  const i = node.info;
  const gpus = Object.freeze(Array.from({ length: i.gpuCount }, (_, g) => g)) as number[];
  const gresTotal = i.gresGeneric ? (Object.freeze(parseGresItems(i.gresGeneric)) as ReturnType<typeof parseGresItems>) : undefined;
  const view: NodeView = {
    name: i.name,
    cpus: i.cpus,
    memMiB: i.realMemoryMib,
    gpuCount: i.gpuCount,
    gpuModel: i.gpuModel,
    features: Object.freeze(i.features ? i.features.split(",") : []) as string[],
    // "ever": everything free, nobody on it (an ever fit reads none of these; they say what it assumes)
    freeCpus: i.cpus,
    freeMemMiB: i.realMemoryMib,
    freeGpus: gpus,
    idle: true,
    usable: true,
    weight: i.weight ?? 1,
    gpuLinks: parseGpuTopology(i.gpuTopology, i.gpuCount),
    sockets: socketLayout(node),
    threadsPerCore: i.threadsPerCore,
    socketCount: i.sockets,
    coresPerSocket: i.coresPerSocket,
    gpuTypes: gpuTypes(node),
    tmpDiskMib: i.tmpDiskMib,
    ...(gresTotal !== undefined ? { gresTotal, gresFree: gresTotal } : {}),
    order,
  };
  return Object.freeze(view);
}

/** As the scheduler's views (backfill.ts) lay out sockets, with every socket's CPUs free. */
function socketLayout(node: NodeRecord): NodeView["sockets"] {
  const { sockets, cpus, gpuCount } = node.info;
  if (sockets <= 1 || cpus % sockets !== 0) return undefined;
  const gpuSocket = node.info.gpuCpus ? gpuSocketsOf(node.info.gpuCpus.split(";"), gpuCount, cpus, sockets) : new Array<number>(gpuCount).fill(-1);
  const freeCpus = new Array<number>(sockets).fill(Math.floor(cpus / sockets));
  return Object.freeze({ count: sockets, gpuSocket: Object.freeze(gpuSocket) as number[], freeCpus: Object.freeze(freeCpus) as number[] });
}

function gpuTypes(node: NodeRecord): string[] | undefined {
  if (!node.info.gres.includes(",")) return undefined;
  const types = gpuTypesOfGres(node.info.gres, node.info.gpuCount);
  return mixedGpuTypes(types) ? (Object.freeze(types) as string[]) : undefined;
}

/** Sums and maxima over a partition's views that every submission reads. */
export interface ViewTotals {
  cpus: number;
  maxCpus: number;
  maxMemMiB: number;
  maxTmpDiskMib: number;
}

const totals = new WeakMap<readonly NodeView[], ViewTotals>();

/** The totals of an everViews array, worked out once per array (its identity stands for its content). */
export function viewTotals(views: readonly NodeView[]): ViewTotals {
  const was = totals.get(views);
  if (was !== undefined) return was;
  const t: ViewTotals = { cpus: 0, maxCpus: 0, maxMemMiB: 0, maxTmpDiskMib: 0 };
  for (const v of views) {
    t.cpus += v.cpus;
    if (v.cpus > t.maxCpus) t.maxCpus = v.cpus;
    if (v.memMiB > t.maxMemMiB) t.maxMemMiB = v.memMiB;
    if ((v.tmpDiskMib ?? 0) > t.maxTmpDiskMib) t.maxTmpDiskMib = v.tmpDiskMib ?? 0;
  }
  totals.set(views, Object.freeze(t));
  return t;
}
