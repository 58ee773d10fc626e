/**
 * @module cli/strigger-args
 * strigger's command line as data: the option table (Slurm's letters and long
 * names), parsing into StriggerParams, and the checks strigger makes before it
 * calls the controller, in Slurm's order and wording (checked against the 22.05
 * oracle). Pure: files and users are looked up through the arguments.
 */
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import type { TriggerType } from "../sched/model/trigger-types.ts";

/** Option rows in the order of Slurm's --help. Event options carry the trigger type as id. */
export const STRIGGER_OPTIONS: readonly OptionRow[] = [
  { id: "set", long: ["set"], arg: "none" },
  { id: "get", long: ["get"], arg: "none" },
  { id: "clear", long: ["clear"], arg: "none" },
  { id: "burst_buffer", long: ["burst_buffer"], arg: "none" },
  { id: "front_end", long: ["front_end"], arg: "none" },
  { id: "primary_slurmctld_failure", short: "a", long: ["primary_slurmctld_failure"], arg: "none" },
  { id: "primary_slurmctld_resumed_operation", short: "A", long: ["primary_slurmctld_resumed_operation"], arg: "none" },
  { id: "primary_slurmctld_resumed_control", short: "b", long: ["primary_slurmctld_resumed_control"], arg: "none" },
  { id: "backup_slurmctld_failure", short: "B", long: ["backup_slurmctld_failure"], arg: "none" },
  { id: "backup_slurmctld_resumed_operation", short: "c", long: ["backup_slurmctld_resumed_operation"], arg: "none" },
  { id: "backup_slurmctld_assumed_control", short: "C", long: ["backup_slurmctld_assumed_control"], arg: "none" },
  { id: "down", short: "d", long: ["down"], arg: "none" },
  { id: "drained", short: "D", long: ["drained"], arg: "none" },
  { id: "primary_slurmctld_acct_buffer_full", short: "e", long: ["primary_slurmctld_acct_buffer_full"], arg: "none" },
  { id: "fail", short: "F", long: ["fail"], arg: "none" },
  { id: "fini", short: "f", long: ["fini"], arg: "none" },
  { id: "flags", long: ["flags"], arg: "required" },
  { id: "primary_slurmdbd_failure", short: "g", long: ["primary_slurmdbd_failure"], arg: "none" },
  { id: "primary_slurmdbd_resumed_operation", short: "G", long: ["primary_slurmdbd_resumed_operation"], arg: "none" },
  { id: "primary_database_failure", short: "h", long: ["primary_database_failure"], arg: "none" },
  { id: "primary_database_resumed_operation", short: "H", long: ["primary_database_resumed_operation"], arg: "none" },
  { id: "id", short: "i", long: ["id"], arg: "required" },
  { id: "idle", short: "I", long: ["idle"], arg: "none" },
  { id: "jobid", short: "j", long: ["jobid"], arg: "required" },
  { id: "clusters", short: "M", long: ["cluster", "clusters"], arg: "required" },
  { id: "node", short: "n", long: ["node"], arg: "optional" },
  { id: "noheader", short: "N", long: ["noheader"], arg: "none" },
  { id: "offset", short: "o", long: ["offset"], arg: "required" },
  { id: "program", short: "p", long: ["program"], arg: "required" },
  { id: "quiet", short: "Q", long: ["quiet"], arg: "none" },
  { id: "reconfig", short: "r", long: ["reconfig"], arg: "none" },
  { id: "time", short: "t", long: ["time"], arg: "none" },
  { id: "up", short: "u", long: ["up"], arg: "none" },
  { id: "user", long: ["user"], arg: "required" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
];

const EVENT_IDS: ReadonlySet<string> = new Set([
  "burst_buffer", "primary_slurmctld_failure", "primary_slurmctld_resumed_operation", "primary_slurmctld_resumed_control",
  "backup_slurmctld_failure", "backup_slurmctld_resumed_operation", "backup_slurmctld_assumed_control", "down", "drained",
  "primary_slurmctld_acct_buffer_full", "fail", "fini", "primary_slurmdbd_failure", "primary_slurmdbd_resumed_operation",
  "primary_database_failure", "primary_database_resumed_operation", "idle", "reconfig", "time", "up",
]);

export interface StriggerParams {
  modes: ("set" | "get" | "clear")[];
  /** Event options given, in Slurm's type order (see TRIGGER_ORDER). */
  types: TriggerType[];
  frontEnd: boolean;
  jobId?: number;
  /** --node given: its value, or "*" when given without one. */
  node?: string;
  triggerId?: number;
  offset: number;
  program?: string;
  perm: boolean;
  /** --user, as given (name or uid). */
  user?: string;
  noHeader: boolean;
  quiet: boolean;
  help?: "help" | "usage" | "version";
}

/** The order Slurm's trigger type bits have: a set lists them in this order. */
const TRIGGER_ORDER: readonly TriggerType[] = [
  "up", "down", "fail", "time", "fini", "reconfig", "burst_buffer", "idle", "drained",
  "primary_slurmctld_failure", "primary_slurmctld_resumed_operation", "primary_slurmctld_resumed_control",
  "backup_slurmctld_failure", "backup_slurmctld_resumed_operation", "backup_slurmctld_assumed_control",
  "primary_slurmctld_acct_buffer_full", "primary_slurmdbd_failure", "primary_slurmdbd_resumed_operation",
  "primary_database_failure", "primary_database_resumed_operation",
];

/** C's atoi: the leading integer, 0 when there is none ("1x" is 1, "abc" is 0). */
const atoi = (text: string): number => {
  const m = /^\s*([+-]?\d+)/.exec(text);
  return m === null ? 0 : Number(m[1]);
};

/** Parse argv; `error` is the full message to print (exit 1). */
export function parseStrigger(argv: readonly string[], userKnown: (u: string) => boolean): { params: StriggerParams } | { error: string } {
  const parsed = getoptLong("strigger", argv, STRIGGER_OPTIONS);
  const p: StriggerParams = { modes: [], types: [], frontEnd: false, offset: 0, perm: false, noHeader: false, quiet: false };
  const seen = new Set<string>();
  for (const o of parsed.options) {
    const v = o.value ?? "";
    if (EVENT_IDS.has(o.id)) seen.add(o.id);
    else if (o.id === "set" || o.id === "get" || o.id === "clear") p.modes.push(o.id);
    else if (o.id === "front_end") p.frontEnd = true;
    else if (o.id === "flags") {
      if (v.toLowerCase() !== "perm") return { error: `strigger: error: Invalid flags ${v}\n` };
      p.perm = true;
    } else if (o.id === "id") p.triggerId = atoi(v);
    else if (o.id === "jobid") {
      if (!/^\d+/.test(v) || atoi(v) <= 0) return { error: `strigger: error: Invalid jobid ${v}\n` };
      p.jobId = atoi(v);
    } else if (o.id === "node") p.node = o.value ?? "*";
    else if (o.id === "noheader") p.noHeader = true;
    else if (o.id === "offset") p.offset = atoi(v);
    else if (o.id === "program") p.program = v;
    else if (o.id === "quiet") p.quiet = true;
    else if (o.id === "user") {
      if (!userKnown(v)) return { error: `strigger: error: Invalid user ${v}\n` };
      p.user = v;
    } else if (o.id === "help" || o.id === "usage" || o.id === "version") p.help ??= o.id;
  }
  if (parsed.error !== undefined) return { error: `${parsed.error}\nTry "strigger --help" for more information\n` };
  // words that are not options are ignored, as by Slurm's strigger
  p.types = TRIGGER_ORDER.filter((t) => seen.has(t));
  return { params: p };
}

const NO_TRIGGER = [
  "strigger: error: You must specify a trigger (--down, --up, --reconfig, --time, --fini, --burst_buffer,",
  "--primary_slurmctld_failure,", "--primary_slurmctld_resumed_operation,", "--primary_slurmctld_resumed_control,",
  "--primary_slurmctld_acct_buffer_full,", "--backup_slurmctld_failure,", "--backup_slurmctld_resumed_operation,",
  "--backup_slurmctld_as_ctrl,", "--primary_slurmdbd_failure,", "--primary_slurmdbd_resumed_operation,",
  "--primary_database_failure, or ", "--primary_database_resumed_operation)", "", "",
].join("\n");

export type FileKind = "file" | "other" | "missing";

/** The checks before any RPC, in Slurm's order; the message to print, or undefined when all pass. */
export function checkStrigger(p: StriggerParams, fileKind: (path: string) => FileKind): string | undefined {
  if (p.modes.length !== 1) return "strigger: error: You must use exactly one of the following options: --set, --get or --clear\n";
  const mode = p.modes[0];
  if (mode === "clear" && p.triggerId === undefined && p.jobId === undefined && p.user === undefined) {
    return "strigger: error: You must specify a --id, --jobid, or --user to clear\n";
  }
  if (mode === "set" && p.types.length === 0) return NO_TRIGGER;
  if ((p.types.includes("fini") || p.types.includes("time")) && p.jobId === undefined) return "strigger: error: You must specify a --jobid value\n";
  if (mode !== "set") return undefined;
  if (p.program === undefined) return "strigger: error: You must specify a --program value\n";
  if (!p.program.startsWith("/")) return 'strigger: error: The --program value must start with "/"\n';
  const kind = fileKind(p.program.split(" ")[0] ?? "");
  if (kind === "missing") return "strigger: error: Invalid --program value, file not found\n";
  if (kind === "other") return "strigger: error: Invalid --program value, not regular file\n";
  if (p.offset > 32000 || p.offset < -32000) return "strigger: error: The --offset parameter must be between +/-32000\n";
  return undefined;
}

const SLURMCTLD_EVENTS: ReadonlySet<TriggerType> = new Set([
  "primary_slurmctld_failure", "primary_slurmctld_resumed_operation", "primary_slurmctld_resumed_control",
  "backup_slurmctld_failure", "backup_slurmctld_resumed_operation", "backup_slurmctld_assumed_control",
  "primary_slurmctld_acct_buffer_full",
]);

/** What a --set asks of the controller: the resource (job, node hostlist or "*", daemon) and its events. */
export function setRequestOf(p: StriggerParams): { resType: string; resId: string } {
  if (p.jobId !== undefined) return { resType: "job", resId: String(p.jobId) };
  if (p.frontEnd) return { resType: "front_end", resId: p.node ?? "*" };
  const first = p.types[0];
  if (p.node === undefined && first !== undefined) {
    if (SLURMCTLD_EVENTS.has(first)) return { resType: "slurmctld", resId: "*" };
    if (first.startsWith("primary_slurmdbd")) return { resType: "slurmdbd", resId: "*" };
    if (first.startsWith("primary_database")) return { resType: "database", resId: "*" };
    if (first === "burst_buffer") return { resType: "burst_buffer", resId: "*" };
  }
  return { resType: "node", resId: p.node ?? "*" };
}
