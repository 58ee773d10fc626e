/**
 * @module cli/scontrol-commands
 * scontrol's non-job commands over the CliPort: `show node|partition|config|
 * hostnames|hostlist|hostlistsorted|reservation`, `ping`, and `update
 * NodeName=...` / entity detection for `update`. Messages and exit status
 * follow Slurm's scontrol ("Node n9 not found" on stdout, exit 1).
 */
import type { CliPort } from "../net/ctl-port.ts";
import { expandHostlist, scontrolShowHostlist, scontrolShowHostlistSorted, scontrolShowHostnames } from "../compat/hostlist.ts";
import type { Result } from "../lib/result.ts";
import { messageOf, outcome, updateJob, type Outcome, type ViewFlags } from "./scontrol-jobs.ts";
import { formatConfig, pingLine } from "../compat/format/scontrol-show-config.ts";
import { formatNodeRecord } from "../compat/format/scontrol-show-node.ts";
import { formatPartitionRecord } from "../compat/format/scontrol-show-partition.ts";
import { keywordMatch, parseNodeUpdate } from "../compat/format/scontrol-update.ts";
import { formatRaftPing } from "../compat/format/scontrol-ping-raft.ts";

/** The "controller at host is UP/DOWN" line, from a ping. */
export async function pingStatus(port: CliPort): Promise<Outcome> {
  const all = port.ctl.pingAll === undefined ? undefined : await port.ctl.pingAll();
  if (all !== undefined && all.length > 1) {
    const { text, leaderUp } = formatRaftPing(all);
    return outcome(text, "", !leaderUp);
  }
  try {
    const p = await port.ctl.ping();
    return outcome(pingLine(p.controller, p.primary, true));
  } catch {
    return outcome(pingLine(port.env["SLURM_CONTROLLER"] ?? "localhost", true, false), "", true);
  }
}

export async function showNodes(port: CliPort, expr: string | undefined, v: ViewFlags): Promise<Outcome> {
  const names = expr === undefined ? undefined : expandHostlist(expr);
  let nodes;
  try {
    // Named nodes: the controller sends only those (an older one sends all; they are looked up below either way).
    nodes = (await port.ctl.listNodes(names?.ok ? { names: [...new Set(names.value)] } : {})).nodes;
  } catch (e) {
    return outcome("", `slurm_load_node error: ${messageOf(e)}\n`, true);
  }
  const o = { oneLiner: v.oneLiner, detail: v.detail > 0 };
  if (names === undefined) {
    return nodes.length === 0 ? outcome("No nodes in the system\n") : outcome(nodes.map((n) => formatNodeRecord(n, o)).join(""));
  }
  if (!names.ok) return outcome("", `unable to parse node list ${expr}\n`, true);
  const byName = new Map(nodes.map((n) => [n.name, n]));
  let out = "";
  let failed = false;
  for (const name of names.value) {
    const node = byName.get(name);
    if (node) out += formatNodeRecord(node, o);
    else {
      out += `Node ${name} not found\n`;
      failed = true;
    }
  }
  return outcome(out, "", failed);
}

export async function showPartitions(port: CliPort, name: string | undefined, v: ViewFlags): Promise<Outcome> {
  let parts;
  try {
    parts = (await port.ctl.listNodes({ withoutNodes: true })).partitions;
  } catch (e) {
    return outcome("", `slurm_load_partitions error: ${messageOf(e)}\n`, true);
  }
  const chosen = name === undefined ? parts.filter((p) => v.all === true || !p.hidden) : parts.filter((p) => p.name === name);
  if (chosen.length === 0) {
    return name === undefined ? outcome("No partitions in the system\n") : outcome(`Partition ${name} not found\n`, "", true);
  }
  return outcome(chosen.map((p) => formatPartitionRecord(p, v.oneLiner)).join(""));
}

export async function showConfig(port: CliPort, key: string | undefined): Promise<Outcome> {
  let entries: Record<string, string>;
  try {
    entries = (await port.ctl.getConfig()).entries;
  } catch (e) {
    return outcome("", `slurm_load_ctl_conf error: ${messageOf(e)}\n`, true);
  }
  if (key !== undefined) {
    const hits = Object.entries(entries).filter(([k]) => k.toLowerCase() === key.toLowerCase());
    return outcome(hits.map(([k, v]) => `${k.padEnd(23)} = ${v}\n`).join(""));
  }
  const status = await pingStatus(port);
  return outcome(formatConfig(entries, Math.floor(port.now()), status.stdout));
}

function hostOutput(r: Result<string>): Outcome {
  return r.ok ? outcome(r.value) : outcome("", `scontrol: error: ${r.error.message}\n`, true);
}

/** show hostnames|hostlist|hostlistsorted. */
export function showHosts(port: CliPort, which: "hostnames" | "hostlist" | "hostlistsorted", expr: string | undefined): Outcome {
  if (which === "hostnames") {
    const list = expr ?? port.env["SLURM_NODELIST"];
    // said on stderr, yet not a failure: Slurm exits 0
    if (list === undefined) return outcome("", "scontrol: error: host list is empty\n", false);
    return hostOutput(scontrolShowHostnames(list));
  }
  if (expr === undefined) return outcome("", "invalid encode argument\n", true);
  return hostOutput(which === "hostlist" ? scontrolShowHostlist(expr) : scontrolShowHostlistSorted(expr));
}

async function updateNode(port: CliPort, args: readonly string[]): Promise<Outcome> {
  const parsed = parseNodeUpdate(args);
  if (!parsed.ok) return outcome("", `${parsed.error.message}\n`, true);
  try {
    await port.ctl.updateNode(parsed.value);
    return outcome();
  } catch (e) {
    return outcome("", `slurm_update error: ${messageOf(e)}\n`, true);
  }
}

type Entity = "job" | "step" | "reservation" | "node" | "frontend" | "partition" | "debug";

/** Which entity an update names (Slurm checks job first, then step, ...). */
export function updateEntity(args: readonly string[]): Entity | undefined {
  const seen = new Set<Entity>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const eq = arg.indexOf("=");
    const tag = eq < 0 ? arg : arg.slice(0, eq);
    if (eq < 0) i++;
    if (keywordMatch(tag, "NodeName", 3)) seen.add("node");
    else if (keywordMatch(tag, "PartitionName", 3)) seen.add("partition");
    else if (keywordMatch(tag, "JobId", 3) || keywordMatch(tag, "JobName", 3)) seen.add("job");
    else if (keywordMatch(tag, "StepId", 4)) seen.add("step");
    else if (keywordMatch(tag, "FrontendName", 2)) seen.add("frontend");
    else if (keywordMatch(tag, "ReservationName", 3)) seen.add("reservation");
    else if (keywordMatch(tag, "SlurmctldDebug", 2)) seen.add("debug");
  }
  const order: Entity[] = ["job", "step", "reservation", "node", "frontend", "partition", "debug"];
  return order.find((e) => seen.has(e));
}

const NO_ENTITY =
  'No valid entity in update command\nInput line must include "NodeName", "PartitionName", "Reservation", "JobId", or "SlurmctldDebug"\n';

/** `scontrol update ...` (args without the keyword). */
export async function update(port: CliPort, args: readonly string[]): Promise<Outcome> {
  const entity = updateEntity(args);
  if (entity === undefined) return outcome("", NO_ENTITY, true);
  if (entity === "job") return updateJob(port, args);
  if (entity === "node") return updateNode(port, args);
  return outcome("", "slurm_update error: Requested operation is presently disabled\n", true);
}
