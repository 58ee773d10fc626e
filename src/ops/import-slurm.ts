/**
 * @module ops/import-slurm
 * `spur import-slurm DIR`: a site's slurm.conf (+ gres.conf, topology.conf, cgroup.conf: its
 * Constrain and Allowed switches are carried into spur.conf, where spurd reads them)
 * → the equivalent spur.conf text (same syntax, only the keys Spur reads: see
 * sched/model/state.ts, roles/spurctld.ts, roles/spurd.ts) and a note for every setting
 * that could not be carried over. Pure: the caller reads the files and writes the result.
 */
import { parseGresTypes } from "../compat/gres-generic.ts";
import { err, ok, type Result } from "../lib/result.ts";
import { firstKey, foldDefaults, readRecords, tidyNotes, type ImportNote, type Rec } from "./conf-records.ts";
import { checkGresConf, importNodes } from "./import-nodes.ts";
import { importPartitions } from "./import-partitions.ts";

export type { ImportNote } from "./conf-records.ts";

/** The text of the files found in the Slurm configuration directory. */
export interface SlurmConfFiles {
  /** Where they came from, for the header comment ("/etc/slurm"). */
  dir?: string;
  slurmConf: string;
  gresConf?: string;
  topologyConf?: string;
  cgroupConf?: string;
}

export interface ImportResult {
  spurConf: string;
  notes: ImportNote[];
  nodeCount: number;
  partitionCount: number;
  gpuCount: number;
}

const FILES = ["slurm.conf", "gres.conf", "topology.conf", "cgroup.conf"];

/** Global keys Spur reads under the same name and meaning. */
const SAME_GLOBALS = ["ClusterName", "StateSaveLocation", "SlurmdSpoolDir", "DefMemPerCPU", "MinJobAge", "KillWait",
  "SlurmdTimeout", "MaxArraySize", "MaxJobCount", "FirstJobId",
  // cluster-wide licenses, and which of them (license/NAME) jobs show as TRES
  "Licenses", "AccountingStorageTRES",
  // generic resources beyond gpu (written only when GresTypes names one)
  "GresTypes"];
/** Keys consumed here to compute others (ControlAddr/ControlPort, node ports). */
const CONSUMED = new Set(["slurmctldhost", "controlmachine", "controladdr", "slurmctldport", "slurmdport"]);

/** Why common settings do not carry over, by key prefix (lower case); the default is "not read by Spur". */
const REASONS: [string, string][] = [
  ["gresTypes", "not needed: Spur knows gpu without it"],
  ["accountingstorage", "Spur has no slurmdbd: sacct reads the controller's own job records"],
  ["jobacctgather", "not read by Spur (no per-process accounting sampling)"],
  ["jobcomp", "Spur has no job completion plugins"],
  ["auth", "Spur authenticates callers its own way"],
  ["cred", "Spur authenticates callers its own way"],
  ["slurmctldlogfile", "Spur daemons log JSON lines to stderr (the journal under systemd)"],
  ["slurmdlogfile", "Spur daemons log JSON lines to stderr (the journal under systemd)"],
  ["slurmctldpidfile", "Spur daemons write no pid file (systemd tracks them)"],
  ["slurmdpidfile", "Spur daemons write no pid file (systemd tracks them)"],
  ["slurmuser", "Spur daemons run as the user that starts them"],
  ["slurmduser", "Spur daemons run as the user that starts them"],
  ["topologyplugin", "Spur does not read topology.conf (see the notes for it)"],
  ["include", "included files are not read: append their lines to slurm.conf and import again"],
];

const reasonFor = (key: string): string => {
  const lower = key.toLowerCase();
  return REASONS.find(([p]) => lower.startsWith(p.toLowerCase()))?.[1] ?? "not read by Spur";
};

const BACKUP_REASON = "backup controllers are not carried over (Spur runs one spurctld per spur.conf for now)";

/** SlurmctldHost=name(addr): the first one is the controller; later ones are backups. */
function controlLines(globals: readonly Rec[], notes: ImportNote[]): string[] {
  const hosts = globals.filter((r) => ["slurmctldhost", "controlmachine"].includes(firstKey(r)));
  const out: string[] = [];
  for (const r of hosts.slice(1)) {
    const [key, value] = r.pairs[0] ?? ["", ""];
    notes.push({ file: "slurm.conf", line: r.line, key, value, kind: "dropped", reason: BACKUP_REASON });
  }
  const first = hosts[0]?.pairs[0]?.[1];
  const explicit = globals.find((r) => firstKey(r) === "controladdr")?.pairs[0]?.[1];
  const m = first === undefined ? null : /^([^(]*)(?:\(([^)]*)\))?$/.exec(first);
  const addr = explicit ?? m?.[2] ?? m?.[1];
  if (addr !== undefined && addr !== "") out.push(`ControlAddr=${addr}`);
  const portRec = globals.find((r) => firstKey(r) === "slurmctldport");
  const port = portRec?.pairs[0]?.[1];
  if (port !== undefined) {
    const single = port.split("-")[0] ?? port;
    out.push(`ControlPort=${single}`);
    const line = portRec?.line ?? 0;
    if (single !== port) notes.push({ file: "slurm.conf", line, key: "SlurmctldPort", value: port, kind: "changed", reason: `Spur listens on one port: ${single}` });
  }
  return out;
}

/** Priority settings (PriorityType, PriorityWeight*, PriorityDecayHalfLife, ...): written as they are for the multifactor scheduler. */
const isPriorityKey = (k: string): boolean => /^priority/i.test(k);
const PRIORITY_ADVICE = "carried over as written: the multifactor priority of Spur's scheduler (issue 5) reads Slurm's names; until then the order is priority/basic";

function globalLines(globals: readonly Rec[], notes: ImportNote[]): string[] {
  const control = controlLines(globals, notes);
  const last = new Map<string, { value: string; line: number }>();
  const priority: string[] = [];
  for (const rec of globals) {
    for (const [k, v] of rec.pairs) {
      // GresTypes is written only when it names more than gpu: the counted GRES the NodeName lines may list.
      const gresOnly = k.toLowerCase() === "grestypes" && !parseGresTypes(v).some((t) => t !== "gpu");
      const same = gresOnly ? undefined : SAME_GLOBALS.find((s) => s.toLowerCase() === k.toLowerCase());
      if (same !== undefined) last.set(same, { value: v, line: rec.line });
      else if (isPriorityKey(k)) {
        priority.push(`${k}=${/\s/.test(v) ? `"${v}"` : v}`);
        notes.push({ file: "slurm.conf", line: rec.line, key: k, value: v, kind: "advice", reason: PRIORITY_ADVICE });
      } else if (!CONSUMED.has(k.toLowerCase())) {
        notes.push({ file: "slurm.conf", line: rec.line, key: k, value: v, kind: "dropped", reason: reasonFor(k) });
      }
    }
  }
  const out: string[] = [];
  for (const key of SAME_GLOBALS) {
    const v = last.get(key)?.value;
    if (v !== undefined) out.push(`${key}=${/\s/.test(v) ? `"${v}"` : v}`);
    if (key === "ClusterName") out.push(...control);
  }
  out.push(...priority);
  const state = last.get("StateSaveLocation");
  if (state !== undefined) {
    notes.push({ file: "slurm.conf", line: state.line, key: "StateSaveLocation", value: state.value, kind: "advice",
      reason: "spurctld keeps its state log there; while Slurm still runs from this directory, give spurctld --state-dir or edit it" });
  }
  return out;
}

/** topology.conf: switch trees (SwitchName/Switches/Nodes) and block topology (BlockName). */
function topologyReason(key: string): string {
  const k = key.toLowerCase();
  if (k === "switchname" || k === "switches" || k === "nodes" || k === "linkspeed") {
    return "Spur does not place jobs by switch yet (topology-aware placement is issue 6): the switch tree is kept as a comment in spur.conf";
  }
  if (k.startsWith("block")) return "Spur has no block topology (topology/block): kept as a comment in spur.conf";
  return "not read by Spur (kept as a comment in spur.conf)";
}

/** cgroup.conf keys spurd reads (agent/cgroup/cgroup-conf.ts); they are carried into spur.conf, where the same keys are read. */
const CGROUP_READ = new Set(["constraincores", "constrainramspace", "constrainswapspace", "constraindevices", "allowedramspace", "allowedswapspace"]);
const cgroupReason = (key: string): string =>
  key.toLowerCase() === "cgroupplugin"
    ? "spur.conf's CgroupPlugin (autodetect, cgroup/v1, cgroup/v2, disabled) chooses the cgroup version"
    : "not read by Spur (it reads ConstrainCores, ConstrainRAMSpace, ConstrainSwapSpace, ConstrainDevices, AllowedRAMSpace, AllowedSwapSpace)";

/** Every setting of a file Spur does not read at all (topology.conf, cgroup.conf). */
function unreadFile(text: string | undefined, file: string, reason: (key: string) => string, notes: ImportNote[], carried: (key: string) => boolean = () => false): Result<Rec[]> {
  if (text === undefined) return ok([]);
  const recs = readRecords(text, file);
  if (!recs.ok) return recs;
  for (const rec of recs.value) {
    for (const [k, v] of rec.pairs) if (!carried(k)) notes.push({ file, line: rec.line, key: k, value: v, kind: "dropped", reason: reason(k) });
  }
  return recs;
}

const recordText = (rec: Rec): string => rec.pairs.map(([k, v]) => `${k}=${v}`).join(" ");

/** slurm.conf & co. → spur.conf text and the notes. */
export function importSlurm(files: SlurmConfFiles): Result<ImportResult> {
  const notes: ImportNote[] = [];
  const recs = readRecords(files.slurmConf, "slurm.conf");
  if (!recs.ok) return recs;
  const nodeRecs = foldDefaults(recs.value.filter((r) => firstKey(r) === "nodename"));
  const partRecs = foldDefaults(recs.value.filter((r) => firstKey(r) === "partitionname"));
  const globals = recs.value.filter((r) => !["nodename", "partitionname"].includes(firstKey(r)));
  const head = globalLines(globals, notes);
  const slurmdPort = globals.find((r) => firstKey(r) === "slurmdport")?.pairs[0]?.[1] ?? "6818";
  const gresTypes = parseGresTypes(globals.flatMap((r) => r.pairs).filter(([k]) => k.toLowerCase() === "grestypes").pop()?.[1]);
  const nodes = importNodes(nodeRecs, slurmdPort, notes, gresTypes);
  if (!nodes.ok) return nodes;
  if (nodes.value.length === 0) return err("BadConfig", "slurm.conf has no NodeName lines");
  if (files.gresConf !== undefined) {
    const gres = readRecords(files.gresConf, "gres.conf");
    if (!gres.ok) return gres;
    checkGresConf(gres.value, nodes.value, notes);
  }
  const parts = importPartitions(partRecs, notes);
  const topo = unreadFile(files.topologyConf, "topology.conf", topologyReason, notes);
  const cgroupRecs = files.cgroupConf === undefined ? ok([]) : readRecords(files.cgroupConf, "cgroup.conf");
  if (!cgroupRecs.ok) return cgroupRecs;
  const cgroupKept = cgroupRecs.value.flatMap((r) => r.pairs.filter(([k]) => CGROUP_READ.has(k.toLowerCase())).map(([k, v]) => `${k}=${v}`));
  const cgroup = unreadFile(files.cgroupConf, "cgroup.conf", cgroupReason, notes, (k) => CGROUP_READ.has(k.toLowerCase()));
  if (!topo.ok) return topo;
  if (!cgroup.ok) return cgroup;
  const from = files.dir === undefined ? "slurm.conf" : `${files.dir}/slurm.conf`;
  const text = [
    `# spur.conf written by \`spur import-slurm\` from ${from} (slurm.conf syntax).`,
    "# Settings it could not carry over are listed in its report.",
    ...head, "", ...nodes.value.map((n) => n.text), "", ...parts,
    ...(topo.value.length > 0 ? ["", "# From topology.conf (not read by Spur yet):", ...topo.value.map((r) => `# ${recordText(r)}`)] : []),
    ...(cgroupKept.length > 0 ? ["", "# From cgroup.conf (what spurd enforces with cgroups):", ...cgroupKept] : []),
  ].join("\n");
  return ok({
    spurConf: `${text}\n`, notes: tidyNotes(notes, FILES), nodeCount: nodes.value.length, partitionCount: parts.length,
    gpuCount: nodes.value.reduce((s, n) => s + n.gpuCount, 0),
  });
}

/** The report: one line per note, grouped by file, then a one-line count. */
export function formatImportReport(r: ImportResult): string {
  const lines = r.notes.map((n) => {
    const where = n.line === 0 ? n.file : `${n.file}:${n.line}`;
    return `${where}: ${n.kind === "changed" ? "changed" : n.kind === "advice" ? "note" : "not carried over"}: ${n.key}=${n.value}: ${n.reason}\n`;
  });
  const dropped = r.notes.filter((n) => n.kind === "dropped").length;
  const summary = `imported ${r.nodeCount} nodes, ${r.partitionCount} partitions, ${r.gpuCount} GPUs; ${dropped} settings not carried over\n`;
  return `${lines.join("")}${summary}`;
}
