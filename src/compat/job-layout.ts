/**
 * @module sched/plan/job-layout
 * Slurm's rules for how many nodes, tasks and CPUs a request of -N, -n, -c,
 * --ntasks-per-node, --overcommit and --exclusive asks for, and how its tasks
 * and CPUs fall on nodes (pure). Three stages, as in Slurm:
 * - `normaliseAsk`: what sbatch/srun do before sending (a task count below the
 *   node count lowers the node count, with Slurm's warning; a range's maximum
 *   never exceeds an explicit task count; the default task count);
 * - `pendingCounts`: what the controller records for the pending job
 *   (NumNodes with its range and node-count estimate, NumCPUs, MinCPUsNode);
 * - `layoutTasks`: tasks and CPUs per node on the nodes given, in their order
 *   (block: fill a node before the next, keep one task for each node still
 *   owed); undefined when the nodes cannot hold the request.
 * Every rule here is checked against real Slurm 22.05 by
 * tests/unit/sched/job-layout.test.ts (fixture tests/fixtures/layout).
 */
import { assert } from "../lib/assert.ts";

/** What the user typed; 0 = not given. `nodesMax` 0 with `nodesMin` > 0 is a plain -N count. */
export interface LayoutAsk {
  nodesMin: number;
  nodesMax: number;
  ntasks: number;
  cpusPerTask: number;
  ntasksPerNode: number;
  overcommit: boolean;
  exclusive: boolean;
}

/** The request after the client's own rules. */
export interface LayoutShape {
  /** -N given (count or range). */
  nodesGiven: boolean;
  nodesMin: number;
  /** Most nodes: the -N maximum, or 0 when -N was not given (as many as the tasks need). */
  nodesMax: number;
  ntasks: number;
  ntasksGiven: boolean;
  cpusPerTask: number;
  ntasksPerNode: number;
  overcommit: boolean;
  exclusive: boolean;
}

/**
 * normaliseAsk's node minimum alone, with no allocation (the scheduler asks it of every pending job
 * every pass): -N's minimum (1 when not given), lowered to an explicit task count below it.
 */
export function askNodesMin(ask: Pick<LayoutAsk, "nodesMin" | "nodesMax" | "ntasks">): number {
  const nodesGiven = ask.nodesMin > 0 || ask.nodesMax > 0;
  const nodesMin = nodesGiven ? Math.max(1, ask.nodesMin) : 1;
  return ask.ntasks > 0 && nodesGiven && ask.ntasks < nodesMin ? ask.ntasks : nodesMin;
}

/** sbatch/srun's adjustments; `warning` is the text after "sbatch: Warning: " (or "srun: Warning: "), "" when none. */
export function normaliseAsk(ask: LayoutAsk): { shape: LayoutShape; warning: string } {
  const nodesGiven = ask.nodesMin > 0 || ask.nodesMax > 0;
  let nodesMin = nodesGiven ? Math.max(1, ask.nodesMin) : 1;
  let nodesMax = nodesGiven ? Math.max(nodesMin, ask.nodesMax || nodesMin) : 0;
  let warning = "";
  if (ask.ntasks > 0 && nodesGiven) {
    if (ask.ntasks < nodesMin) {
      warning = `can't run ${ask.ntasks} processes on ${nodesMin} nodes, setting nnodes to ${ask.ntasks}`;
      nodesMin = ask.ntasks;
    }
    nodesMax = Math.max(nodesMin, Math.min(nodesMax, ask.ntasks));
  }
  const ntasks = ask.ntasks > 0 ? ask.ntasks : ask.ntasksPerNode > 0 ? ask.ntasksPerNode * nodesMin : nodesMin;
  const shape: LayoutShape = {
    nodesGiven, nodesMin, nodesMax, ntasks, ntasksGiven: ask.ntasks > 0, cpusPerTask: Math.max(1, ask.cpusPerTask),
    ntasksPerNode: ask.ntasksPerNode, overcommit: ask.overcommit, exclusive: ask.exclusive,
  };
  assert(shape.ntasks >= 1 && shape.nodesMin >= 1, "a shape has a task and a node at least");
  assert(!nodesGiven || shape.nodesMax >= shape.nodesMin, "a node range is ordered");
  return { shape, warning };
}

/**
 * -w naming `required` distinct nodes: the job needs at least that many (the oracle: `-w n[1-3]`
 * shows NumNodes=3, `-N2-4 -w n[1-3]` 3-4) and, without -n, runs a task (or a --ntasks-per-node)
 * on each (NumTasks=3). sbatch/salloc/srun refuse an -N maximum below it (`nodeListCountError`).
 */
export function withRequiredNodes(shape: LayoutShape, required: number): LayoutShape {
  if (required <= shape.nodesMin) return shape;
  const ntasks = shape.ntasksGiven ? shape.ntasks : required * Math.max(1, shape.ntasksPerNode);
  const out = { ...shape, nodesMin: required, nodesMax: shape.nodesGiven ? Math.max(shape.nodesMax, required) : shape.nodesMax, ntasks };
  assert(out.nodesMin >= 1 && out.ntasks >= 1, "a shape has a task and a node at least");
  return out;
}

/** The client's refusal of -N whose maximum is below the -w node count (text after "error: "), "" when fine. */
export function nodeListCountError(nodesMin: number, nodesMax: number, required: number): string {
  const given = nodesMin > 0 || nodesMax > 0;
  const max = nodesMax > 0 ? nodesMax : nodesMin;
  return given && required > max ? `invalid number of nodes (-N ${Math.max(nodesMin, required)}-${max})` : "";
}

/**
 * Nodes the pending job is expected to need (Slurm's estimate, shown as NumNodes before it
 * starts): with --ntasks-per-node the whole nodes of tasks it fills, else the nodes of the
 * partition's largest size that hold its tasks (one per task when a task fits nowhere).
 */
export function nodeEstimate(shape: LayoutShape, nodeCpusMax: number): number {
  if (shape.ntasksPerNode > 0) return Math.max(1, Math.floor(shape.ntasks / shape.ntasksPerNode));
  const perNode = Math.floor(nodeCpusMax / shape.cpusPerTask);
  return perNode > 0 ? Math.ceil(shape.ntasks / perNode) : shape.ntasks;
}

export interface PendingCounts {
  /** NumNodes as scontrol shows a pending job: "2", or "2-3" where -N was given. */
  numNodesText: string;
  /** The node count alone (the range's low end). */
  numNodes: number;
  /** squeue's NODES for the pending job: with -N, max(-N's minimum, the estimate), which -N's maximum does not cap (22.05 oracle). */
  listedNodes: number;
  numCpus: number;
  numTasks: number;
  minCpusNode: number;
}

export function pendingCounts(shape: LayoutShape, nodeCpusMax: number): PendingCounts {
  const estimate = nodeEstimate(shape, nodeCpusMax);
  const numNodes = shape.nodesGiven ? Math.min(shape.nodesMax, Math.max(shape.nodesMin, estimate)) : Math.max(shape.nodesMin, estimate);
  // --overcommit: one CPU per node is all the job asks for; a node range without -n asks for one task's
  // CPUs (or a --ntasks-per-node of one-CPU tasks, whichever is more)
  const rangeOnly = !shape.ntasksGiven && shape.nodesMax > shape.nodesMin;
  const numCpus = shape.overcommit
    ? shape.nodesMin
    : rangeOnly
      ? Math.max(shape.cpusPerTask, shape.ntasksPerNode)
      : shape.ntasks * shape.cpusPerTask;
  return {
    numNodesText: shape.nodesGiven ? `${numNodes}-${shape.nodesMax}` : String(numNodes),
    numNodes,
    listedNodes: shape.nodesGiven ? Math.max(shape.nodesMin, estimate) : numNodes,
    numCpus,
    numTasks: shape.ntasks,
    minCpusNode: minCpusPerNode(shape),
  };
}

/** CPUs every node of the job must offer (MinCPUsNode): a whole --ntasks-per-node of tasks (one task's for -n1), or one task's. */
export function minCpusPerNode(shape: LayoutShape): number {
  if (shape.overcommit) return shape.cpusPerTask;
  return shape.cpusPerTask * Math.max(1, tasksPerNodeCap(shape));
}

/** --ntasks-per-node as it shapes a node's share (0 = none); Slurm drops it for an explicit single task. */
const tasksPerNodeCap = (shape: LayoutShape): number => (shape.ntasksGiven && shape.ntasks === 1 && shape.ntasksPerNode > 0 ? 1 : shape.ntasksPerNode);

export interface LayoutNode {
  name: string;
  /** CPUs the job may use there now (all of them for "could it ever run"). */
  freeCpus: number;
  cpus: number;
}

export interface NodeShare {
  name: string;
  tasks: number;
  cpus: number;
}

/** Most nodes a request without -N may spread over (a bound, not a Slurm limit). */
export const NODES_UNBOUNDED = 1 << 20;

/** Nodes the job takes when they are free: a range's top (capped by a --ntasks-per-node task count), -N, or 1 (grown as the tasks need). */
export function nodesTarget(shape: LayoutShape): { wanted: number; most: number } {
  if (!shape.nodesGiven) return { wanted: 1, most: NODES_UNBOUNDED };
  // a task count derived from --ntasks-per-node caps the range's use too (-N1-3 --ntasks-per-node=1 takes one node)
  const top = shape.ntasksPerNode > 0 ? Math.max(shape.nodesMin, Math.min(shape.nodesMax, shape.ntasks)) : shape.nodesMax;
  return { wanted: top, most: top };
}

/**
 * Tasks and CPUs per node, nodes taken in the order given. A node range takes as many
 * nodes as it may (Slurm gives the range's maximum when they are free); each node taken
 * runs at least one task's CPUs, even past the task count (-N1-3: three CPUs).
 */
export function layoutTasks(shape: LayoutShape, nodes: readonly LayoutNode[]): NodeShare[] | undefined {
  const { wanted, most } = nodesTarget(shape);
  const usable = nodes.filter((n) => nodeFits(shape, n));
  const out: NodeShare[] = [];
  let remaining = shape.ntasks;
  for (const node of usable) {
    if (out.length >= most || (remaining <= 0 && out.length >= wanted)) break;
    const owed = Math.max(0, Math.min(wanted, usable.length) - out.length - 1);
    const room = taskRoom(shape, node);
    const tasks = remaining > 0 ? Math.min(room, remaining, Math.max(1, remaining - owed)) : 0;
    if (tasks === 0 && remaining > 0 && owed === 0) continue;
    out.push({ name: node.name, tasks, cpus: shareCpus(shape, node, tasks) });
    remaining -= tasks;
  }
  if (remaining > 0 || out.length < shape.nodesMin) return undefined;
  assert(out.reduce((n, s) => n + s.tasks, 0) === shape.ntasks, "every task is placed once");
  assert(out.every((s) => s.cpus <= (nodes.find((n) => n.name === s.name)?.freeCpus ?? 0)), "no share exceeds its node's free CPUs");
  return out;
}

/** The node can hold the request's per-node minimum (one task, or a whole --ntasks-per-node). */
export function nodeFits(shape: LayoutShape, node: LayoutNode): boolean {
  if (shape.exclusive && node.freeCpus < node.cpus) return false;
  // a whole --ntasks-per-node of tasks must fit, even with --overcommit or one task (Slurm 22.05 refuses -n1 --ntasks-per-node=5 on 4 CPUs)
  const perNode = shape.cpusPerTask * Math.max(1, shape.ntasksPerNode);
  return perNode <= node.freeCpus;
}

/** Tasks the node can run: its CPUs over the task's, any number with --overcommit, at most --ntasks-per-node. */
export function taskRoom(shape: LayoutShape, node: LayoutNode): number {
  const byCpus = shape.overcommit ? NODES_UNBOUNDED : Math.floor(node.freeCpus / shape.cpusPerTask);
  const cap = tasksPerNodeCap(shape);
  return cap > 0 ? Math.min(byCpus, cap) : byCpus;
}

/** CPUs the job holds on a node: the whole node (--exclusive), one task's (--overcommit), a full --ntasks-per-node, or its tasks'. */
export function shareCpus(shape: LayoutShape, node: LayoutNode, tasks: number): number {
  if (shape.exclusive) return node.cpus;
  if (shape.overcommit) return shape.cpusPerTask;
  const perTask = shape.cpusPerTask;
  if (shape.ntasksPerNode > 0) return perTask * tasksPerNodeCap(shape);
  return perTask * Math.max(1, tasks);
}

/**
 * The fewest CPUs a placement of the job on `nodeCount` nodes holds: one task's CPUs per node
 * with --overcommit (the oracle: -n5 -O runs on 1 CPU, -N2 -n20 -O on 2), else every task's.
 */
export function cpusNeeded(shape: LayoutShape, nodeCount: number): number {
  assert(nodeCount >= 0 && shape.cpusPerTask >= 1, "a CPU count of whole nodes and tasks");
  return shape.overcommit ? Math.max(1, nodeCount) * shape.cpusPerTask : shape.ntasks * shape.cpusPerTask;
}

/** Slurm's refusal of a step that needs more CPUs than its nodes hold (without --overcommit). */
export const STEP_TOO_MANY_CPUS = "More processors requested than permitted";

/**
 * Tasks per node for a step over nodes holding `cpus[i]` CPUs for it (Slurm's block layout of
 * a step): tasks are dealt one per node per round, each node taking tasks while it has a task's
 * CPUs left; once no node has room, --overcommit keeps dealing to every node (4+1 CPUs, 9 tasks:
 * 6 and 3) and without it the step is refused. Every node gets a task first.
 */
export function stepTaskCounts(cpus: readonly number[], ntasks: number, cpusPerTask: number, overcommit: boolean): number[] | string {
  assert(cpus.length > 0 && ntasks >= cpus.length, "a step has a task on each of its nodes");
  const slots = cpus.map((c) => Math.floor(c / Math.max(1, cpusPerTask)));
  const total = slots.reduce((a, b) => a + b, 0);
  if (!overcommit && (total < ntasks || slots.some((s) => s === 0))) return STEP_TOO_MANY_CPUS;
  const tasks = cpus.map(() => 0);
  let placed = 0;
  let over = false;
  for (let round = 0; placed < ntasks; round++) {
    let roomLeft = false;
    for (let i = 0; i < tasks.length && placed < ntasks; i++) {
      // the first round gives every node a task, whatever its CPUs (overcommit only gets here without room)
      if (round < (slots[i] ?? 0) || over || round === 0) {
        tasks[i] = (tasks[i] ?? 0) + 1;
        placed++;
        if (round + 1 < (slots[i] ?? 0)) roomLeft = true;
      }
    }
    if (!roomLeft) over = true;
  }
  assert(tasks.reduce((a, b) => a + b, 0) === ntasks, "every task is placed once");
  return tasks;
}
