/**
 * @module compat/conf/topology-conf
 * Reads Slurm's topology.conf: the switch tree (`SwitchName=s1 Nodes=n[1-2]`,
 * `SwitchName=top Switches=s[1-2]`) of topology/tree, and the scale-up blocks
 * (`BlockName=b1 Nodes=n[1-4]`, `BlockSizes=`) of topology/block. Pure: the
 * caller reads the file. Every switch ends up with its level (leaves 0) and the
 * full set of nodes below it, which is all placement needs.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { expandHostlist } from "../hostlist.ts";
import { joinContinuations, parseConf, confGet } from "./slurm-conf.ts";

export interface SwitchGroup {
  name: string;
  /** 0 for a leaf switch (it lists Nodes=), parent = 1 + highest child level; blocks are 0. */
  level: number;
  /** Every node below this switch, in the order first declared. */
  nodes: string[];
  kind: "switch" | "block";
}

export interface NetworkTopology {
  /** Leaves first (level ascending), then declaration order. */
  groups: SwitchGroup[];
  /** Leaf switch (or block) of each node. */
  leafOf: Map<string, string>;
}

interface RawSwitch {
  name: string;
  nodes: string[];
  children: string[];
  kind: "switch" | "block";
  line: number;
}

const SWITCH_DEPTH_MAX = 16;

export function parseTopologyConf(text: string): Result<NetworkTopology> {
  const raws: RawSwitch[] = [];
  for (const { text: raw, line } of joinContinuations(text)) {
    const parsed = parseConf(raw);
    if (!parsed.ok) return err("BadConfig", `topology.conf line ${line}: ${parsed.error.message.replace(/^spur\.conf line \d+: /, "")}`);
    const pairs = [...parsed.value.globals.entries()];
    if (pairs.length === 0) continue;
    const rec = { pairs, line };
    const switchName = confGet(rec, "SwitchName");
    const blockName = confGet(rec, "BlockName");
    if (switchName === undefined && blockName === undefined) {
      if (confGet(rec, "BlockSizes") !== undefined) continue;
      return err("BadConfig", `topology.conf line ${line}: expected SwitchName= or BlockName=`);
    }
    const nodes = expand(confGet(rec, "Nodes"));
    const children = expand(confGet(rec, "Switches"));
    if (nodes === undefined || children === undefined) return err("BadConfig", `topology.conf line ${line}: bad host list`);
    raws.push({ name: switchName ?? blockName ?? "", nodes, children, kind: switchName !== undefined ? "switch" : "block", line });
  }
  return resolveTree(raws);
}

function expand(text: string | undefined): string[] | undefined {
  if (text === undefined || text === "") return [];
  const r = expandHostlist(text);
  return r.ok ? r.value : undefined;
}

function resolveTree(raws: RawSwitch[]): Result<NetworkTopology> {
  const byName = new Map(raws.map((r) => [r.name, r] as const));
  for (const r of raws) {
    for (const c of r.children) if (!byName.has(c)) return err("BadConfig", `topology.conf line ${r.line}: unknown switch ${c}`);
  }
  const memo = new Map<string, { level: number; nodes: string[] }>();
  const visit = (r: RawSwitch, depth: number): { level: number; nodes: string[] } | undefined => {
    const seen = memo.get(r.name);
    if (seen !== undefined) return seen;
    if (depth > SWITCH_DEPTH_MAX) return undefined;
    let level = 0;
    const nodes = [...r.nodes];
    for (const c of r.children) {
      const sub = visit(byName.get(c)!, depth + 1);
      if (sub === undefined) return undefined;
      level = Math.max(level, sub.level + 1);
      for (const n of sub.nodes) if (!nodes.includes(n)) nodes.push(n);
    }
    const out = { level, nodes };
    memo.set(r.name, out);
    return out;
  };
  const groups: SwitchGroup[] = [];
  const leafOf = new Map<string, string>();
  for (const r of raws) {
    const v = visit(r, 0);
    if (v === undefined) return err("BadConfig", `topology.conf line ${r.line}: switch loop or tree deeper than ${SWITCH_DEPTH_MAX}`);
    groups.push({ name: r.name, level: v.level, nodes: v.nodes, kind: r.kind });
    for (const n of r.nodes) if (!leafOf.has(n)) leafOf.set(n, r.name);
  }
  groups.sort((a, b) => a.level - b.level);
  return ok({ groups, leafOf });
}
