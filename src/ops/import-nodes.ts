/**
 * @module ops/import-nodes
 * slurm.conf NodeName lines (and gres.conf) → spur.conf NodeName lines, one per node. One
 * line per node because Spur numbers agent ports upward from Port= on a multi-node line,
 * while Slurm gives every node of the line the same port: writing each node keeps Slurm's
 * addresses and ports exactly. What Spur reads is sched/model/state.ts's nodesFrom().
 */
import { expandHostlist } from "../compat/hostlist.ts";
import { err, ok, type Result } from "../lib/result.ts";
import { countItems, firstKey, get, lineOf, splitTop, type ImportNote, type Rec } from "./conf-records.ts";
import { formatGresCount, formatGresItems, parseGresItem, type GresItem } from "../compat/gres-generic.ts";

export interface NodeOut {
  name: string;
  /** The spur.conf line. */
  text: string;
  gpuType: string;
  gpuCount: number;
  /** Counted GRES other than GPUs (Gres=nvme:2, names in GresTypes), carried as written. */
  generic: GresItem[];
}

/** Slurm key (lower case) → the spur.conf key it is written as. */
const SAME: Record<string, string> = {
  cpus: "CPUs", procs: "CPUs", sockets: "Sockets", corespersocket: "CoresPerSocket",
  threadspercore: "ThreadsPerCore", realmemory: "RealMemory", features: "Features", feature: "Features",
  weight: "Weight", tmpdisk: "TmpDisk",
};
/** Keys read here by hand (not copied). */
const HANDLED = new Set(["nodename", "nodeaddr", "nodehostname", "port", "gres", "state", "boards", "socketsperboard"]);

/** A note about key `k` of a slurm.conf record (at the line the key was written on). */
function confNote(rec: Rec, k: string, v: string, kind: ImportNote["kind"], reason: string): ImportNote {
  return { file: "slurm.conf", line: lineOf(rec, k), key: k, value: v, kind, reason };
}

const NOT_GPU = "not in GresTypes: Spur schedules GPUs and the counted GRES GresTypes names";

const quoted = (v: string): string => (/[\s#"]/.test(v) ? `"${v.replace(/"/g, "")}"` : v);

/** A hostlist-valued key: one value per node, or one value for all nodes of the line. */
function perNode(rec: Rec, key: string, count: number): Result<string[] | undefined> {
  const v = get(rec, key);
  if (v === undefined) return ok(undefined);
  const list = expandHostlist(v);
  if (!list.ok) return err("BadConfig", `slurm.conf line ${rec.line}: bad ${key}=${v}`);
  if (list.value.length === count) return ok(list.value);
  if (list.value.length === 1) return ok(Array.from({ length: count }, () => list.value[0] as string));
  return err("BadConfig", `slurm.conf line ${rec.line}: ${key}=${v} names ${list.value.length} hosts for ${count} nodes`);
}

/** Port= as a number, a range "17001-17004" or "[17001-17004]": one per node, or one for all. */
function ports(rec: Rec, count: number, slurmdPort: string): Result<string[]> {
  const raw = (get(rec, "Port") ?? slurmdPort).replace(/^\[(.*)\]$/, "$1");
  const list: string[] = [];
  for (const part of raw.split(",")) {
    const [a, b] = part.split("-").map(Number);
    if (a === undefined || !Number.isInteger(a)) return err("BadConfig", `slurm.conf line ${rec.line}: bad Port=${raw}`);
    for (let p = a; p <= (b ?? a); p++) list.push(String(p));
  }
  if (list.length === 1) return ok(Array.from({ length: count }, () => list[0] as string));
  if (list.length !== count) return err("BadConfig", `slurm.conf line ${rec.line}: Port=${raw} does not give one port per node`);
  return ok(list);
}

interface Gpu {
  type: string;
  count: number;
  /** Gres= text as Spur reads it ("gpu:mi300x:8"), or "". */
  text: string;
  /** The other GRES GresTypes names (nvme:2, bandwidth:lustre:4G), kept as counted resources. */
  generic: GresItem[];
}

/** Gres=gpu[:type][:count][(S:0-1)],... → Spur's single GPU entry and the counted GRES; others are noted. */
function gpuGres(rec: Rec, gresTypes: readonly string[], notes: ImportNote[]): Gpu {
  const gres = get(rec, "Gres") ?? "";
  const gpus: { type: string; count: number }[] = [];
  const generic: GresItem[] = [];
  for (const item of splitTop(gres)) {
    const parts = item.replace(/\(.*\)$/, "").split(":");
    if (parts[0] !== "gpu") {
      const counted = parseGresItem(item);
      if (counted !== undefined && gresTypes.includes(counted.name.toLowerCase())) generic.push(counted);
      else notes.push(confNote(rec, "Gres", item, "dropped", NOT_GPU));
      continue;
    }
    const last = parts[parts.length - 1] ?? "";
    const counted = parts.length > 1 && /^\d+$/.test(last);
    gpus.push({ type: (counted ? parts.slice(1, -1) : parts.slice(1)).join(":"), count: counted ? Number(last) : 1 });
  }
  const first = gpus[0];
  if (first === undefined) return { type: "", count: 0, text: "", generic };
  const count = gpus.reduce((s, g) => s + g.count, 0);
  if (gpus.length > 1) {
    notes.push(confNote(rec, "Gres", gres, "changed", `Spur knows one GPU model per node: ${count} GPUs of type "${first.type}"`));
  }
  return { type: first.type, count, text: first.type === "" ? `gpu:${count}` : `gpu:${first.type}:${count}`, generic };
}

const STATE_REASON = "Spur nodes start UNKNOWN until their agent registers (use scontrol update to drain or down them)";

/** The order node keys are written in. */
const ORDER = ["CPUs", "Sockets", "CoresPerSocket", "ThreadsPerCore", "RealMemory", "TmpDisk", "Weight", "Features"];

/** Keys copied as they are (in ORDER), or noted as dropped. */
function copiedKeys(rec: Rec, notes: ImportNote[]): string[] {
  const values = new Map<string, string>();
  const sockets = boardSockets(rec);
  if (sockets !== undefined) values.set("Sockets", sockets);
  for (const [k, v] of rec.pairs) {
    const lower = k.toLowerCase();
    const to = SAME[lower];
    if (to !== undefined) {
      if (!values.has(to)) values.set(to, v);
      if (to.toLowerCase() !== lower) notes.push(confNote(rec, k, v, "changed", `written as ${to}=`));
    } else if (lower === "state") {
      if (v.toUpperCase() !== "UNKNOWN") notes.push(confNote(rec, k, v, "dropped", STATE_REASON));
    } else if (!HANDLED.has(lower)) {
      notes.push(confNote(rec, k, v, "dropped", "not read by Spur"));
    }
  }
  return ORDER.filter((k) => values.has(k)).map((k) => `${k}=${quoted(values.get(k) ?? "")}`);
}

/** Sockets from Boards × SocketsPerBoard when Sockets itself is not given (Slurm's rule). */
function boardSockets(rec: Rec): string | undefined {
  if (get(rec, "Sockets") !== undefined || get(rec, "SocketsPerBoard") === undefined) return undefined;
  return String(Number(get(rec, "Boards") ?? "1") * Number(get(rec, "SocketsPerBoard")));
}

function nodeLines(rec: Rec, slurmdPort: string, gresTypes: readonly string[], notes: ImportNote[]): Result<NodeOut[]> {
  const names = expandHostlist(get(rec, "NodeName") ?? "");
  if (!names.ok || names.value.length === 0) return err("BadConfig", `slurm.conf line ${rec.line}: bad NodeName`);
  const n = names.value.length;
  const addrs = perNode(rec, "NodeAddr", n);
  const hosts = perNode(rec, "NodeHostname", n);
  const portList = ports(rec, n, slurmdPort);
  if (!addrs.ok) return addrs;
  if (!hosts.ok) return hosts;
  if (!portList.ok) return portList;
  const gpu = gpuGres(rec, gresTypes, notes);
  const rest = copiedKeys(rec, notes);
  const gresText = [gpu.text, formatGresItems(gpu.generic)].filter((t) => t !== "").join(",");
  if (gresText !== "") rest.push(`Gres=${gresText}`);
  return ok(names.value.map((name, i) => {
    const head = [`NodeName=${name}`];
    if (addrs.value !== undefined) head.push(`NodeAddr=${addrs.value[i]}`);
    if (hosts.value !== undefined) head.push(`NodeHostname=${hosts.value[i]}`);
    head.push(`Port=${portList.value[i]}`);
    return { name, text: [...head, ...rest].join(" "), gpuType: gpu.type, gpuCount: gpu.count, generic: gpu.generic };
  }));
}

/** All NodeName records (defaults already folded) → one spur.conf line per node. */
export function importNodes(recs: readonly Rec[], slurmdPort: string, notes: ImportNote[], gresTypes: readonly string[] = []): Result<NodeOut[]> {
  const out: NodeOut[] = [];
  const seen = new Set<string>();
  for (const rec of recs) {
    const made = nodeLines(rec, slurmdPort, gresTypes, notes);
    if (!made.ok) return made;
    for (const node of made.value) {
      if (seen.has(node.name)) return err("BadConfig", `slurm.conf line ${rec.line}: node ${node.name} is defined twice`);
      seen.add(node.name);
      out.push(node);
    }
  }
  return ok(out);
}

const DEVICE_REASON = "not read by Spur: a node's GPUs are numbered 0..N-1 from the count on its NodeName line";
const GRES_DEVICE_KEYS = new Set(["file", "cores", "cpus", "links", "flags", "multiplefiles"]);

/** gres.conf: cross-check the GPU counts against the NodeName lines; note what is not read. */
export function checkGresConf(recs: readonly Rec[], nodes: readonly NodeOut[], notes: ImportNote[]): void {
  const byName = new Map(nodes.map((n) => [n.name, n]));
  const note = (rec: Rec, key: string, value: string, reason: string): void => {
    notes.push({ file: "gres.conf", line: rec.line, key, value, kind: "dropped", reason });
  };
  for (const rec of recs) {
    const name = get(rec, "Name");
    if (name === undefined) {
      for (const [k, v] of rec.pairs) note(rec, k, v, "not read by Spur (GPU counts come from the NodeName lines)");
      continue;
    }
    for (const [k, v] of rec.pairs) {
      if (GRES_DEVICE_KEYS.has(k.toLowerCase())) note(rec, k, v, DEVICE_REASON);
    }
    if (name !== "gpu") {
      checkGenericCount(rec, name, byName, notes);
      continue;
    }
    const listed = firstKey(rec) === "nodename" ? expandHostlist(get(rec, "NodeName") ?? "") : ok([...byName.keys()]);
    const count = Number(get(rec, "Count") ?? (countItems(get(rec, "File") ?? "") || 1));
    for (const host of listed.ok ? listed.value : []) {
      const node = byName.get(host);
      if (node === undefined) continue;
      const type = get(rec, "Type") ?? "";
      if (node.gpuCount === 0) {
        note(rec, "NodeName", host, `gres.conf gives ${host} ${count} gpu but its NodeName line has no Gres=gpu (Slurm needs both): not carried over`);
      } else if (type !== "" && node.gpuType !== "" && type !== node.gpuType) {
        note(rec, "Type", type, `${host} is gpu:${node.gpuType} on its NodeName line; that is what Spur uses`);
      }
    }
  }
}

/**
 * A gres.conf line for a counted GRES (Name=nvme Count=2, Count= with K/M/G suffixes): Spur
 * counts what the NodeName line's Gres= says (slurm.conf is what slurmctld schedules by);
 * a node whose line lacks it, or gives another count, is noted.
 */
function checkGenericCount(rec: Rec, name: string, byName: ReadonlyMap<string, NodeOut>, notes: ImportNote[]): void {
  const listed = firstKey(rec) === "nodename" ? expandHostlist(get(rec, "NodeName") ?? "") : ok([...byName.keys()]);
  const type = get(rec, "Type") ?? "";
  const countText = get(rec, "Count") ?? "1";
  const count = parseGresItem(`${name}:${countText}`)?.count;
  for (const host of listed.ok ? listed.value : []) {
    const node = byName.get(host);
    if (node === undefined) continue;
    const have = node.generic.filter((g) => g.name === name.toLowerCase() && (type === "" || g.type === type)).reduce((s, g) => s + g.count, 0);
    const reason = have === 0
      ? `gres.conf gives ${host} ${name} but its NodeName line has no Gres=${name} (Slurm needs both): not carried over`
      : count !== have ? `${host} has ${name}${type ? `:${type}` : ""}:${formatGresCount(have)} on its NodeName line; that is what Spur counts` : "";
    if (reason !== "") notes.push({ file: "gres.conf", line: rec.line, key: "Count", value: countText, kind: "dropped", reason });
  }
}
