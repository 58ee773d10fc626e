/**
 * @module agent/cgroup/bind
 * Per-task CPU binding of an srun step on one node (Slurm's task/affinity),
 * pure: from --cpu-bind (SLURM_CPU_BIND), the job's CPUs on the node, the
 * host's cores (thread siblings), -c, --hint=nomultithread / --threads-per-core
 * and the core-level --distribution (block or cyclic) to each local task's CPU
 * list and the SLURM_CPU_BIND* variables Slurm sets in task environments
 * (SLURM_CPU_BIND=quiet,mask_cpu:0x3,0xC; _LIST 0x3,0xC; _TYPE mask_cpu:;
 * _VERBOSE quiet). Without --cpu-bind, tasks are bound to cores when they fit
 * (Slurm's automatic binding); `none` leaves them on the job's whole cpuset.
 */

import { cpuBindPieces } from "../../compat/options/cpu-bind-syntax.ts";

export type BindType = "none" | "cores" | "threads" | "sockets" | "ldoms" | "rank" | "map_cpu" | "mask_cpu";

export interface BindSpec {
  verbose: boolean;
  type: BindType;
  /** map_cpu: CPU ids; mask_cpu: masks as CPU id lists. */
  lists: number[][];
}

export type BindParse = { ok: true; spec: BindSpec | undefined } | { ok: false; message: string };

/** Singular words srun takes for the plural types, and rank_ldom (tasks to locality domains, which here are the sockets). */
const TYPE_WORDS: Readonly<Record<string, BindType>> = {
  none: "none", no: "none", cores: "cores", core: "cores", threads: "threads", thread: "threads",
  sockets: "sockets", socket: "sockets", ldoms: "ldoms", ldom: "ldoms", rank_ldom: "ldoms", rank: "rank",
};

/**
 * "[quiet|verbose,]type" → spec; "" → undefined (automatic). Pieces as srun splits them
 * (compat/options/cpu-bind-syntax.ts: a comma before a value stays in a list). one_thread is
 * taken and does nothing here; map_ldom/mask_ldom are refused (no NUMA lists).
 */
export function parseCpuBind(text: string): BindParse {
  let verbose = false;
  let type: BindType | undefined;
  let lists: number[][] = [];
  if (text.trim() === "") return { ok: true, spec: undefined };
  for (const raw of cpuBindPieces(text)) {
    const item = raw.trim().toLowerCase();
    const list = item.replace(/^(map_cpu|mask_cpu)[:=]/, "$1:");
    if (item === "verbose" || item === "v") verbose = true;
    else if (item === "quiet" || item === "q") verbose = false;
    else if (item === "one_thread") continue;
    else if (TYPE_WORDS[item] !== undefined) type = TYPE_WORDS[item];
    else if (list.startsWith("map_cpu:")) {
      type = "map_cpu";
      lists = list.slice(8).split(",").filter((n) => n !== "").map((n) => [Number(n.startsWith("0x") ? Number.parseInt(n, 16) : n)]);
      if (lists.length === 0 || lists.some((l) => !Number.isInteger(l[0]) || (l[0] ?? -1) < 0)) return { ok: false, message: `Failed to parse --cpu-bind map_cpu list: ${item}` };
    } else if (list.startsWith("mask_cpu:")) {
      type = "mask_cpu";
      lists = list.slice(9).split(",").filter((n) => n !== "").map(maskToCpus);
      if (lists.length === 0 || lists.some((l) => l.length === 0)) return { ok: false, message: `Failed to parse --cpu-bind mask_cpu list: ${item}` };
    } else return { ok: false, message: `Invalid --cpu-bind argument: ${raw}` };
  }
  return { ok: true, spec: { verbose, type: type ?? "cores", lists } };
}

export function maskToCpus(hex: string): number[] {
  const digits = hex.replace(/^0x/i, "");
  if (!/^[0-9a-f]+$/i.test(digits)) return [];
  const out: number[] = [];
  let bit = 0;
  for (let i = digits.length - 1; i >= 0; i--, bit += 4) {
    const v = Number.parseInt(digits[i] ?? "0", 16);
    for (let b = 0; b < 4; b++) if (v & (1 << b)) out.push(bit + b);
  }
  return out;
}

/** CPU ids → "0x3" (BigInt: hosts have more than 53 CPUs). */
export function cpusToMask(cpus: readonly number[]): string {
  let mask = 0n;
  for (const c of cpus) mask |= 1n << BigInt(c);
  return `0x${mask.toString(16).toUpperCase()}`;
}

export interface BindInput {
  spec: BindSpec | undefined;
  /** The job's host CPUs on this node, sorted. */
  jobCpus: readonly number[];
  /** Host cores as their thread siblings ([[0,4],[1,5],...]); [] = every CPU its own core. */
  cores: readonly (readonly number[])[];
  localTasks: number;
  cpusPerTask: number;
  /** --hint=nomultithread or --threads-per-core=1: one thread of each core. */
  oneThreadPerCore: boolean;
  /** Core-level distribution: block (default) or cyclic. */
  cyclic: boolean;
  /**
   * Host CPUs by socket (physical package); absent or one socket holding the job = no socket choice.
   * With two or more, tasks go to sockets by `socketDist` (-m's second level; Slurm's default cyclic):
   * cyclic deals tasks to the sockets in turn, block fills a socket first; --cpu-bind=sockets|ldoms
   * binds a task to every job CPU of its socket.
   */
  sockets?: readonly (readonly number[])[];
  socketDist?: "block" | "cyclic";
}

export interface BindResult {
  /** Per local task: the CPUs it is bound to; undefined = not bound. */
  perTask: (number[] | undefined)[];
  env: Record<string, string>;
  verbose: boolean;
}

export function bindTasks(b: BindInput): BindResult {
  const spec = b.spec ?? { verbose: false, type: "cores" as const, lists: [] };
  const verbose = spec.verbose;
  const quiet = verbose ? "verbose" : "quiet";
  const usable = usableCpus(b);
  const automatic = b.spec === undefined;
  const fits = b.localTasks * Math.max(1, b.cpusPerTask) <= usable.length;
  if (spec.type === "none" || usable.length === 0 || (automatic && !fits)) {
    return { perTask: new Array(b.localTasks).fill(undefined), verbose, env: bindEnv(quiet, "none", []) };
  }
  const bySocket = socketQueues(usable, b);
  const perTask = bySocket !== undefined && ["cores", "threads", "sockets", "ldoms"].includes(spec.type)
    ? tasksOnSockets(spec, bySocket, b)
    : Array.from({ length: b.localTasks }, (_, k) => cpusOfTask(spec, usable, b, k));
  return { perTask, verbose, env: bindEnv(quiet, "mask_cpu:", perTask.map((cpus) => cpusToMask(cpus))) };
}

function bindEnv(quiet: string, type: string, masks: string[]): Record<string, string> {
  const list = masks.join(",");
  return {
    SLURM_CPU_BIND: type === "none" ? `${quiet},none` : `${quiet},${type}${list}`,
    SLURM_CPU_BIND_LIST: list,
    SLURM_CPU_BIND_TYPE: type === "none" ? "none" : type,
    SLURM_CPU_BIND_VERBOSE: quiet,
  };
}

/** The job's CPUs in binding order; with one thread per core, only the first thread of each core. */
function usableCpus(b: BindInput): number[] {
  const jobSet = new Set(b.jobCpus);
  if (!b.oneThreadPerCore || b.cores.length === 0) return [...b.jobCpus];
  const out: number[] = [];
  for (const core of b.cores) {
    const first = core.find((c) => jobSet.has(c));
    if (first !== undefined) out.push(first);
  }
  return out.length > 0 ? out : [...b.jobCpus];
}

function cpusOfTask(spec: BindSpec, usable: readonly number[], b: BindInput, k: number): number[] {
  const n = usable.length;
  const per = Math.max(1, b.cpusPerTask);
  switch (spec.type) {
    case "map_cpu":
    case "mask_cpu": {
      const cpus = spec.lists[k % Math.max(1, spec.lists.length)] ?? [];
      return cpus.filter((c) => b.jobCpus.includes(c)).length > 0 ? cpus.filter((c) => b.jobCpus.includes(c)) : [...b.jobCpus];
    }
    case "rank":
      return [usable[k % n] ?? 0];
    case "sockets":
    case "ldoms":
      return [...b.jobCpus]; // the job's CPUs are on one socket (or the host's sockets are unknown)
    default: {
      const cpus: number[] = [];
      for (let j = 0; j < per; j++) {
        const index = b.cyclic ? (k + j * b.localTasks) % n : (k * per + j) % n;
        cpus.push(usable[index] ?? 0);
      }
      // cores: a task owns whole cores (every thread of them the job holds); threads: single threads.
      const whole = spec.type === "cores" && !b.oneThreadPerCore ? withSiblings(cpus, b) : cpus;
      return [...new Set(whole)].sort((x, y) => x - y);
    }
  }
}

/** The usable CPUs per socket (sockets without any dropped), or undefined when fewer than two sockets hold the job. */
function socketQueues(usable: readonly number[], b: BindInput): number[][] | undefined {
  if (b.sockets === undefined || b.sockets.length < 2) return undefined;
  const queues = b.sockets.map((s) => usable.filter((c) => s.includes(c))).filter((q) => q.length > 0);
  return queues.length >= 2 ? queues : undefined;
}

/** Each task's CPUs, tasks dealt to sockets (cyclic) or filling them (block); a task spills to the next socket when its own runs out. */
function tasksOnSockets(spec: BindSpec, queues: readonly number[][], b: BindInput): number[][] {
  const per = Math.max(1, b.cpusPerTask);
  const next = queues.map(() => 0);
  const out: number[][] = [];
  let socket = 0;
  for (let k = 0; k < b.localTasks; k++) {
    // block: stay on a socket while it has room for a whole task; cyclic: the next socket each task.
    if (b.socketDist === "block") {
      while (socket < queues.length - 1 && (queues[socket]?.length ?? 0) - (next[socket] ?? 0) < per) socket++;
    }
    const s = b.socketDist === "block" ? socket : k % queues.length;
    const q = queues[s] ?? [];
    if (spec.type === "sockets" || spec.type === "ldoms") {
      out.push([...q]);
      continue;
    }
    const cpus: number[] = [];
    for (let j = 0; j < per; j++) {
      // Past the socket's end (more tasks than CPUs), wrap around within it, as the plain layout wraps.
      const at = next[s] ?? 0;
      cpus.push(q[at % q.length] ?? 0);
      next[s] = at + 1;
    }
    const whole = spec.type === "cores" && !b.oneThreadPerCore ? withSiblings(cpus, b) : cpus;
    out.push([...new Set(whole)].sort((x, y) => x - y));
  }
  return out;
}

function withSiblings(cpus: readonly number[], b: BindInput): number[] {
  const jobSet = new Set(b.jobCpus);
  const out: number[] = [];
  for (const c of cpus) {
    const core = b.cores.find((k) => k.includes(c)) ?? [c];
    out.push(...core.filter((t) => jobSet.has(t)));
  }
  return out;
}

/** Slurm's --cpu-bind=verbose line for one task. */
export function bindVerboseLine(node: string, globalId: number, localId: number, pid: number, cpus: readonly number[]): string {
  return `cpu-bind=MASK - ${node}, task ${String(globalId).padStart(2)} ${String(localId).padStart(2)} [${pid}]: mask ${cpusToMask(cpus)} set\n`;
}
