/**
 * @module ops/import-partitions
 * slurm.conf PartitionName lines → spur.conf PartitionName lines with the keys Spur reads
 * (sched/model/state.ts partitionFrom), old spellings (Shared=, Priority=) translated, and
 * a note for every other key.
 */
import { get, lineOf, type ImportNote, type Rec } from "./conf-records.ts";

/** Partition keys Spur reads, in the order they are written. */
const KEYS = ["Nodes", "Default", "MaxTime", "DefaultTime", "State", "MaxNodes", "MinNodes", "PriorityTier",
  "PriorityJobFactor", "OverSubscribe", "AllowGroups", "AllowAccounts", "AllowQos", "Hidden", "GraceTime", "RootOnly"];

/** Old Slurm spellings → the keys they set. */
const ALIASES: Record<string, string[]> = {
  shared: ["OverSubscribe"],
  priority: ["PriorityTier", "PriorityJobFactor"],
};

const REASONS: Record<string, string> = {
  defmempercpu: "Spur reads DefMemPerCPU only cluster-wide",
  defmempernode: "Spur reads DefMemPerCPU only cluster-wide",
  denyaccounts: "Spur reads AllowAccounts only",
  denyqos: "Spur reads AllowQos only",
};

const quoted = (v: string): string => (/[\s#"]/.test(v) ? `"${v.replace(/"/g, "")}"` : v);

function partitionLine(rec: Rec, notes: ImportNote[]): string {
  const values = new Map<string, string>();
  for (const [k, v] of rec.pairs.slice(1)) {
    const lower = k.toLowerCase();
    const key = KEYS.find((x) => x.toLowerCase() === lower);
    const aliased = ALIASES[lower];
    if (key !== undefined) values.set(key, v);
    else if (aliased !== undefined) {
      for (const to of aliased) if (get(rec, to) === undefined) values.set(to, v);
      const reason = `written as ${aliased.map((a) => `${a}=`).join(" ")}`;
      notes.push({ file: "slurm.conf", line: lineOf(rec, k), key: k, value: v, kind: "changed", reason });
    } else {
      notes.push({ file: "slurm.conf", line: lineOf(rec, k), key: k, value: v, kind: "dropped", reason: REASONS[lower] ?? "not read by Spur" });
    }
  }
  const name = rec.pairs[0]?.[1] ?? "";
  return [`PartitionName=${name}`, ...KEYS.filter((k) => values.has(k)).map((k) => `${k}=${quoted(values.get(k) ?? "")}`)].join(" ");
}

/** All PartitionName records (defaults folded) → spur.conf lines. */
export function importPartitions(recs: readonly Rec[], notes: ImportNote[]): string[] {
  return recs.map((r) => partitionLine(r, notes));
}
