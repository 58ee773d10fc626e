/**
 * @module sched/acct/fields
 * sacctmgr's value syntax: TRES lists ("cpu=4,mem=2G,node=1,gres/gpu=2"),
 * wall limits (Slurm time syntax, minutes), counts where -1 clears a limit,
 * and the option names (with Slurm's aliases) that `set` accepts for
 * associations and QOS. Pure; errors are Slurm-worded strings.
 */
import { parseTimeLimit } from "../../compat/parse-time.ts";
import { parseSizeMiB } from "../../compat/parse-size.ts";
import { TRES_NAMES, type AssocLimits, type QosLimits, type TresLimit, type TresName } from "./types.ts";

/** "cpu=4,mem=2G,gres/gpu=2" -> { cpu: 4, mem: 2048, "gres/gpu": 2 }; -1 clears one entry (kept as -1). */
export function parseTres(text: string): TresLimit | string {
  const out: TresLimit = {};
  for (const part of text.split(",")) {
    if (part.trim() === "") continue;
    const [rawName, rawValue] = part.split("=");
    const name = (rawName ?? "").trim().toLowerCase().replace(/^gres\/gpu:.*$/, "gres/gpu") as TresName;
    if (!TRES_NAMES.includes(name) || rawValue === undefined) return `Invalid TRES: ${part}`;
    const mem = name === "mem" && rawValue.trim() !== "-1" ? parseSizeMiB(rawValue.trim()) : undefined;
    const value = mem !== undefined ? (mem.ok ? mem.value : undefined) : rawValue.trim() === "-1" ? -1 : Number(rawValue);
    if (value === undefined || !Number.isInteger(value) || value < -1) return `Invalid TRES value: ${part}`;
    out[name] = value;
  }
  return out;
}

const memOut = (mib: number): string => (mib % (1024 * 1024) === 0 ? `${mib / 1048576}T` : mib % 1024 === 0 ? `${mib / 1024}G` : `${mib}M`);

/** Slurm's order (cpu, mem, node, then gres) and units. */
export function tresOut(t: TresLimit | undefined): string {
  if (t === undefined) return "";
  return TRES_NAMES.filter((n) => t[n] !== undefined).map((n) => `${n}=${n === "mem" ? memOut(t[n] as number) : t[n]}`).join(",");
}

/** Merge a TRES update: -1 removes an entry; an empty result is "not set". */
export function mergeTres(old: TresLimit | undefined, update: TresLimit): TresLimit | undefined {
  const out: TresLimit = { ...(old ?? {}) };
  for (const n of TRES_NAMES) {
    const v = update[n];
    if (v === undefined) continue;
    if (v < 0) delete out[n];
    else out[n] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

export function parseCount(text: string): number | undefined | string {
  if (text.trim() === "-1") return undefined;
  const n = Number(text);
  return Number.isInteger(n) && n >= 0 ? n : `Invalid value: ${text}`;
}

export function parseWallMin(text: string): number | undefined | string {
  if (text.trim() === "-1") return undefined;
  const r = parseTimeLimit(text);
  if (!r.ok) return `Invalid time limit: ${text}`;
  return r.value;
}

type Setter<L> = (limits: L, value: string) => string | undefined;

const countSetter = <L>(key: keyof L): Setter<L> => (limits, value) => {
  const n = parseCount(value);
  if (typeof n === "string") return n;
  if (n === undefined) delete limits[key];
  else (limits as Record<keyof L, unknown>)[key] = n;
  return undefined;
};

const tresSetter = <L>(key: keyof L): Setter<L> => (limits, value) => {
  const t = parseTres(value);
  if (typeof t === "string") return t;
  const merged = mergeTres((limits as Record<keyof L, TresLimit | undefined>)[key], t);
  if (merged === undefined) delete limits[key];
  else (limits as Record<keyof L, unknown>)[key] = merged;
  return undefined;
};

/** `typed`: the option's name as sacctmgr names it in its complaint ("Bad MaxWall time format: maxwall=x"). */
const wallSetter = <L>(key: keyof L, typed: string): Setter<L> => (limits, value) => {
  const w = parseWallMin(value);
  if (typeof w === "string") return ` Bad ${key === "grpWallMin" ? "GrpWall" : "MaxWall"} time format: ${typed}=${value}`;
  if (w === undefined) delete limits[key];
  else (limits as Record<keyof L, unknown>)[key] = w;
  return undefined;
};

/** Association limit options by lower-cased name (sacctmgr's aliases included). */
export const ASSOC_LIMIT_SETTERS: Record<string, Setter<AssocLimits>> = {
  grpjobs: countSetter("grpJobs"),
  grpsubmitjobs: countSetter("grpSubmitJobs"),
  grpsubmit: countSetter("grpSubmitJobs"),
  grptres: tresSetter("grpTres"),
  grptresmins: tresSetter("grpTresMins"),
  grpwall: wallSetter("grpWallMin", "grpwall"),
  maxjobs: countSetter("maxJobs"),
  maxsubmitjobs: countSetter("maxSubmitJobs"),
  maxsubmit: countSetter("maxSubmitJobs"),
  maxtres: tresSetter("maxTresPerJob"),
  maxtresperjob: tresSetter("maxTresPerJob"),
  maxtresmins: tresSetter("maxTresMinsPerJob"),
  maxtresminsperjob: tresSetter("maxTresMinsPerJob"),
  maxwall: wallSetter("maxWallMin", "maxwall"),
  maxwalldurationperjob: wallSetter("maxWallMin", "maxwalldurationperjob"),
};

export const QOS_LIMIT_SETTERS: Record<string, Setter<QosLimits>> = {
  grpjobs: countSetter("grpJobs"),
  grpsubmitjobs: countSetter("grpSubmitJobs"),
  grpsubmit: countSetter("grpSubmitJobs"),
  grptres: tresSetter("grpTres"),
  grptresmins: tresSetter("grpTresMins"),
  grpwall: wallSetter("grpWallMin", "grpwall"),
  maxtres: tresSetter("maxTresPerJob"),
  maxtresperjob: tresSetter("maxTresPerJob"),
  maxtresmins: tresSetter("maxTresMinsPerJob"),
  maxtresminsperjob: tresSetter("maxTresMinsPerJob"),
  maxtresperuser: tresSetter("maxTresPerUser"),
  maxtrespu: tresSetter("maxTresPerUser"),
  maxjobsperuser: countSetter("maxJobsPerUser"),
  maxjobspu: countSetter("maxJobsPerUser"),
  maxsubmitjobsperuser: countSetter("maxSubmitJobsPerUser"),
  maxsubmitpu: countSetter("maxSubmitJobsPerUser"),
  maxwall: wallSetter("maxWallMin", "maxwall"),
  maxwalldurationperjob: wallSetter("maxWallMin", "maxwalldurationperjob"),
};

/** Minutes as Slurm prints a wall limit: [D-]HH:MM:SS. */
export function wallOut(min: number | undefined): string {
  if (min === undefined) return "";
  const sec = min * 60;
  const d = Math.floor(sec / 86400);
  const pad = (x: number): string => String(x).padStart(2, "0");
  const hms = `${pad(Math.floor((sec % 86400) / 3600))}:${pad(Math.floor((sec % 3600) / 60))}:${pad(sec % 60)}`;
  return d > 0 ? `${d}-${hms}` : hms;
}
