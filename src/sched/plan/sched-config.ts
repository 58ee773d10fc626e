/**
 * @module sched/plan/sched-config
 * The scheduler's settings as read from spur.conf (slurm.conf keys): the
 * priority plugin and its weights (PriorityType, PriorityWeight*, PriorityMaxAge,
 * PriorityFavorSmall, PriorityDecayHalfLife, PriorityWeightTRES) and the
 * scheduler plugin with its SchedulerParameters (bf_max_job_test, bf_window,
 * bf_resolution, bf_job_part_count_reserve). Configuration is not replicated:
 * every replica reads the same file, so adding a key never breaks log replay.
 */
import { parseTimeLimit } from "../../compat/parse-time.ts";

export interface PriorityWeights {
  age: number;
  assoc: number;
  fairshare: number;
  jobSize: number;
  partition: number;
  qos: number;
}

export interface SchedConfig {
  schedulerType: "sched/backfill" | "sched/builtin";
  priorityType: "priority/basic" | "priority/multifactor";
  weights: PriorityWeights;
  /** PriorityWeightTRES, e.g. { cpu: 1000, mem: 2000, "gres/gpu": 3000 }; keys lower-cased. */
  tresWeights: Record<string, number>;
  priorityMaxAgeSec: number;
  priorityFavorSmall: boolean;
  decayHalfLifeSec: number;
  /** The text of PriorityWeightTRES as configured ("" = unset), for `scontrol show config`. */
  tresWeightsText: string;
  /** Jobs the backfill pass tests at most (bf_max_job_test). */
  bfMaxJobTest: number;
  /** How far ahead backfill plans (bf_window, minutes). */
  bfWindowMin: number;
  /** Granularity of planned start times (bf_resolution, seconds). */
  bfResolutionSec: number;
  /** Reservations per partition (bf_job_part_count_reserve); 0 = every tested job (Slurm's default). */
  bfJobPartCountReserve: number;
  /** Jobs the main pass examines at most (default_queue_depth is Slurm's event-pass bound; here: the whole pass). */
  maxJobsPerPass: number;
  /** SchedulerParameters as configured ("" = unset). */
  schedulerParametersText: string;
  /** DependencyParameters=kill_invalid_depend: cancel every job whose dependency can never be satisfied. */
  killInvalidDepend: boolean;
  /** DependencyParameters as configured ("" = unset), for `scontrol show config`. */
  dependencyParametersText: string;
}

export const DEFAULT_SCHED_CONFIG: SchedConfig = {
  schedulerType: "sched/backfill",
  priorityType: "priority/basic",
  weights: { age: 0, assoc: 0, fairshare: 0, jobSize: 0, partition: 0, qos: 0 },
  tresWeights: {},
  tresWeightsText: "",
  priorityMaxAgeSec: 7 * 86400,
  priorityFavorSmall: false,
  decayHalfLifeSec: 7 * 86400,
  bfMaxJobTest: 500,
  bfWindowMin: 1440,
  bfResolutionSec: 60,
  bfJobPartCountReserve: 0,
  maxJobsPerPass: 1_000_000,
  schedulerParametersText: "",
  killInvalidDepend: false,
  dependencyParametersText: "",
};

const num = (v: string | undefined, dflt: number): number => {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : dflt;
};

const durationSec = (v: string | undefined, dflt: number): number => {
  if (v === undefined || v === "") return dflt;
  const parsed = parseTimeLimit(v);
  return parsed.ok && parsed.value !== undefined ? parsed.value * 60 : dflt;
};

/** "CPU=1000,Mem=2000,GRES/gpu=3000" -> { cpu: 1000, mem: 2000, "gres/gpu": 3000 }. */
export function parseTresWeights(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of text.split(",")) {
    const [k, v] = part.split("=");
    if (!k || v === undefined) continue;
    const n = Number(v);
    if (Number.isFinite(n) && n >= 0) out[k.trim().toLowerCase()] = n;
  }
  return out;
}

/** "bf_window=2880,bf_max_job_test=100" -> map; flags without a value map to "". */
export function parseSchedulerParameters(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const part of text.split(",")) {
    const t = part.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    out.set((eq < 0 ? t : t.slice(0, eq)).toLowerCase(), eq < 0 ? "" : t.slice(eq + 1));
  }
  return out;
}

/** Build from the lower-cased global keys of spur.conf. Unknown or malformed values fall back to defaults. */
export function schedConfigFrom(g: Map<string, string>): SchedConfig {
  const d = DEFAULT_SCHED_CONFIG;
  const sp = parseSchedulerParameters(g.get("schedulerparameters") ?? "");
  const tresText = g.get("priorityweighttres") ?? "";
  return {
    schedulerType: (g.get("schedulertype") ?? d.schedulerType).toLowerCase() === "sched/builtin" ? "sched/builtin" : "sched/backfill",
    priorityType: (g.get("prioritytype") ?? d.priorityType).toLowerCase() === "priority/multifactor" ? "priority/multifactor" : "priority/basic",
    weights: {
      age: num(g.get("priorityweightage"), 0),
      assoc: num(g.get("priorityweightassoc"), 0),
      fairshare: num(g.get("priorityweightfairshare"), 0),
      jobSize: num(g.get("priorityweightjobsize"), 0),
      partition: num(g.get("priorityweightpartition"), 0),
      qos: num(g.get("priorityweightqos"), 0),
    },
    tresWeights: parseTresWeights(tresText),
    tresWeightsText: tresText,
    priorityMaxAgeSec: Math.max(1, durationSec(g.get("prioritymaxage"), d.priorityMaxAgeSec)),
    priorityFavorSmall: (g.get("priorityfavorsmall") ?? "no").toLowerCase() === "yes",
    decayHalfLifeSec: durationSec(g.get("prioritydecayhalflife"), d.decayHalfLifeSec),
    bfMaxJobTest: Math.max(1, num(sp.get("bf_max_job_test"), d.bfMaxJobTest)),
    bfWindowMin: Math.max(1, num(sp.get("bf_window"), d.bfWindowMin)),
    bfResolutionSec: Math.max(1, num(sp.get("bf_resolution"), d.bfResolutionSec)),
    bfJobPartCountReserve: num(sp.get("bf_job_part_count_reserve"), d.bfJobPartCountReserve),
    maxJobsPerPass: Math.max(1, num(sp.get("spur_max_jobs_per_pass"), d.maxJobsPerPass)),
    schedulerParametersText: g.get("schedulerparameters") ?? "",
    killInvalidDepend: parseSchedulerParameters(g.get("dependencyparameters") ?? "").has("kill_invalid_depend"),
    dependencyParametersText: g.get("dependencyparameters") ?? "",
  };
}

/** Slurm's duration text for `scontrol show config` (7-00:00:00). */
export function durationText(sec: number): string {
  const d = Math.floor(sec / 86400);
  const h = Math.floor((sec % 86400) / 3600);
  const m = Math.floor((sec % 3600) / 60);
  const s = Math.floor(sec % 60);
  const pad = (x: number): string => String(x).padStart(2, "0");
  return `${d > 0 ? `${d}-` : ""}${pad(h)}:${pad(m)}:${pad(s)}`;
}
