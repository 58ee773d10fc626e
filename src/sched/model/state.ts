/**
 * @module sched/model/state
 * Builds the initial ClusterState from configuration (spur.conf, slurm.conf
 * syntax): controller settings, the configured nodes (UNKNOWN until their agent
 * registers) and the partitions over them. Configuration is not replicated
 * through the log: every replica reads the same file, as every Slurm daemon does.
 */
import { JobTable } from "./job-table.ts";
import { gpuTypesOfText } from "../plan/gpu-types.ts";
import type { ClusterState, ControllerConfig, NodeRecord, PartitionRecord } from "./types.ts";
import { emptyNodeInfo } from "./records.ts";
import { confGet, type ConfRecord, type ParsedConf } from "../../compat/conf/slurm-conf.ts";
import { compressHostlist, expandHostlist } from "../../compat/hostlist.ts";
import { parseTimeLimit } from "../../compat/parse-time.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { parseTypedCount } from "../plan/request.ts";
import { formatGresItems, gresTresText, parseGresItems, parseGresTypes, splitNodeGres, trackedGresNames } from "../../compat/gres-generic.ts";
import { tresText } from "./tres.ts";
import { parseLicenseConf } from "../../compat/licenses.ts";
import { schedConfigFrom } from "../plan/sched-config.ts";
import { newAcctState } from "../acct/types.ts";
import { preemptConfigFrom } from "../plan/preempt.ts";
import { newTriggerTable } from "./trigger-types.ts";

const num = (v: string | undefined, dflt: number): number => (v === undefined || v === "" ? dflt : Number(v));

/** EnforcePartLimits=NO|YES|ANY|ALL (YES is ANY, as in Slurm); unknown values keep Slurm's default NO. */
function enforcePartLimitsOf(v: string | undefined): "NO" | "ANY" | "ALL" {
  const u = (v ?? "").toUpperCase();
  return u === "ALL" ? "ALL" : u === "ANY" || u === "YES" ? "ANY" : "NO";
}

export function controllerConfig(conf: ParsedConf): ControllerConfig {
  const g = conf.globals;
  return {
    clusterName: g.get("clustername") ?? "spur",
    defMemPerCpuMiB: num(g.get("defmempercpu"), 0),
    minJobAgeSec: num(g.get("minjobage"), 300),
    killWaitSec: num(g.get("killwait"), 30),
    maxArraySize: num(g.get("maxarraysize"), 1001),
    maxJobCount: num(g.get("maxjobcount"), 10_000),
    firstJobId: num(g.get("firstjobid"), 1),
    slurmdTimeoutSec: num(g.get("slurmdtimeout"), 300),
    enforcePartLimits: enforcePartLimitsOf(g.get("enforcepartlimits")),
    operators: (g.get("spuroperators") ?? "").split(",").filter(Boolean),
    sched: schedConfigFrom(g),
    preempt: preemptConfigFrom(g),
    priorityFlags: (g.get("priorityflags") ?? "").toLowerCase().split(",").map((s) => s.trim()).filter(Boolean),
    acctEnforce: (g.get("accountingstorageenforce") ?? "").toLowerCase().split(",").map((s) => s.trim()).filter(Boolean),
    accountingTres: (g.get("accountingstoragetres") ?? "").toLowerCase().split(",").map((s) => s.trim()).filter(Boolean),
    gresTypes: parseGresTypes(g.get("grestypes")),
  };
}

export function createState(conf: ParsedConf): Result<ClusterState> {
  const config = controllerConfig(conf);
  const nodes = new Map<string, NodeRecord>();
  for (const rec of conf.nodes) {
    const made = nodesFrom(rec, config.gresTypes ?? [], trackedGresNames(config.accountingTres));
    if (!made.ok) return made;
    for (const n of made.value) nodes.set(n.info.name, n);
  }
  const partitions: PartitionRecord[] = [];
  for (const rec of conf.partitions) {
    const p = partitionFrom(rec, nodes, trackedGresNames(config.accountingTres));
    if (!p.ok) return p;
    partitions.push(p.value);
  }
  for (const p of partitions) for (const n of p.nodeNames) nodes.get(n)?.info.partitions.push(p.info.name);
  const licenses = parseLicenseConf(conf.globals.get("licenses") ?? "");
  if (!licenses.ok) return err("BadConfig", `spur.conf: ${licenses.error.message}`);
  return ok({
    config, nextJobId: config.firstJobId, nextSequence: 0, jobs: new JobTable(), nodes, partitions, appliedIndex: 0,
    acct: newAcctState(config.clusterName), reservations: new Map(), triggers: newTriggerTable(),
    ...(licenses.value.size > 0 ? { licenses: licenses.value } : {}),
  });
}

function nodesFrom(rec: ConfRecord, gresTypes: readonly string[], tracked: readonly string[]): Result<NodeRecord[]> {
  const names = expandHostlist(confGet(rec, "NodeName") ?? "");
  if (!names.ok) return err("BadConfig", `spur.conf line ${rec.line}: bad NodeName`);
  const basePort = num(confGet(rec, "Port"), 0);
  // Gres=: the GPU items stay in `gres` (the GPU path's text); the others are counted GRES, each named in GresTypes.
  const split = splitNodeGres(confGet(rec, "Gres") ?? "", gresTypes);
  if (!split.ok) return err("BadConfig", `spur.conf line ${rec.line}: ${split.error.message}`);
  const gres = split.value.gpuText;
  const generic = formatGresItems(split.value.generic);
  // Several GPU types (Gres=gpu:1g.10gb:3,gpu:h100:7): the count is their sum, the model the first type.
  const types = (gres.match(/(^|,)gpu[:,]/g) ?? []).length > 1 ? gpuTypesOfText(gres) : undefined;
  const gpu = types !== undefined ? { type: types[0] ?? "", count: types.length } : gres.startsWith("gpu") ? parseTypedCount(gres.replace(/^gpu:?/, "")) : undefined;
  return ok(
    names.value.map((name, i) => {
      const info = emptyNodeInfo(name);
      const sockets = num(confGet(rec, "Sockets"), 1);
      const cores = num(confGet(rec, "CoresPerSocket"), 0);
      const threads = num(confGet(rec, "ThreadsPerCore"), 1);
      const cpus = num(confGet(rec, "CPUs"), cores > 0 ? sockets * cores * threads : 1);
      Object.assign(info, {
        addr: confGet(rec, "NodeAddr") ?? name, hostname: confGet(rec, "NodeHostname") ?? name,
        port: basePort > 0 ? basePort + (names.value.length > 1 ? i : 0) : 0,
        cpus, sockets, coresPerSocket: cores > 0 ? cores : Math.max(1, cpus / sockets / threads), threadsPerCore: threads,
        realMemoryMib: num(confGet(rec, "RealMemory"), 1), gres, features: confGet(rec, "Features") ?? "",
        weight: num(confGet(rec, "Weight"), 1), tmpDiskMib: num(confGet(rec, "TmpDisk"), 0),
        gpuModel: gpu?.type ?? "", gpuCount: gpu?.count ?? 0,
        ...(generic !== "" ? { gresGeneric: generic } : {}),
        ...(generic !== "" && tracked.length > 0 ? { gresTracked: tracked.join(",") } : {}),
      });
      return { info, gpuByJob: new Map(), drain: false, down: false };
    }),
  );
}

function partitionFrom(rec: ConfRecord, nodes: Map<string, NodeRecord>, tracked: readonly string[]): Result<PartitionRecord> {
  const name = confGet(rec, "PartitionName") ?? "";
  const nodesText = confGet(rec, "Nodes") ?? "";
  const expanded = nodesText.toUpperCase() === "ALL" ? { ok: true as const, value: [...nodes.keys()] } : expandHostlist(nodesText);
  if (!expanded.ok) return err("BadConfig", `spur.conf line ${rec.line}: bad Nodes`);
  for (const n of expanded.value) if (!nodes.has(n)) return err("BadConfig", `spur.conf line ${rec.line}: unknown node ${n}`);
  const limit = (key: string): Result<number | undefined> => {
    const v = confGet(rec, key);
    if (v === undefined || ["INFINITE", "UNLIMITED"].includes(v.toUpperCase())) return ok(undefined);
    return parseTimeLimit(v);
  };
  const maxTime = limit("MaxTime");
  const defTime = limit("DefaultTime");
  if (!maxTime.ok || !defTime.ok) return err("BadConfig", `spur.conf line ${rec.line}: bad time limit`);
  const members = expanded.value.map((n) => nodes.get(n)).filter((n) => n !== undefined);
  const cpus = members.reduce((s, n) => s + n.info.cpus, 0);
  const mem = members.reduce((s, n) => s + n.info.realMemoryMib, 0);
  const gpus = members.reduce((s, n) => s + n.info.gpuCount, 0);
  const maxNodes = confGet(rec, "MaxNodes");
  return ok({
    nodeNames: expanded.value,
    info: {
      name, nodes: compressHostlist(expanded.value), isDefault: (confGet(rec, "Default") ?? "NO").toUpperCase() === "YES",
      state: (confGet(rec, "State") ?? "UP").toUpperCase(), maxTimeMin: maxTime.value, defaultTimeMin: defTime.value,
      maxNodes: maxNodes === undefined || maxNodes.toUpperCase() === "UNLIMITED" ? undefined : Number(maxNodes),
      minNodes: num(confGet(rec, "MinNodes"), 0), priorityTier: num(confGet(rec, "PriorityTier"), 1),
      priorityJobFactor: num(confGet(rec, "PriorityJobFactor"), 1), totalCpus: cpus, totalNodes: members.length,
      tres: tresText(cpus, mem, members.length, gpus) + gresTresText(members.flatMap((n) => parseGresItems(n.info.gresGeneric ?? "")), tracked),
      oversubscribe: (confGet(rec, "OverSubscribe") ?? "NO").toUpperCase(),
      rootOnly: (confGet(rec, "RootOnly") ?? "NO").toUpperCase() === "YES", allowGroups: confGet(rec, "AllowGroups") ?? "ALL",
      allowAccounts: confGet(rec, "AllowAccounts") ?? "ALL", allowQos: confGet(rec, "AllowQos") ?? "ALL",
      hidden: (confGet(rec, "Hidden") ?? "NO").toUpperCase() === "YES", graceTimeSec: num(confGet(rec, "GraceTime"), 0),
      defMemPerCpuMib: undefined,
    },
  });
}
