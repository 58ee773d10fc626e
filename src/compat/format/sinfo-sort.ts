/**
 * @module format/sinfo-sort
 * sinfo's line order: one stable sort per key of the spec, last key first
 * ("#P,-t" by default: partitions in config order, busier states first;
 * "N" with -N). "#" before P means config order instead of by name.
 * Ties keep the build order (partition by partition, node-table order).
 */
import { naturalCompare } from "../hostlist.ts";
import { nodeStateWord } from "./sinfo-states.ts";
import type { Node, SinfoRecord } from "./sinfo-records.ts";

type Compare = (a: SinfoRecord, b: SinfoRecord, partOrder: boolean) => number;

const cmp = (a: number | string, b: number | string): number => (a < b ? -1 : a > b ? 1 : 0);
const minOf = (r: SinfoRecord, get: (n: Node) => number): number =>
  r.nodes.length === 0 ? 0 : Math.min(...r.nodes.map(get));
const byMin = (get: (n: Node) => number): Compare => (a, b) => cmp(minOf(a, get), minOf(b, get));
const byFirst = (get: (n: Node) => string): Compare => (a, b) => cmp(a.first ? get(a.first) : "", b.first ? get(b.first) : "");
const byPart = (get: (r: SinfoRecord) => number | string): Compare => (a, b) => cmp(get(a), get(b));

const AVAIL_VALUE: Readonly<Record<string, number>> = { INACTIVE: 0, DOWN: 1, DRAIN: 2, UP: 3 };
const INFINITE = 0xffffffff;

function firstName(r: SinfoRecord): string {
  return [...r.nodes.map((n) => n.name)].sort(naturalCompare)[0] ?? "";
}

/** The part after the last "@" of a reason, else the reason (Slurm's reason-time sort). */
const reasonTime = (n: Node): string => n.reason.slice(n.reason.lastIndexOf("@") + 1);

const SORT_KEYS: Readonly<Record<string, Compare>> = {
  a: byPart((r) => AVAIL_VALUE[r.part.state.toUpperCase()] ?? 0),
  A: (a, b) => cmp(a.nodesAlloc, b.nodesAlloc),
  c: byMin((n) => n.cpus),
  d: byMin((n) => n.tmpDiskMib),
  D: (a, b) => cmp(a.nodes.length, b.nodes.length),
  E: byFirst(reasonTime),
  f: byFirst((n) => n.features),
  F: (a, b) => cmp(a.nodesAlloc, b.nodesAlloc),
  g: byPart((r) => r.part.allowGroups),
  h: byPart((r) => r.part.oversubscribe),
  l: byPart((r) => r.part.maxTimeMin ?? INFINITE),
  m: byMin((n) => n.realMemoryMib),
  M: () => 0,
  n: byFirst((n) => n.hostname),
  N: (a, b) => naturalCompare(firstName(a), firstName(b)),
  o: byFirst((n) => n.addr),
  O: byMin((n) => n.cpuLoad),
  p: byPart((r) => r.part.priorityTier),
  P: (a, b, partOrder) => (partOrder ? cmp(a.partIndex, b.partIndex) : cmp(a.part.name, b.part.name)),
  r: byPart((r) => (r.part.rootOnly ? 1 : 0)),
  R: byFirst((n) => n.reason),
  s: byPart((r) => r.part.maxNodes ?? INFINITE),
  t: (a, b) => cmp(a.first ? nodeStateWord(a.first) : 0, b.first ? nodeStateWord(b.first) : 0),
  T: (a, b) => cmp(a.first ? nodeStateWord(a.first) : 0, b.first ? nodeStateWord(b.first) : 0),
  w: byMin((n) => n.weight),
  X: byMin((n) => n.sockets),
  Y: byMin((n) => n.coresPerSocket),
  Z: byMin((n) => n.threadsPerCore),
  z: (a, b) =>
    cmp(minOf(a, (n) => n.sockets), minOf(b, (n) => n.sockets)) ||
    cmp(minOf(a, (n) => n.coresPerSocket), minOf(b, (n) => n.coresPerSocket)) ||
    cmp(minOf(a, (n) => n.threadsPerCore), minOf(b, (n) => n.threadsPerCore)),
};

/** Sort lines by a spec such as "#P,-t"; unknown letters are ignored, as in Slurm. */
export function sortRecords(records: readonly SinfoRecord[], spec: string): SinfoRecord[] {
  const out = [...records];
  for (let i = spec.length - 1; i >= 0; i--) {
    const ch = spec[i] ?? "";
    const compare = SORT_KEYS[ch];
    if (compare === undefined) continue;
    const reverse = i > 0 && spec[i - 1] === "-";
    const partOrder = i > 0 && spec[i - 1] === "#";
    out.sort((a, b) => (reverse ? -1 : 1) * compare(a, b, partOrder));
  }
  return out;
}
