/**
 * @module compat/job-hostfile
 * SLURM_HOSTFILE for sbatch and salloc (pure), as Slurm 22.05 reads it on the oracle (hostfile
 * n2 n2 n1 n3): when -w is not given, the file names the job's required nodes, whatever -m says,
 * and the distribution becomes arbitrary. Slurm reads as many entries (hostfileEntries) as -n
 * asks (else -N's maximum, else its minimum, else all of them), refuses a file with fewer
 * ("Too few NodeNames in Slurm Hostfile"), and without -n runs one task per distinct node read
 * (NumTasks=3, SLURM_NTASKS=3; -N2 reads n2 n2: one task). The job's CPUs are then laid out
 * over those nodes in node order, as for -w (sbatch -n4: 2 CPUs on n1, 1 on n2 and n3); the
 * file's order and repeats reach the job in SLURM_ARBITRARY_NODELIST (`arbitraryNodelist`),
 * over which its SLURM_TASKS_PER_NODE counts tasks (compat/job-env-rows): a batch script whose
 * task count is not the list's length gets none, salloc refuses it (`sallocArbitraryCheck`).
 * srun reads the same entries (`hostfileRead`) and gives task i the i-th host.
 */
import { compressHostlist, naturalCompare } from "./hostlist.ts";
import { isArbitrary } from "./task-layout.ts";

/** The request's fields the file reading depends on (0 / "" = not given). */
export interface HostfileAsk {
  ntasks: number;
  ntasksPerNode: number;
  nodesMin: number;
  nodesMax: number;
  nodelist: string;
}

export type HostfileOutcome =
  | { kind: "none" }
  | { kind: "error"; lines: string[] }
  /** Required nodes in node order, the task count to set (0 = leave it), the distribution. */
  | { kind: "use"; nodelist: string; ntasks: number; distribution: "arbitrary"; hosts: string[] };

const FAILURE = "Failure getting NodeNames from hostfile";

/**
 * The file's entries as Slurm 22.05 counts them against -n/-N (oracle): a line holds one entry
 * per comma ("n1,n2 n3" is two: "n1" and "n2 n3"; "n[1-2]" is one), blank lines and lines
 * starting with # count none. The entries read are then a host list like any other.
 */
export function hostfileEntries(text: string): string[] {
  return text.split("\n").flatMap((line) => {
    const body = line.trim();
    if (body === "" || body.startsWith("#")) return [];
    return body.split(",").map((e) => e.trim()).filter((e) => e !== "");
  });
}

export type HostfileHosts = { kind: "none" } | { kind: "error"; lines: string[] } | { kind: "hosts"; hosts: string[] };

/**
 * The hosts the client reads (in the file's order, repeats kept: srun gives task i host i), or
 * Slurm's error lines. `text` is the file's content, undefined when it could not be read
 * (`why`: the system's reason). `expand` turns one hostlist expression into names.
 */
export function hostfileRead(
  ask: HostfileAsk, path: string | undefined, text: string | undefined, expand: (expr: string) => string[] | undefined, why = "No such file or directory",
): HostfileHosts {
  if (path === undefined || path === "" || ask.nodelist !== "") return { kind: "none" };
  // a name without "/" is read from the current directory, and named so ("./hosts")
  const shown = path.includes("/") ? path : `./${path}`;
  if (text === undefined) return { kind: "error", lines: [`slurm_allocate_resources error opening file ${shown}, ${why}`, FAILURE] };
  const entries = hostfileEntries(text);
  if (entries.length === 0) return { kind: "error", lines: ["Hostlist is empty!", FAILURE] };
  const count = ask.ntasks > 0 ? ask.ntasks : ask.nodesMax > 0 ? ask.nodesMax : ask.nodesMin > 0 ? ask.nodesMin : entries.length;
  if (count > entries.length) return { kind: "error", lines: ["Too few NodeNames in Slurm Hostfile", FAILURE] };
  const hosts: string[] = [];
  for (const expr of entries.slice(0, count).flatMap((e) => e.split(/\s+/))) {
    const names = expand(expr);
    if (names === undefined) return { kind: "error", lines: [FAILURE] };
    hosts.push(...names);
  }
  return { kind: "hosts", hosts };
}

/** sbatch/salloc: the job requires the nodes read, in node order (see the module comment). */
export function hostfileRequest(
  ask: HostfileAsk, path: string | undefined, text: string | undefined, expand: (expr: string) => string[] | undefined, why = "No such file or directory",
): HostfileOutcome {
  const read = hostfileRead(ask, path, text, expand, why);
  if (read.kind !== "hosts") return read;
  const nodes = [...new Set(read.hosts)].sort(naturalCompare);
  const ntasks = ask.ntasks > 0 || ask.ntasksPerNode > 0 ? 0 : nodes.length;
  return { kind: "use", nodelist: nodes.join(","), ntasks, distribution: "arbitrary", hosts: read.hosts };
}

/**
 * -m arbitrary: the list the tasks are laid over, one entry per task, as sbatch and salloc pass
 * it on in SLURM_ARBITRARY_NODELIST: the hosts read from SLURM_HOSTFILE (Slurm's own printing,
 * "n[2,2,1,3]"), else -w as given; "" when the distribution is not arbitrary or there is no list.
 */
export function arbitraryNodelist(distribution: string, nodelist: string, hosts?: readonly string[]): string {
  if (!isArbitrary(distribution)) return "";
  return hosts !== undefined ? compressHostlist([...hosts]) : nodelist;
}

/**
 * salloc with -m arbitrary lays its tasks over that list: the task count (-n, else what the
 * allocated CPUs hold) must be the list's length, else Slurm refuses after the grant and gives
 * the allocation back. Returns the error text (after "salloc: error: "), "" when fine.
 */
export function sallocArbitraryCheck(ntasks: number, listed: number): string {
  if (ntasks === listed) return "";
  return `Asked for ${ntasks} tasks have ${listed} in the nodelist.  Check your nodelist, or set the -n option to be ${listed}`;
}

/**
 * salloc's task count for that check: -n, else --ntasks-per-node on every node, else as many
 * tasks as the allocated CPUs hold (`cpus` in all, `cpusPerTask` each).
 */
export function sallocTaskCount(ntasks: number, ntasksPerNode: number, nodeCount: number, cpus: number, cpusPerTask: number): number {
  if (ntasks > 0) return ntasks;
  if (ntasksPerNode > 0) return ntasksPerNode * nodeCount;
  return Math.floor(cpus / Math.max(1, cpusPerTask));
}

/** The request's fields for `hostfileRequest` (0 / "" where not given). */
export const hostfileAskOf = (spec: HostfileAsk): HostfileAsk => ({
  ntasks: spec.ntasks, ntasksPerNode: spec.ntasksPerNode, nodesMin: spec.nodesMin, nodesMax: spec.nodesMax, nodelist: spec.nodelist,
});

/** Writes a "use" outcome into the request: its nodes, its task count (when set), the distribution. */
export function applyHostfile<S extends HostfileAsk & { distribution: string }>(spec: S, outcome: HostfileOutcome): S {
  if (outcome.kind !== "use") return spec;
  return { ...spec, nodelist: outcome.nodelist, distribution: outcome.distribution, ...(outcome.ntasks > 0 ? { ntasks: outcome.ntasks } : {}) };
}
