/**
 * @module compat/options/apply-node-info
 * -B/--extra-node-info=S[:C[:T]] and --core-spec/--thread-spec, as Slurm 22.05 reads them
 * (checked on the oracle). -B is shorthand for --sockets-per-node, --cores-per-socket and
 * --threads-per-core (the same node filter and ReqB:S:C:T=/Socks/Node= record), and, unlike
 * them, it also asks for one task per CPU it names when no task count is given: `-B 1:2:1`
 * is NumTasks=2 and SLURM_NTASKS=2, times -N's minimum (`-B 1:2:1 -N 2` is 4 tasks).
 * --core-spec/--thread-spec need AllowSpecResourcesUsage=yes in slurm.conf; Spur has no such
 * setting, so it answers as Slurm does at that setting's default (No): an error line, and the
 * option is ignored (the job is still submitted).
 * --use-min-nodes (a node range takes its minimum when that holds the job: sched/plan/fit-node.ts),
 * --wait-all-nodes and --delay-boot concern nodes too: Spur's nodes are up whenever they are
 * allocated and never rebooted for features, so the waits are what Slurm's are on such nodes
 * (none); --delay-boot is recorded (DelayBoot=).
 */
import { err, ok, type Result } from "../../lib/result.ts";
import type { BuildState } from "./build-state.ts";
import type { Assignment } from "./env-input.ts";
import { parseCount } from "./spec-syntax.ts";
import { checkWaitAllNodes } from "./ignored-checks.ts";
import { parseDurationSec } from "../parse-time.ts";
import { FATAL } from "./messages.ts";
import { expandHostlist } from "../hostlist.ts";

type Handler = (st: BuildState, a: Assignment) => Result<void>;

/** One part of S[:C[:T]]: a whole number, or "*" (= not set); undefined when neither. */
function part(text: string): number | null | undefined {
  if (text === "*") return null;
  return /^[0-9]+$/.test(text) ? Number(text) : undefined;
}

const ORDINALS = ["first", "second", "third"] as const;

export interface ExtraNodeInfo {
  sockets: number | null;
  cores: number | null;
  threads: number | null;
}

/**
 * S[:C[:T]] (oracle 22.05): "*" leaves a part unset, parts after the third are ignored
 * (`-B 1:2:3:4` is accepted), an empty value changes nothing, and anything else is refused
 * with exit 1 naming the part ("Invalid numeric value "x" for second arg of -B.").
 */
export function parseExtraNodeInfo(text: string): Result<ExtraNodeInfo | undefined> {
  if (text === "") return ok(undefined);
  const parts = text.split(":").slice(0, 3);
  const values: (number | null)[] = [];
  for (const [i, p] of parts.entries()) {
    const v = part(p);
    if (v === undefined) return err("BadNumber", `Invalid numeric value "${p}" for ${ORDINALS[i]} arg of -B.`, 1);
    values.push(v);
  }
  return ok({ sockets: values[0] ?? null, cores: values[1] ?? null, threads: values[2] ?? null });
}

const extraNodeInfo: Handler = (st, a) => {
  const r = parseExtraNodeInfo(a.value ?? "");
  if (!r.ok) return r;
  if (r.value === undefined) return ok(undefined);
  const { sockets, cores, threads } = r.value;
  if (sockets !== null) st.spec.socketsPerNode = sockets;
  if (cores !== null) st.spec.coresPerSocket = cores;
  if (threads !== null) st.spec.threadsPerCore = threads;
  st.extraNodeTasks = (sockets ?? 1) * (cores ?? 1) * (threads ?? 1);
  return ok(undefined);
};

/** Largest per-node CPU product taken as a task count: 22.05 keeps sockets/cores/threads in 16 bits. */
const NODE_CPUS_MAX = 0xfffd;

/**
 * After every option is in, when neither -n nor --ntasks-per-node gave a task count (oracle 22.05:
 * `-B 1:2:1 -n 3` keeps 3 tasks, `-B 1:2:1 --ntasks-per-node=1` keeps NumTasks=1): with a fixed -N n,
 * n times the sockets x cores x threads asked for, by -B or by --sockets-per-node, --cores-per-socket
 * and --threads-per-core (`--threads-per-core=2 -N1` is NumTasks=2 NumCPUs=2, `-N2` 4); with a -N
 * range none of them count (`-B 1:2:1 -N1-3` is NumTasks=1); without -N only -B's own product does
 * (`-B 1:2:1` is NumTasks=2, `--threads-per-core=2` alone 1); without -N, a -w list counts as a fixed
 * -N of its distinct nodes (`-w n[1-2] --threads-per-core=2` is NumTasks=4, `-w n[1-2] -B 1:2:2` 8;
 * differential seed 13718). Seen for sbatch; srun and salloc (srun takes -N from its allocation)
 * keep -B's product times -N's minimum.
 */
export function settleExtraNodeTasks(st: BuildState): void {
  const spec = st.spec;
  if (spec.ntasks > 0 || spec.ntasksPerNode > 0) return;
  if (st.cmd !== "sbatch") {
    if (st.extraNodeTasks !== undefined && st.extraNodeTasks > 0) spec.ntasks = st.extraNodeTasks * Math.max(1, spec.nodesMin);
    return;
  }
  const nodesGiven = spec.nodesMin > 0 || spec.nodesMax > 0;
  const listed = nodesGiven || spec.nodelist === "" ? 0 : listedNodes(spec.nodelist);
  if (!nodesGiven && listed === 0) {
    if (st.extraNodeTasks !== undefined && st.extraNodeTasks > 0) spec.ntasks = st.extraNodeTasks;
    return;
  }
  if (spec.nodesMax > spec.nodesMin) return;
  const perNode = Math.max(1, spec.socketsPerNode ?? 0) * Math.max(1, spec.coresPerSocket ?? 0) * Math.max(1, spec.threadsPerCore);
  if (perNode > 1 && perNode <= NODE_CPUS_MAX) spec.ntasks = perNode * Math.max(1, nodesGiven ? spec.nodesMin : listed);
}

/** Distinct nodes of a -w list (0 when it does not read as a hostlist). */
function listedNodes(nodelist: string): number {
  const hosts = expandHostlist(nodelist);
  return hosts.ok ? new Set(hosts.value).size : 0;
}

const notAllowed = (shown: string): string => `error: Ignoring ${shown} since it's not allowed by configuration (AllowSpecResourcesUsage = No)`;
// the oracle names --core-spec by its short form, --thread-spec by its long one
const SPEC_SHOWN: Readonly<Record<string, string>> = { "core-spec": "-S", "thread-spec": "--thread-spec" };

/**
 * Slurm's words at AllowSpecResourcesUsage=No (its default), the option named as on the command line.
 * The two options are one setting (cores or threads set aside), so the later one replaces the
 * earlier's line (oracle 22.05: SBATCH_CORE_SPEC=1 with --thread-spec=2 prints only --thread-spec's).
 */
const specNotAllowed = (zeroAllowed: boolean): Handler => (st, a) => {
  // the count is checked first (oracle: -S abc is "Invalid numeric value "abc" for --core-spec.", exit 1;
  // -S 0 is a count, --thread-spec=0 is refused: differential seed 8078)
  const n = parseCount(a.value ?? "", `--${a.name}`, !zeroAllowed);
  if (!n.ok) return n;
  const earlier = Object.values(SPEC_SHOWN).map(notAllowed);
  st.warnings = st.warnings.filter((w) => !earlier.includes(w));
  st.warnings.push(notAllowed(SPEC_SHOWN[a.name] ?? a.name));
  return ok(undefined);
};

/**
 * --core-spec with --thread-spec (oracle 22.05, sbatch and srun; current Slurm has the same words):
 * both on the command line or in #SBATCH lines is fatal, both from input variables too unless the
 * command line gives either; one from a variable and the other as an option is not (the option wins).
 */
export function checkSpecPair(assignments: readonly Assignment[]): Result<void> {
  const given = (env: boolean) => new Set(assignments.filter((a) => a.name in SPEC_SHOWN && !a.reset && (a.source === "env") === env).map((a) => a.name));
  const options = given(false);
  if (options.size > 1) return err(FATAL, "-S/--core-spec and --thred-spec options are mutually exclusive", 1);
  if (options.size === 0 && given(true).size > 1) {
    return err(FATAL, "Both --core-spec and --thread-spec set using environment variables. Those options are mutually exclusive.", 1);
  }
  return ok(undefined);
}

const useMinNodes: Handler = (st, a) => {
  if (a.reset) delete st.spec.useMinNodes;
  else st.spec.useMinNodes = true;
  return ok(undefined);
};

/** --delay-boot=<time> (oracle 22.05: 5 is DelayBoot=00:05:00, 1:30 is 00:01:30, 1-0 is 1-00:00:00; "bogus" exits 255). */
const delayBoot: Handler = (st, a) => {
  const sec = parseDurationSec(a.value ?? "");
  if (sec === undefined) return err("BadDelayBoot", "Invalid --delay-boot specification", 255);
  st.spec.delayBootSec = sec;
  return ok(undefined);
};

export const NODE_INFO_HANDLERS: Readonly<Record<string, Handler>> = {
  "use-min-nodes": useMinNodes,
  "wait-all-nodes": (_st, a) => checkWaitAllNodes(a.value ?? ""),
  "delay-boot": delayBoot,
  "extra-node-info": extraNodeInfo,
  "core-spec": specNotAllowed(true),
  "thread-spec": specNotAllowed(false),
};
