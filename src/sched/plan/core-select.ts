/**
 * @module sched/plan/core-select
 * Which CPU ids of a node a job's share holds (pure; run inside apply() so every
 * replica picks the same ids). Ids follow Slurm's abstract numbering:
 * id = (socket × coresPerSocket + core) × threadsPerCore + thread, so a core's
 * threads are adjacent and socket s holds a contiguous block. A node whose
 * counts do not multiply out to its CPUs is treated as one thread per core,
 * its CPUs split evenly over its sockets (or one socket when they do not split).
 *
 * Rules, in order of strength:
 * - never a taken id, never an id twice, never outside the node; exactly `count`
 *   ids whenever the node has that many free (caps below yield before that);
 * - a share whose sockets the scheduler counted (`socketCounts`: GPU locality, or
 *   the fewest sockets that hold it) gets that many on each socket; the caller
 *   passes none when the user asked for a socket layout (-m *:block|cyclic,
 *   --ntasks-per-socket, --cores-per-socket);
 * - otherwise tasks go to sockets by the second level of --distribution: cyclic
 *   (Slurm's default) rotates task by task over the sockets, block fills a socket
 *   first; --ntasks-per-socket caps the tasks on one socket and --cores-per-socket
 *   the cores used on one socket;
 * - --hint=nomultithread / --threads-per-core=1 (`oneThreadPerCore`): a task takes
 *   whole free cores (the scheduler counted cpusPerTask × threadsPerCore CPUs per
 *   task); otherwise a task takes single threads, filling cores in id order.
 */
import { assert } from "../../lib/assert.ts";

export interface CpuLayout {
  cpus: number;
  sockets: number;
  coresPerSocket: number;
  threadsPerCore: number;
}

export interface CoreAsk {
  /** CPUs of the share (the scheduler's count). */
  count: number;
  /** CPUs per socket placed by GPU locality (NodeAlloc.socketCpus); [] = by distribution. */
  socketCounts: readonly number[];
  tasks: number;
  cpusPerTask: number;
  /** --ntasks-per-socket (0 = any). */
  ntasksPerSocket: number;
  /** --cores-per-socket (0 = any). */
  coresPerSocket: number;
  oneThreadPerCore: boolean;
  socketDist: "block" | "cyclic";
}

/** The node's CPU ids as sockets → cores → thread ids. */
export function coreTree(layout: CpuLayout): number[][][] {
  const { cpus } = layout;
  const exact = layout.sockets >= 1 && layout.coresPerSocket >= 1 && layout.threadsPerCore >= 1 &&
    layout.sockets * layout.coresPerSocket * layout.threadsPerCore === cpus;
  const sockets = exact ? layout.sockets : layout.sockets >= 1 && cpus % layout.sockets === 0 ? layout.sockets : 1;
  const threads = exact ? layout.threadsPerCore : 1;
  const cores = Math.floor(cpus / sockets / threads);
  return Array.from({ length: sockets }, (_, s) =>
    Array.from({ length: cores }, (_, c) => Array.from({ length: threads }, (_, t) => (s * cores + c) * threads + t)));
}

/** Parse a share's --distribution into the socket level ("block:cyclic" → cyclic; absent → Slurm's default, cyclic). */
export function socketDistOf(distribution: string): "block" | "cyclic" {
  const second = distribution.split(",")[0]?.split(":")[1] ?? "";
  return second === "block" ? "block" : "cyclic";
}

export function selectCpuIds(layout: CpuLayout, taken: ReadonlySet<number>, ask: CoreAsk): number[] {
  const tree = coreTree(layout);
  const chosen = new Set<number>();
  // Kept as ids are chosen (and unchosen), so a choice costs a pass over the node's cores, not its square.
  const perSocket = new Array<number>(tree.length).fill(0);
  const coresPer = new Array<number>(tree.length).fill(0);
  const usedCores = new Set<readonly number[]>();
  const choose = (s: number, core: readonly number[], id: number): void => {
    chosen.add(id);
    perSocket[s] = (perSocket[s] ?? 0) + 1;
    if (!usedCores.has(core)) {
      usedCores.add(core);
      coresPer[s] = (coresPer[s] ?? 0) + 1;
    }
  };
  const freeThreads = (core: readonly number[]): number[] => core.filter((id) => !taken.has(id) && !chosen.has(id));
  const wholeCores = ask.oneThreadPerCore && (tree[0]?.[0]?.length ?? 1) > 1;
  const nextCore = new Array<number>(tree.length).fill(0); // cores before it on socket s are full or skipped for good

  /** Up to `n` CPUs on socket s (whole free cores when wholeCores), within the caps; what was taken. */
  function takeOn(s: number, n: number, cap: number): { s: number; core: readonly number[]; id: number }[] {
    const got: { s: number; core: readonly number[]; id: number }[] = [];
    const cores = tree[s] ?? [];
    for (let c = nextCore[s] ?? 0; c < cores.length; c++) {
      if (got.length >= n || (perSocket[s] ?? 0) >= cap) break;
      const core = cores[c] ?? [];
      const free = freeThreads(core);
      if (free.length === 0) {
        if (c === nextCore[s]) nextCore[s] = c + 1;
        continue;
      }
      if (wholeCores && free.length < core.length) continue;
      if (!usedCores.has(core) && ask.coresPerSocket > 0 && (coresPer[s] ?? 0) >= ask.coresPerSocket) continue;
      for (const id of free) {
        if (got.length >= n || (perSocket[s] ?? 0) >= cap) break;
        choose(s, core, id);
        got.push({ s, core, id });
      }
    }
    return got;
  }
  const undo = (got: readonly { s: number; core: readonly number[]; id: number }[]): void => {
    for (const g of got) {
      chosen.delete(g.id);
      perSocket[g.s] = (perSocket[g.s] ?? 0) - 1;
      if (!g.core.some((id) => chosen.has(id)) && usedCores.delete(g.core)) coresPer[g.s] = (coresPer[g.s] ?? 0) - 1;
    }
    for (const g of got) nextCore[g.s] = 0; // a core emptied again may lie before the cursor
  };

  const socketCount = tree.length;
  const located = ask.socketCounts.length === socketCount && ask.socketCounts.reduce((t, c) => t + c, 0) === ask.count;
  if (located) {
    for (let s = 0; s < socketCount; s++) takeOn(s, ask.socketCounts[s] ?? 0, ask.socketCounts[s] ?? 0);
  } else {
    const perTask = Math.max(1, Math.floor(ask.count / Math.max(1, ask.tasks)));
    const cap = ask.ntasksPerSocket > 0 ? ask.ntasksPerSocket * perTask : Number.POSITIVE_INFINITY;
    const full = new Array<boolean>(socketCount).fill(false); // a task of perTask CPUs no longer fits there
    let next = 0;
    for (let k = 0; k < ask.tasks && chosen.size < ask.count; k++) {
      // block: the lowest socket with room; cyclic: the next socket in rotation with room.
      const want = Math.min(perTask, ask.count - chosen.size);
      for (let tries = 0; tries < socketCount; tries++) {
        const s = ask.socketDist === "block" ? tries : (next + tries) % socketCount;
        if (full[s] || cap - (perSocket[s] ?? 0) < want) continue;
        const got = takeOn(s, want, cap);
        if (got.length < want) {
          undo(got); // a task never straddles sockets when one socket can hold it
          full[s] = true;
          continue;
        }
        next = (s + 1) % socketCount;
        break;
      }
    }
    // CPUs beyond tasks × perTask (--exclusive, --cpus-per-gpu): the sockets in order, within the caps.
    for (let s = 0; s < socketCount && chosen.size < ask.count; s++) takeOn(s, ask.count - chosen.size, cap);
  }
  // Caps and stale counts never cost the job CPUs it was allocated: the lowest free ids fill the rest.
  if (chosen.size < ask.count) {
    for (const core of tree.flat()) {
      for (const id of freeThreads(core)) if (chosen.size < ask.count) chosen.add(id);
      if (chosen.size >= ask.count) break;
    }
  }
  const out = [...chosen].sort((a, b) => a - b);
  assert(out.length <= ask.count && out.every((id) => !taken.has(id) && id >= 0 && id < layout.cpus), "chosen CPU ids are free, on the node, and no more than asked");
  return out;
}

/** CPUs on each socket among `ids` (the share's socketCpus once the ids are chosen). */
export function socketCountsOf(layout: CpuLayout, ids: readonly number[]): number[] {
  const tree = coreTree(layout);
  const socketOf = new Map<number, number>();
  tree.forEach((cores, s) => cores.flat().forEach((id) => socketOf.set(id, s)));
  const counts = new Array<number>(tree.length).fill(0);
  for (const id of ids) {
    const s = socketOf.get(id) ?? 0;
    counts[s] = (counts[s] ?? 0) + 1;
  }
  return counts;
}
