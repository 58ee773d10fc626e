/**
 * @module devices/cpu-topology
 * How a node's CPUs are numbered, and the conversions GPU locality needs (pure).
 * Spur, like Slurm, works in *logical* numbering: cores are numbered socket by
 * socket (core k of a node with C cores per socket is on socket floor(k / C)),
 * and logical CPU k*T + t is thread t of core k (T threads per core). gres.conf
 * `Cores=` lists core ids in that numbering, so with SMT core k is logical CPUs
 * {k*T .. k*T+T-1}. The OS numbers CPUs its own way: most x86 hosts put the
 * second thread of core k at OS CPU k + (all cores) ("spread"), others put a
 * core's threads next to each other ("adjacent"); discovery (local_cpulist,
 * nvidia-smi CPU affinity) speaks OS numbers. `CpuTopology.coreCpus` holds the
 * OS CPUs of every logical core, read from /sys/devices/system/cpu/cpuN/topology
 * or derived from declared Sockets/CoresPerSocket/ThreadsPerCore.
 */
import { assert } from "../lib/assert.ts";

export interface CpuTopology {
  sockets: number;
  coresPerSocket: number;
  threadsPerCore: number;
  /** OS CPU ids of logical core k (index k), thread order. */
  coreCpus: number[][];
}

/** How the OS numbers the threads of a core when only the counts are known. */
export type ThreadNumbering = "spread" | "adjacent";

/** One OS CPU as /sys/devices/system/cpu/cpuN/topology reports it. */
export interface OsCpu {
  cpu: number;
  /** physical_package_id */
  packageId: number;
  /** core_id (unique within a package only, and not necessarily dense) */
  coreId: number;
}

/** Topology from declared counts, with the OS thread numbering assumed. */
export function declaredTopology(sockets: number, coresPerSocket: number, threadsPerCore: number, numbering: ThreadNumbering): CpuTopology {
  assert(sockets >= 1 && coresPerSocket >= 1 && threadsPerCore >= 1, "declared counts are positive");
  const cores = sockets * coresPerSocket;
  const coreCpus = Array.from({ length: cores }, (_, k) =>
    Array.from({ length: threadsPerCore }, (_, t) => (numbering === "spread" ? k + t * cores : k * threadsPerCore + t)),
  );
  return { sockets, coresPerSocket, threadsPerCore, coreCpus };
}

/**
 * Topology from the OS's per-CPU records: packages in ascending id order are sockets
 * 0..S-1, cores in ascending core_id order inside a package, threads by OS id.
 * Undefined when the packages differ in core count or the cores in thread count
 * (then the logical numbering is not a plain S x C x T grid).
 */
export function topologyFromOs(cpus: readonly OsCpu[]): CpuTopology | undefined {
  if (cpus.length === 0) return undefined;
  const packages = new Map<number, Map<number, number[]>>();
  for (const c of cpus) {
    const cores = packages.get(c.packageId) ?? new Map<number, number[]>();
    packages.set(c.packageId, cores);
    cores.set(c.coreId, [...(cores.get(c.coreId) ?? []), c.cpu]);
  }
  const coreCpus: number[][] = [];
  const sizes = new Set<number>();
  const threads = new Set<number>();
  for (const pkg of [...packages.keys()].sort((a, b) => a - b)) {
    const cores = packages.get(pkg)!;
    sizes.add(cores.size);
    for (const core of [...cores.keys()].sort((a, b) => a - b)) {
      const ids = cores.get(core)!.sort((a, b) => a - b);
      threads.add(ids.length);
      coreCpus.push(ids);
    }
  }
  if (sizes.size !== 1 || threads.size !== 1) return undefined;
  return { sockets: packages.size, coresPerSocket: [...sizes][0]!, threadsPerCore: [...threads][0]!, coreCpus };
}

/** gres.conf Cores= core ids → logical CPU ids (each core's threads). Ids beyond the node are dropped. */
export function coresToLogicalCpus(coreIds: readonly number[], topo: Pick<CpuTopology, "sockets" | "coresPerSocket" | "threadsPerCore">): number[] {
  const cores = topo.sockets * topo.coresPerSocket;
  const out: number[] = [];
  for (const k of [...new Set(coreIds)].sort((a, b) => a - b)) {
    if (k < 0 || k >= cores) continue;
    for (let t = 0; t < topo.threadsPerCore; t++) out.push(k * topo.threadsPerCore + t);
  }
  return out;
}

/** OS CPU ids → logical CPU ids; OS ids the topology does not know are dropped. */
export function osToLogicalCpus(osCpus: readonly number[], topo: CpuTopology): number[] {
  const logical = new Map<number, number>();
  topo.coreCpus.forEach((ids, k) => ids.forEach((id, t) => logical.set(id, k * topo.threadsPerCore + t)));
  const out = osCpus.map((c) => logical.get(c)).filter((c): c is number => c !== undefined);
  return [...new Set(out)].sort((a, b) => a - b);
}

/** Logical CPU ids → the OS CPUs they are on (the inverse of osToLogicalCpus). */
export function logicalToOsCpus(logical: readonly number[], topo: CpuTopology): number[] {
  const out: number[] = [];
  for (const c of logical) {
    const id = topo.coreCpus[Math.floor(c / topo.threadsPerCore)]?.[c % topo.threadsPerCore];
    if (id !== undefined) out.push(id);
  }
  return [...new Set(out)].sort((a, b) => a - b);
}

/**
 * The topology to map a node's CPU lists with: the host's own when it has the
 * node's configured shape (a real node), else the configured counts with the
 * usual x86 numbering (local clusters run many configured nodes on one host).
 */
export function nodeCpuTopology(
  configured: { sockets: number; coresPerSocket: number; threadsPerCore: number }, osCpus: readonly OsCpu[],
): CpuTopology {
  const host = hostCpuTopology(configured, osCpus);
  if (host !== undefined) return host;
  return declaredTopology(Math.max(1, configured.sockets), Math.max(1, configured.coresPerSocket), Math.max(1, configured.threadsPerCore), "spread");
}

/** The host's own topology when it has the node's configured shape (a real node), else undefined. */
export function hostCpuTopology(
  configured: { sockets: number; coresPerSocket: number; threadsPerCore: number }, osCpus: readonly OsCpu[],
): CpuTopology | undefined {
  const host = topologyFromOs(osCpus);
  const same = host !== undefined && host.sockets === Math.max(1, configured.sockets)
    && host.coresPerSocket === Math.max(1, configured.coresPerSocket) && host.threadsPerCore === Math.max(1, configured.threadsPerCore);
  return same ? host : undefined;
}
