/**
 * @module compat/options/defined-options
 * sbatch -v's list of the options given (22.05: "defined options"), one line per option in
 * name order, the value as Slurm shows it. Driven by the option table: a value is shown by its
 * argKind (a number as read, a time as [D-]HH:MM:SS, a date as its local time, a size in
 * MiB with Slurm's unit letter, an output pattern as an absolute path), and a flag as "set";
 * the few options 22.05 shows in their own way are in SHOWN_BY_NAME. Every expected value is
 * the oracle's (tests/unit/options/defined-options.test.ts).
 */
import { formatElapsed, formatIsoTime } from "../format-time.ts";
import { parseBeginTime, parseDurationSec, parseTimeLimit } from "../parse-time.ts";
import { parseSizeMiB } from "../parse-size.ts";
import { signalName, signalNumber } from "../signals.ts";
import type { Assignment } from "./env-input.ts";
import { canonicalName, tableFor, type Command } from "./table.ts";

export interface DumpContext {
  /** The directory sbatch runs in. */
  cwd: string;
  /** Epoch seconds the dates are read against. */
  now: number;
  /** -v's count (or SBATCH_DEBUG's value). */
  verbose: number;
}

type Shown = (value: string | undefined, c: DumpContext & { chdir: string }) => string;

const asIs: Shown = (v) => v ?? "set";

/** A count as parse_int read it ("+2" and "02" are 2). */
const numberText = (v: string | undefined): string => (v === undefined ? "set" : /^[+]?[0-9]+$/.test(v) ? String(Number(v.replace(/^\+/, ""))) : v);
const number: Shown = (v) => numberText(v);

/** --time/--time-min: whole minutes as [D-]HH:MM:SS, no limit as UNLIMITED (oracle: 1-02:03:04 is 1-02:04:00, 0 is UNLIMITED). */
const limitText = (v: string | undefined): string => {
  const r = parseTimeLimit(v ?? "");
  return !r.ok ? (v ?? "") : r.value === undefined ? "UNLIMITED" : formatElapsed(r.value * 60);
};
const limit: Shown = (v) => limitText(v);

/** A duration in minutes (--delay-boot=10 is 00:10:00, 0 is 00:00:00). */
const minutes: Shown = (v) => {
  const sec = parseDurationSec(v ?? "");
  return sec === undefined ? (v ?? "") : formatElapsed(Math.ceil(sec / 60) * 60);
};

const when: Shown = (v, c) => {
  const r = parseBeginTime(v ?? "", c.now);
  return r.ok ? formatIsoTime(r.value) : (v ?? "");
};

const UNITS = ["", "G", "T", "P"];

/** A size in MiB, shown in the largest unit it is a whole number of (1g is 1G, 512M 512, 100k 1); 0 prints as 22.05 does, "0?". */
const size: Shown = (v) => {
  const r = parseSizeMiB(v ?? "");
  if (!r.ok) return v ?? "";
  let n = r.value;
  if (n === 0) return "0?";
  let unit = 0;
  while (n % 1024 === 0 && unit < UNITS.length - 1) {
    n /= 1024;
    unit++;
  }
  return `${n}${UNITS[unit]}`;
};

const absolute = (v: string, dir: string): string => (v.startsWith("/") ? v : `${dir}/${v}`);

/** An output/input pattern, relative to --chdir when given. */
const pattern: Shown = (v, c) => absolute(v ?? "", c.chdir);

const lower: Shown = (v) => (v ?? "").toLowerCase();

const CPU_FREQ_WORDS: Readonly<Record<string, string>> = {
  low: "Low", medium: "Medium", high: "High", highm1: "HighM1",
  conservative: "Conservative", ondemand: "OnDemand", performance: "Performance", powersave: "PowerSave", userspace: "UserSpace", schedutil: "SchedUtil",
};

const MAIL_ALL = "INVALID_DEPEND,BEGIN,END,FAIL,REQUEUE,STAGE_OUT";
const PROFILE_ALL = "Energy,Lustre,Network,Task";
const capital = (w: string): string => w.charAt(0).toUpperCase() + w.slice(1).toLowerCase();

/** --signal as [R:|B:]NAME[@secs], the default 60 left out (oracle: 10@30 is USR1@30, B:USR1@60 is B:USR1). */
const signal: Shown = (v) => {
  const m = /^(?:([RrBb]):)?([^@]+)(?:@([0-9]+))?$/.exec(v ?? "");
  const num = m === null ? undefined : signalNumber(m[2] as string);
  if (m === null || num === undefined) return v ?? "";
  const secs = m[3] === undefined ? 60 : Number(m[3]);
  return `${m[1] ? `${m[1].toUpperCase()}:` : ""}${signalName(num) ?? num}${secs === 60 ? "" : `@${secs}`}`;
};

/** Options 22.05 shows in a way of their own (oracle 22.05, sbatch -v). */
const SHOWN_BY_NAME: Readonly<Record<string, Shown>> = {
  chdir: (v, c) => absolute(v ?? "", c.cwd),
  "cpu-freq": (v) => (v ?? "").replace(/[A-Za-z][A-Za-z0-9]*/g, (w) => CPU_FREQ_WORDS[w.toLowerCase()] ?? w),
  distribution: (v) => (v === "*" ? "block" : (v ?? "").toLowerCase()),
  exclusive: (v) => (v === undefined ? "exclusive" : v.toLowerCase()),
  "get-user-env": (v) => v ?? "0",
  gres: (v) => (v ?? "").split(",").map((g) => (g.startsWith("gres:") ? g : `gres:${g}`)).join(","),
  "kill-on-invalid-dep": lower,
  "mail-type": (v) => (v ?? "").split(",").map((t) => (t.toUpperCase() === "ALL" ? MAIL_ALL : t.toUpperCase())).join(","),
  nice: (v) => (v === undefined ? "100" : numberText(v)),
  "no-requeue": () => "no-requeue",
  nodes: (v) => {
    const m = /^([0-9]*)(?:-([0-9]+))?$/.exec(v ?? "");
    if (m === null) return v ?? "";
    const lo = m[1] === "" ? 1 : Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    return hi === lo ? String(lo) : `${lo}-${hi}`;
  },
  "open-mode": (v) => (v ?? "").charAt(0).toLowerCase(),
  oversubscribe: () => "oversubscribe",
  priority: (v) => ((v ?? "").toUpperCase() === "TOP" ? "-3" : numberText(v)),
  profile: (v) => (v ?? "").split(",").map((p) => (p.toLowerCase() === "all" ? PROFILE_ALL : capital(p))).join(","),
  propagate: (v) => v ?? "ALL",
  requeue: (v) => v ?? "requeue",
  signal,
  switches: (v) => {
    const [count = "", time] = (v ?? "").split("@");
    return time === undefined ? count : `${count}@${limitText(time)}`;
  },
};

const SHOWN_BY_KIND: Readonly<Record<string, Shown>> = {
  int: number, time: limit, "time(minutes)": minutes, datetime: when, size, pattern,
};

/** Options the list leaves out: they act before it (help, usage, version). */
const NOT_LISTED = new Set(["help", "usage", "version"]);

/**
 * The lines of the list (each without the "sbatch: " prefix), or none when -v was not given:
 * the last value of each option given (by #SBATCH line, input variable or command line), in name order.
 */
export function definedOptions(cmd: Command, assignments: readonly Assignment[], c: DumpContext): string[] {
  if (c.verbose <= 0) return [];
  const table = tableFor(cmd).byName;
  const last = new Map<string, Assignment | undefined>();
  for (const a of assignments) {
    const name = canonicalName(a.name);
    if (!table.has(name) || NOT_LISTED.has(name)) continue;
    last.set(name, a.reset ? undefined : a);
  }
  const chdirGiven = last.get("chdir")?.value;
  const ctx = { ...c, chdir: chdirGiven === undefined ? c.cwd : absolute(chdirGiven, c.cwd) };
  const rows: [string, string][] = [];
  for (const [name, a] of last) {
    if (a === undefined) continue;
    const def = table.get(name);
    const show = name === "verbose" ? () => String(c.verbose) : SHOWN_BY_NAME[name] ?? SHOWN_BY_KIND[def?.argKind ?? ""] ?? asIs;
    rows.push([name, show(a.value, ctx)]);
  }
  rows.sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0));
  const rule = `${"-".repeat(20)} ${"-".repeat(20)}`;
  return ["defined options", rule, ...rows.map(([n, v]) => `${n.padEnd(20)}: ${v}`), rule, "end of defined options"];
}
