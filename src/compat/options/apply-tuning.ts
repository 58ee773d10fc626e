/**
 * @module compat/options/apply-tuning
 * Options that tune how a job is measured and run rather than what it gets: --acctg-freq,
 * --profile, --cpu-freq, --gpu-freq, --mem-bind, --network, --spread-job, --no-kill. Slurm 22.05 checks
 * each value in sbatch/srun/salloc, exports it to the job's environment (SLURM_ACCTG_FREQ,
 * SLURM_PROFILE, SLURM_CPU_FREQ_REQ, SLURM_GPU_FREQ, SLURM_MEM_BIND*) and records some of them
 * (scontrol CPU_*_freq=, TresFreq=, Network=, SpreadJob=). Every value, message and exit code
 * here was seen on the oracle. What each does on a node: see the handlers.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import type { BuildState } from "./build-state.ts";
import type { Assignment } from "./env-input.ts";
import { checkMemBind } from "./ignored-checks.ts";

type Handler = (st: BuildState, a: Assignment) => Result<void>;

/** Slurm's exit(-1) for a bad option value. */
const OPTION_EXIT = 255;

const setEnv = (st: BuildState, name: string, value: string): void => {
  (st.optionEnv ??= {})[name] = value;
};

const ACCTG_TYPES = new Set(["task", "energy", "network", "filesystem"]);

/** --acctg-freq=N or TYPE=N[,...]: N seconds >= 0 (oracle: "" is accepted and exported empty). */
export function checkAcctgFreq(text: string): Result<void> {
  if (text === "") return ok(undefined);
  for (const item of text.split(",")) {
    const eq = item.indexOf("=");
    const type = eq < 0 ? "task" : item.slice(0, eq);
    const seconds = eq < 0 ? item : item.slice(eq + 1);
    if (!ACCTG_TYPES.has(type) || !/^[0-9]+$/.test(seconds)) {
      return err("BadAcctgFreq", `Invalid --acctg-freq specification: ${text}`, OPTION_EXIT);
    }
  }
  return ok(undefined);
}

const PROFILE_TYPES = ["Energy", "Lustre", "Network", "Task"] as const;

/**
 * --profile={all|none|TYPE[,TYPE...]} as SLURM_PROFILE writes it (oracle): the types capitalised in
 * a fixed order (task,energy is "Energy,Task"), all is every type, none anywhere is "None".
 */
export function normaliseProfile(text: string): Result<string> {
  const words = text.split(",").map((w) => w.toLowerCase());
  const bad = words.some((w) => w !== "all" && w !== "none" && !PROFILE_TYPES.some((t) => t.toLowerCase() === w));
  if (text === "" || bad) return err("BadProfile", `invalid --profile=${text} option`, OPTION_EXIT);
  if (words.includes("none")) return ok("None");
  const all = words.includes("all");
  return ok(PROFILE_TYPES.filter((t) => all || words.includes(t.toLowerCase())).join(","));
}

/** Frequency words and the governors a default slurm.conf allows (CpuFreqGovernors=OnDemand,Performance,UserSpace). */
const FREQ_WORDS: Readonly<Record<string, string>> = { low: "Low", medium: "Medium", high: "High", highm1: "Highm1" };
const GOVERNORS_ALLOWED: Readonly<Record<string, string>> = { ondemand: "OnDemand", performance: "Performance", userspace: "UserSpace" };
const GOVERNORS_OTHER = new Set(["conservative", "powersave", "schedutil"]);

export interface CpuFreq {
  min?: string;
  max?: string;
  governor?: string;
}

const freqWord = (text: string): string | undefined => (/^[0-9]+$/.test(text) ? text : FREQ_WORDS[text.toLowerCase()]);

/**
 * --cpu-freq=p1[-p2][:gov] or a governor alone (oracle 22.05): words capitalised, numbers (kHz)
 * kept; a governor after a single frequency is refused ("illegal without max"), as is a governor
 * outside the default CpuFreqGovernors. Each refusal is Slurm's line plus "Invalid --cpu-freq argument".
 */
export function parseCpuFreq(text: string): Result<CpuFreq> {
  const invalid = (line: string): Result<CpuFreq> => err("BadCpuFreq", `${line}\nInvalid --cpu-freq argument`, OPTION_EXIT);
  const governor = (word: string): Result<string> => {
    const g = GOVERNORS_ALLOWED[word.toLowerCase()];
    if (g !== undefined) return ok(g);
    if (GOVERNORS_OTHER.has(word.toLowerCase())) return err("BadCpuFreq", `governor of ${word} is not allowed in slurm.conf\nInvalid --cpu-freq argument`, OPTION_EXIT);
    return err("BadCpuFreq", `unrecognized --cpu-freq argument "${word}"\nInvalid --cpu-freq argument`, OPTION_EXIT);
  };
  const colon = text.indexOf(":");
  const range = colon < 0 ? text : text.slice(0, colon);
  const dash = range.indexOf("-");
  if (colon < 0 && dash < 0 && freqWord(range) === undefined) {
    const g = governor(range);
    return g.ok ? ok({ governor: g.value }) : g;
  }
  const lowText = dash < 0 ? undefined : range.slice(0, dash);
  const highText = dash < 0 ? range : range.slice(dash + 1);
  const low = lowText === undefined ? undefined : freqWord(lowText);
  const high = freqWord(highText);
  if (lowText !== undefined && low === undefined) return invalid(`unrecognized --cpu-freq argument "${lowText}"`);
  if (high === undefined) return invalid(`unrecognized --cpu-freq argument "${highText}"`);
  const out: CpuFreq = { max: high };
  if (low !== undefined) out.min = low;
  if (colon < 0) return ok(out);
  const govText = text.slice(colon + 1);
  if (low === undefined) return invalid(`gov on cpu-frec (${govText}) illegal without max`);
  const g = governor(govText);
  return g.ok ? ok({ ...out, governor: g.value }) : g;
}

/** SLURM_CPU_FREQ_REQ's form: "Low-High:Performance", "2400000", "Performance". */
export const cpuFreqText = (f: CpuFreq): string =>
  `${f.min === undefined ? "" : `${f.min}-`}${f.max ?? ""}${f.max !== undefined && f.governor !== undefined ? ":" : ""}${f.governor ?? ""}`;

const GPU_FREQ_WORD = /^(low|medium|high|highm1|[0-9]+)$/;

/** --gpu-freq=[[type=]value][,...][,verbose] (oracle: words are lower case only, "HIGH" is refused). */
export function checkGpuFreq(text: string): Result<void> {
  const items = text.split(",");
  const good = text !== "" && items.every((item) => {
    if (item === "verbose") return true;
    const eq = item.indexOf("=");
    const type = eq < 0 ? "graphics" : item.slice(0, eq);
    return (type === "memory" || type === "graphics") && GPU_FREQ_WORD.test(item.slice(eq + 1));
  });
  return good ? ok(undefined) : err("BadGpuFreq", `Invalid --gpu-freq argument: gpu:${text}`, OPTION_EXIT);
}

interface MemBind {
  verbose: boolean;
  prefer: boolean;
  /** local, rank, none, sort, nosort, map_mem, mask_mem, or "" */
  type: string;
  /** map_mem/mask_mem's list (masks in hex without 0x) */
  list: string;
}

function readMemBind(text: string): MemBind {
  const out: MemBind = { verbose: false, prefer: false, type: "", list: "" };
  const words = text.split(/[,;]/);
  for (let i = 0; i < words.length; i++) {
    const w = (words[i] ?? "").toLowerCase();
    if (w === "v" || w === "verbose") out.verbose = true;
    else if (w === "p" || w === "prefer") out.prefer = true;
    else if (w === "no" || w === "none") out.type = "none";
    else if (["rank", "local", "sort", "nosort"].includes(w)) out.type = w;
    else if (/^(map_mem|mask_mem)[:=]/.test(w)) {
      const mask = w.startsWith("mask_mem");
      const list = [w.slice(w.search(/[:=]/) + 1)];
      while (i + 1 < words.length && /^(0x[0-9a-f]+|[0-9]+)(\*[0-9]+)?$/i.test(words[i + 1] ?? "")) list.push((words[++i] ?? "").toLowerCase());
      out.type = mask ? "mask_mem" : "map_mem";
      out.list = (mask ? list.map((e) => e.replace(/^0x/, "")) : list).join(",");
    }
  }
  return out;
}

const typeText = (m: MemBind): string => (m.list === "" ? m.type : `${m.type}:${m.list}`);

/**
 * --mem-bind as sbatch and salloc export it (oracle): SLURM_MEM_BIND is "verbose," and "prefer,"
 * then the type (local, rank, none, sort, map_mem:LIST, mask_mem:LIST); nosort alone exports
 * nothing. SLURM_MEM_BIND_VERBOSE is "verbose" or "quiet".
 */
export function memBindEnv(text: string): Record<string, string> {
  const m = readMemBind(text);
  if (m.type === "nosort") return {};
  const out: Record<string, string> = {
    SLURM_MEM_BIND: [m.verbose ? "verbose" : "", m.prefer ? "prefer" : "", typeText(m)].filter(Boolean).join(","),
    SLURM_MEM_BIND_VERBOSE: m.verbose ? "verbose" : "quiet",
  };
  if (m.type === "sort") out.SLURM_MEM_BIND_SORT = "sort";
  return out;
}

/**
 * --mem-bind as srun gives it to its tasks (oracle): SLURM_MEM_BIND always starts with "quiet" or
 * "verbose"; _TYPE is the type ("map_mem:" with its colon, "" for sort), _LIST the list, _PREFER
 * and _SORT only when asked.
 */
export function memBindTaskEnv(text: string): Record<string, string> {
  const m = readMemBind(text);
  if (m.type === "nosort") return {};
  const verbose = m.verbose ? "verbose" : "quiet";
  const type = m.type === "sort" ? "" : m.list === "" ? m.type : `${m.type}:`;
  const out: Record<string, string> = {
    SLURM_MEM_BIND: [verbose, m.prefer ? "prefer" : "", m.type === "sort" ? "" : typeText(m)].filter(Boolean).join(","),
    SLURM_MEM_BIND_LIST: m.list, SLURM_MEM_BIND_TYPE: type, SLURM_MEM_BIND_VERBOSE: verbose,
  };
  if (m.prefer) out.SLURM_MEM_BIND_PREFER = "prefer";
  if (m.type === "sort") out.SLURM_MEM_BIND_SORT = "sort";
  return out;
}

/** The variables these options add to a job's or a step's environment (apply-tuning's, by name). */
export const TUNING_ENV = /^SLURM_(ACCTG_FREQ|PROFILE|CPU_FREQ_REQ|GPU_FREQ|NETWORK|MEM_BIND(_[A-Z]+)?)$/;

/** The tuning variables of an environment (spec.env): what salloc's command and srun's tasks get besides their own. */
export const tuningEnvOf = (env: Readonly<Record<string, string>>): Record<string, string> =>
  Object.fromEntries(Object.entries(env).filter(([k]) => TUNING_ENV.test(k)));

/** --acctg-freq: exported for the job; Spur's agent keeps its own sampling period (sstat samples on request). */
const acctgFreq: Handler = (st, a) => {
  const r = checkAcctgFreq(a.value ?? "");
  if (!r.ok) return r;
  if (st.cmd !== "srun") setEnv(st, "SLURM_ACCTG_FREQ", a.value ?? ""); // srun sends it to the nodes, not to its tasks (oracle)
  if (a.value) st.spec.acctgFreq = a.value;
  else delete st.spec.acctgFreq;
  return ok(undefined);
};

/** --profile: exported; Slurm without an AcctGatherProfileType plugin (its default) collects nothing either. */
const profile: Handler = (st, a) => {
  const r = normaliseProfile(a.value ?? "");
  if (!r.ok) return r;
  if (st.cmd !== "srun") setEnv(st, "SLURM_PROFILE", r.value);
  return ok(undefined);
};

/** --cpu-freq: exported and recorded; frequencies are not set on the node (as Slurm without a cpufreq driver). */
const cpuFreq: Handler = (st, a) => {
  const r = parseCpuFreq(a.value ?? "");
  if (!r.ok) return r;
  const text = cpuFreqText(r.value);
  st.spec.cpuFreq = text;
  setEnv(st, "SLURM_CPU_FREQ_REQ", text);
  return ok(undefined);
};

/** --gpu-freq: exported and recorded (TresFreq=gpu:...); GPU clocks are not changed (as Slurm without a GPU plugin). */
const gpuFreq: Handler = (st, a) => {
  const r = checkGpuFreq(a.value ?? "");
  if (!r.ok) return r;
  st.spec.tresFreq = `gpu:${a.value ?? ""}`;
  if (st.cmd !== "srun") setEnv(st, "SLURM_GPU_FREQ", a.value ?? "");
  return ok(undefined);
};

/** --mem-bind: exported as Slurm exports it; Spur does not bind the tasks' memory, which the warning says. */
const memBind: Handler = (st, a) => {
  const r = checkMemBind(a.value ?? "");
  if (!r.ok) return r;
  const env = st.cmd === "srun" ? memBindTaskEnv(a.value ?? "") : memBindEnv(a.value ?? "");
  for (const [k, v] of Object.entries(env)) setEnv(st, k, v);
  // an srun inside a job reads the job's SLURM_MEM_BIND: the submission warned already
  if (st.cmd === "srun" && a.source === "env") return ok(undefined);
  const text = "--mem-bind: Spur does not bind tasks' memory to NUMA nodes (SLURM_MEM_BIND is set)";
  if (!st.warnings.includes(text)) st.warnings.push(text);
  return ok(undefined);
};

/** --network: recorded (Network=), and salloc exports it (sbatch does not: oracle); Slurm's switch/network plugins are for Cray/IBM systems only. */
const network: Handler = (st, a) => {
  st.spec.network = a.value ?? "";
  if (st.cmd === "salloc") setEnv(st, "SLURM_NETWORK", a.value ?? "");
  return ok(undefined);
};

/** --spread-job: recorded (SpreadJob=Yes) and honoured by placement (sched/plan). */
const spreadJob: Handler = (st, a) => {
  if (a.reset) delete st.spec.spreadJob;
  else st.spec.spreadJob = true;
  return ok(undefined);
};

/**
 * -k/--no-kill[=off]: the job survives a failed node other than its batch host (sched/model/
 * node-fail-no-kill.ts). Slurm 22.05 takes no value, an empty one or "off" (any case); anything
 * else, SBATCH_NO_KILL=1 or =yes too, is refused (oracle). Nothing of it shows in scontrol.
 */
const noKill: Handler = (st, a) => {
  const v = (a.value ?? "").toLowerCase();
  if (v !== "" && v !== "off") return err("BadNoKill", "Invalid --no-kill specification", OPTION_EXIT);
  if (v === "off" || a.reset) delete st.spec.noKill;
  else st.spec.noKill = true;
  return ok(undefined);
};

export const TUNING_HANDLERS: Readonly<Record<string, Handler>> = {
  "acctg-freq": acctgFreq, profile, "cpu-freq": cpuFreq, "gpu-freq": gpuFreq, "mem-bind": memBind, network,
  "spread-job": spreadJob, "no-kill": noKill,
};
