/**
 * @module compat/options/apply-option
 * One handler per implemented option (support "ok" in the table): it checks the value with
 * Slurm's rules and writes it into the JobSpec or the command settings. A test asserts that
 * every "ok" option of every command has a handler here and that no handler is orphaned.
 */
import type { JobSpec } from "../../net/gen/spur/v1/types_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { parseBeginTime, parseTimeLimit, TIME_INFINITE } from "../parse-time.ts";
import { parseSizeMiB } from "../parse-size.ts";
import { expandHostlist } from "../hostlist.ts";
import type { BuildState } from "./build-state.ts";
import type { Assignment } from "./env-input.ts";
import { CLI_HANDLERS } from "./apply-settings.ts";
import * as syntax from "./spec-syntax.ts";
import { parseGpuBind, parseTresBind } from "../gpu-bind.ts";
import { CONTAINER_HANDLERS } from "./apply-container.ts";
import { NODE_INFO_HANDLERS } from "./apply-node-info.ts";
import { TUNING_HANDLERS } from "./apply-tuning.ts";
import { canonicalName } from "./table.ts";

export type Handler = (st: BuildState, a: Assignment) => Result<void>;
type Spec = Plain<JobSpec>;
type KeysOf<V> = { [K in keyof Spec]-?: Spec[K] extends V ? K : never }[keyof Spec];

const OPTION_EXIT = 255;
export const DONE: Result<void> = ok(undefined);
const valueOf = (a: Assignment): string => a.value ?? "";

const str = (field: KeysOf<string>): Handler => (st, a) => {
  st.spec[field] = valueOf(a);
  return DONE;
};

const checked = (field: KeysOf<string>, check: (text: string) => Result<string>): Handler => (st, a) => {
  const r = check(valueOf(a));
  if (!r.ok) return r;
  st.spec[field] = r.value;
  return DONE;
};

const flag = (field: KeysOf<boolean>): Handler => (st, a) => {
  st.spec[field] = !a.reset;
  return DONE;
};

const count = (field: KeysOf<number>, positive = true): Handler => (st, a) => {
  // Slurm's parse_int names the option, an alias by the option it stands for (oracle: --tasks-per-node=abc)
  const r = syntax.parseCount(valueOf(a), `--${canonicalName(a.name)}`, positive);
  if (!r.ok) return r;
  st.spec[field] = r.value;
  return DONE;
};

const memory = (field: "memPerNodeMib" | "memPerCpuMib" | "memPerGpuMib"): Handler => (st, a) => {
  const r = parseSizeMiB(valueOf(a));
  if (!r.ok) return err("BadMemory", `Invalid --${a.name} specification`, OPTION_EXIT);
  st.spec[field] = r.value;
  st.memBy.push({ name: a.name, source: a.source });
  return DONE;
};

/** --tmp=<size>[units]: TmpDisk each node must have (MiB unless a unit is given). */
const tmp: Handler = (st, a) => {
  const r = parseSizeMiB(valueOf(a));
  if (!r.ok) return err("BadTmp", `Invalid --tmp specification`, OPTION_EXIT);
  st.spec.tmpMib = r.value;
  return DONE;
};

const timeLimit = (field: "timeLimitMin" | "timeMinMin"): Handler => (st, a) => {
  const r = parseTimeLimit(valueOf(a), `--${a.name}`);
  if (!r.ok) return r;
  st.spec[field] = r.value ?? TIME_INFINITE;
  return DONE;
};

const datetime = (field: "beginTime" | "deadline"): Handler => (st, a) => {
  const r = parseBeginTime(valueOf(a), st.now, `--${a.name}`);
  if (!r.ok) return r;
  st.spec[field] = r.value;
  return DONE;
};

/** -o/-e/-i: "none" means /dev/null (Slurm); patterns are expanded later. */
const io = (field: "stdOut" | "stdErr" | "stdIn"): Handler => (st, a) => {
  st.spec[field] = valueOf(a).toLowerCase() === "none" ? "/dev/null" : valueOf(a);
  return DONE;
};

/** -w/-x: a value with "/" is a node FILE in Slurm; Spur does not read node files. */
const hostlist = (field: "nodelist" | "exclude"): Handler => (st, a) => {
  if (valueOf(a).includes("/")) return err("Unsupported", `${a.origin} with a node file is not supported by Spur`);
  // Slurm's controller rejects a list it cannot expand (x-err-sbatch-nodelist-unbalanced)
  if (!expandHostlist(valueOf(a)).ok) return err(syntax.INVALID_NODE_NAME, "Invalid node name specified");
  st.spec[field] = valueOf(a);
  return DONE;
};

function nodes(st: BuildState, a: Assignment): Result<void> {
  const r = syntax.parseNodeCount(valueOf(a));
  if (!r.ok) return r;
  st.spec.nodesMin = r.value.min;
  st.spec.nodesMax = r.value.max;
  return DONE;
}

function gres(st: BuildState, a: Assignment): Result<void> {
  const r = syntax.parseGres(valueOf(a));
  if (!r.ok) return r;
  st.spec.gresPerNode = r.value;
  return DONE;
}

function exclusive(st: BuildState, a: Assignment): Result<void> {
  const v = a.value?.toLowerCase();
  delete st.spec.exclusiveUser; // the later of --exclusive, --exclusive=user and --oversubscribe wins
  if (v === undefined || v === "exclusive") {
    st.spec.exclusive = !a.reset;
    if (!a.reset) delete st.spec.oversubscribe;
  } else if (v === "oversubscribe") {
    st.spec.exclusive = false;
    st.spec.oversubscribe = true;
  } else if (v === "user") {
    // not whole nodes: the job takes its share, and its nodes take no other user's jobs while it runs (sched/plan/user-exclusive.ts)
    st.spec.exclusive = false;
    st.spec.exclusiveUser = !a.reset;
    delete st.spec.oversubscribe;
  } else if (["mcs", "topo", "allocation"].includes(v)) {
    st.spec.exclusive = true;
    st.warnings.push(`--exclusive=${a.value} is not supported by Spur; whole nodes are allocated instead`);
  } else return err("BadExclusive", "Invalid --exclusive specification", OPTION_EXIT);
  return DONE;
}

function requeue(st: BuildState, a: Assignment): Result<void> {
  if (a.value !== undefined && a.value.toLowerCase() !== "expedite") {
    return err("BadRequeue", "Invalid --requeue specification", OPTION_EXIT);
  }
  if (a.value !== undefined) st.warnings.push("--requeue=expedite is not supported by Spur; plain --requeue is used");
  st.spec.requeue = !a.reset;
  if (!a.reset) st.spec.noRequeue = false;
  return DONE;
}

function noRequeue(st: BuildState, a: Assignment): Result<void> {
  st.spec.noRequeue = !a.reset;
  if (!a.reset) st.spec.requeue = false;
  return DONE;
}

function openMode(st: BuildState, a: Assignment): Result<void> {
  const first = valueOf(a).slice(0, 1).toLowerCase();
  if (first !== "a" && first !== "t") return err("BadOpenMode", "Invalid --open-mode specification", OPTION_EXIT);
  st.spec.openMode = first === "a" ? "append" : "truncate";
  return DONE;
}

function killOnInvalidDep(st: BuildState, a: Assignment): Result<void> {
  const v = valueOf(a).toLowerCase();
  if (v !== "yes" && v !== "no") {
    return err("BadKillOnInvalidDep", "Invalid --kill-on-invalid-dep specification", OPTION_EXIT);
  }
  // each value sets its own flag, as 22.05's job flags do (yes then no shows both: "...=Yes...=No");
  // "no" is kept apart from not given: KillOInInvalidDependent=No (differential seeds 12203, 12230)
  if (v === "yes") st.spec.killOnInvalidDep = true;
  else st.spec.noKillOnInvalidDep = true;
  return DONE;
}

/** strtoll-like: leading integer or 0 (Slurm accepts "--nice=abc" as 0). */
const leadingInt = (text: string): number => Number(/^\s*([+-]?[0-9]+)/.exec(text)?.[1] ?? 0);
const NICE_MAX = 2147483645;
const NO_VAL = 4294967294;

function nice(st: BuildState, a: Assignment): Result<void> {
  const n = a.value === undefined ? 100 : leadingInt(a.value);
  if (Math.abs(n) > NICE_MAX) return err("BadNice", `Invalid --nice value, out of range (+/- ${NICE_MAX})`, OPTION_EXIT);
  st.spec.nice = n;
  return DONE;
}

function priority(st: BuildState, a: Assignment): Result<void> {
  if (valueOf(a).toUpperCase() === "TOP") {
    st.spec.priority = NO_VAL - 1;
    return DONE;
  }
  const n = leadingInt(valueOf(a));
  if (n < 0) return err("BadPriority", "Priority must be >= 0", OPTION_EXIT);
  if (n >= NO_VAL) return err("BadPriority", `Priority must be < ${NO_VAL}`, OPTION_EXIT);
  st.spec.priority = n;
  return DONE;
}

/** --chdir: a relative path is joined to the current directory as given, not tidied (22.05: -D ../d/./sub is $PWD/../d/./sub). */
function chdir(st: BuildState, a: Assignment): Result<void> {
  const v = valueOf(a);
  st.chdir = v.startsWith("/") ? v : `${st.cwd}/${v}`;
  return DONE;
}

function umask(st: BuildState, a: Assignment): Result<void> {
  const v = valueOf(a);
  if (!/^[0-7]{1,4}$/.test(v) || Number.parseInt(v, 8) > 0o777) {
    return err("BadUmask", `Invalid ${a.origin} value: ${v}`, OPTION_EXIT);
  }
  st.spec.umask = Number.parseInt(v, 8);
  st.umaskSet = true;
  return DONE;
}

function immediate(st: BuildState, a: Assignment): Result<void> {
  const r = a.value === undefined ? ok(1) : syntax.parseCount(a.value, "immediate", false);
  if (!r.ok) return r;
  st.spec.immediate = true;
  st.settings.immediateSec = r.value;
  return DONE;
}

const exportOption: Handler = (st, a) => {
  st.exportValue = valueOf(a);
  return DONE;
};

const signal: Handler = (st, a) => {
  const r = syntax.parseSignal(valueOf(a), st.cmd !== "srun");
  if (!r.ok) return r;
  st.spec.signal = r.value;
  return DONE;
};

/** --tres-per-task: the cpu and gres/gpu parts become --cpus-per-task and --gpus-per-task, as in Slurm. */
const tresPerTask: Handler = (st, a) => {
  const r = syntax.parseTresPerTask(valueOf(a));
  if (!r.ok) return r;
  if (r.value.cpus !== undefined) st.spec.cpusPerTask = r.value.cpus;
  if (r.value.gpus !== undefined) st.spec.gpusPerTask = r.value.gpus;
  return DONE;
};

/** --switches=N[@time]: most leaf switches for the job, and how long to wait for that. */
const switches: Handler = (st, a) => {
  const r = syntax.parseSwitches(valueOf(a));
  if (!r.ok) return r;
  st.spec.reqSwitch = r.value.count;
  st.spec.wait4switchSec = r.value.waitSec;
  return DONE;
};

/** --gpu-bind: how a step's GPUs are shared out among its tasks (compat/gpu-bind.ts). */
const gpuBind: Handler = (st, a) => {
  const r = parseGpuBind(valueOf(a));
  if (!r.ok) return r;
  st.spec.gpuBind = r.value;
  return DONE;
};

/** --tres-bind=gres/gpu:TYPE: the same binding as --gpu-bind=TYPE (the only TRES Slurm binds). */
const tresBind: Handler = (st, a) => {
  const r = parseTresBind(valueOf(a));
  if (!r.ok) return r;
  st.spec.gpuBind = r.value;
  return DONE;
};

/** Values of --gres-flags (comma-separated); disable- and enforce-binding exclude each other. */
const GRES_FLAGS = new Set(["enforce-binding", "disable-binding", "one-task-per-sharing", "multiple-tasks-per-sharing", "allow-task-sharing"]);

/** --gres-flags: enforce-binding is what the scheduler acts on (gpu-sockets.ts); the others are accepted and recorded. */
const gresFlags: Handler = (st, a) => {
  const flags = valueOf(a).toLowerCase().split(",").filter(Boolean);
  const bad = flags.length === 0 || flags.some((f) => !GRES_FLAGS.has(f)) || (flags.includes("enforce-binding") && flags.includes("disable-binding"));
  // exit(-1) as Slurm 22.05 (oracle: --gres-flags=bogus exits 255)
  if (bad) return err("BadGresFlags", `Invalid --gres-flags specification`, OPTION_EXIT);
  st.spec.gresFlags = flags.join(",");
  return DONE;
};

/** --gpus-per-socket=[type:]N (it needs --sockets-per-node: checked once every option is in, build-spec.ts). */
const gpusPerSocket: Handler = (st, a) => {
  const r = syntax.checkGpus(valueOf(a));
  if (!r.ok) return r;
  st.spec.gpusPerSocket = r.value;
  return DONE;
};

/** --prefer: features tried first and dropped when no node with them is free (the controller checks the names). */
const prefer: Handler = (st, a) => {
  st.spec.prefer = valueOf(a);
  return DONE;
};

/** --bb: kept and shown, as Slurm without a burst buffer plugin keeps it (oracle 22.05: accepted, scontrol BurstBuffer=); nothing stages data. */
const burstBuffer: Handler = (st, a) => {
  st.spec.burstBuffer = valueOf(a);
  return DONE;
};

/** -s/--oversubscribe: the later of it and --exclusive wins. */
const oversubscribe: Handler = (st, a) => {
  if (a.reset) delete st.spec.oversubscribe;
  else {
    st.spec.oversubscribe = true;
    st.spec.exclusive = false;
    delete st.spec.exclusiveUser;
  }
  return DONE;
};

const contiguous: Handler = (st, a) => {
  if (a.reset) delete st.spec.contiguous;
  else st.spec.contiguous = true;
  return DONE;
};

/** --mincpus: a positive count the scheduler honours. */
const optionalCount = (field: "mincpus"): Handler => (st, a) => {
  const r = syntax.parseCount(valueOf(a), `--${a.name}`, true);
  if (!r.ok) return r;
  st.spec[field] = r.value;
  return DONE;
};

/**
 * --sockets-per-node, --cores-per-socket, --threads-per-core, --ntasks-per-socket, --ntasks-per-core:
 * counts 22.05 keeps in 16 bits (spec-syntax.ts parseCount16; a value that comes out "not set"
 * clears an earlier one), honoured by the node filter and the core choice (sched/plan/core-select.ts).
 */
const count16 = (field: "socketsPerNode" | "ntasksPerSocket" | "coresPerSocket" | "ntasksPerCore" | "threadsPerCore"): Handler => (st, a) => {
  const r = syntax.parseCount16(valueOf(a), `--${a.name}`, field === "ntasksPerSocket" || field === "ntasksPerCore");
  if (!r.ok) return r;
  if (field === "threadsPerCore") st.spec.threadsPerCore = r.value ?? 0;
  else if (r.value === undefined) delete st.spec[field];
  else st.spec[field] = r.value;
  return DONE;
};

const HINTS = new Set(["compute_bound", "memory_bound", "multithread", "nomultithread"]);

/** --hint: kept as given; settleHint judges it once every option is read. */
const hint: Handler = (st, a) => {
  st.hintGiven = valueOf(a);
  return DONE;
};

/**
 * --hint after all options, as 22.05 does (oracle): --ntasks-per-core or --threads-per-core (-B's
 * too), or srun's --cpu-bind with a binding, make it ignored, not even checked (--hint=bogus --ntasks-per-core=2 is submitted); otherwise
 * an unknown value is refused with Slurm's words, exit 1 (differential seed 1300), after the
 * other options' own errors (--hint=bogus --time=abc names --time; seed 12488). nomultithread
 * (one task per core, the core's other threads idle) is what the core choice and task binding act on.
 */
export function settleHint(st: BuildState): Result<void> {
  if (st.hintGiven === undefined) return DONE;
  // srun's --cpu-bind naming a binding does too (oracle: --cpu-bind=cores, not --cpu-bind=verbose)
  const binds = (st.settings.cpuBind ?? "").split(",").some((w) => w !== "" && !/^(v|verbose|q|quiet)$/i.test(w));
  if ((st.spec.ntasksPerCore ?? 0) > 0 || st.spec.threadsPerCore > 0 || binds) {
    delete st.spec.hint;
    return DONE;
  }
  const value = st.hintGiven.toLowerCase();
  if (!HINTS.has(value)) return err("BadHint", `unrecognized --hint argument "${st.hintGiven}", see --hint=help`);
  st.spec.hint = value;
  return DONE;
}

function partition(st: BuildState, a: Assignment): Result<void> {
  st.spec.partition = valueOf(a);
  st.partitionGiven = true;
  return DONE;
}

function jobName(st: BuildState, a: Assignment): Result<void> {
  st.spec.name = valueOf(a);
  st.nameGiven = true;
  return DONE;
}

/** Handlers by option name (or env-only setting name). */
/**
 * --get-user-env[=timeout][S|L]: a number (strtol's, so a sign or nothing at all will do) then at most a
 * mode letter (oracle 22.05: =L, =10S, =, =-5 accepted; =x, =10x refused with exit 255). The node runs
 * the login shell with its own timeout; the given one and the mode are checked only.
 */
const getUserEnv: Handler = (st, a) => {
  if (a.value !== undefined && !/^\s*[+-]?[0-9]*[SsLl]?$/.test(a.value)) return err("BadGetUserEnv", "Invalid --get-user-env specification", OPTION_EXIT);
  st.getUserEnv = true;
  return ok(undefined);
};

export const HANDLERS: Readonly<Record<string, Handler>> = {
  "get-user-env": getUserEnv,
  ...CLI_HANDLERS,
  ...CONTAINER_HANDLERS,
  ...NODE_INFO_HANDLERS,
  ...TUNING_HANDLERS,
  bb: burstBuffer,
  account: str("account"), comment: str("comment"), constraint: str("constraint"), prefer, licenses: str("licenses"),
  "mail-user": str("mailUser"), partition, qos: str("qos"), reservation: str("reservation"),
  wckey: str("wckey"), "job-name": jobName,
  dependency: checked("dependency", syntax.checkDependency), array: checked("array", syntax.checkArray),
  distribution: checked("distribution", syntax.checkDistribution), "mail-type": (st, a) => {
    const r = syntax.parseMailType(valueOf(a));
    if (!r.ok) return r;
    st.spec.mailType = syntax.addMailTypes(st.spec.mailType, r.value);
    return DONE;
  },
  gpus: checked("gpus", syntax.checkGpus), "gpus-per-node": checked("gpusPerNode", syntax.checkGpus),
  "gpus-per-task": checked("gpusPerTask", syntax.checkGpus),
  nodelist: hostlist("nodelist"), exclude: hostlist("exclude"),
  input: io("stdIn"), output: io("stdOut"), error: io("stdErr"),
  ntasks: count("ntasks"), "cpus-per-task": count("cpusPerTask"), "ntasks-per-node": count("ntasksPerNode"),
  "tasks-per-node": count("ntasksPerNode"), "cpus-per-gpu": count("cpusPerGpu"), "ntasks-per-gpu": count("ntasksPerGpu"),
  // 22.05 takes --ntasks-per-tres as --ntasks-per-gpu (oracle: the same NtasksPerTRES=, NumTasks= and refusals; differential seed 10036)
  "ntasks-per-tres": count("ntasksPerGpu"),
  "threads-per-core": count16("threadsPerCore"),
  tmp, mem: memory("memPerNodeMib"), "mem-per-cpu": memory("memPerCpuMib"), "mem-per-gpu": memory("memPerGpuMib"),
  time: timeLimit("timeLimitMin"), "time-min": timeLimit("timeMinMin"),
  begin: datetime("beginTime"), deadline: datetime("deadline"),
  hold: flag("hold"), overcommit: flag("overcommit"),
  nodes, gres, exclusive, requeue, "no-requeue": noRequeue, "open-mode": openMode,
  "kill-on-invalid-dep": killOnInvalidDep, nice, priority, chdir, umask, immediate,
  export: exportOption, signal, "tres-per-task": tresPerTask, switches, "gpu-bind": gpuBind, "tres-bind": tresBind,
  "gres-flags": gresFlags, "gpus-per-socket": gpusPerSocket, "sockets-per-node": count16("socketsPerNode"),
  hint, "ntasks-per-socket": count16("ntasksPerSocket"), "ntasks-per-core": count16("ntasksPerCore"), "cores-per-socket": count16("coresPerSocket"),
  oversubscribe, contiguous, mincpus: optionalCount("mincpus"),
};
