/**
 * @module sched/model/state
 * Builds the initial ClusterState from configuration (spur.conf, slurm.conf
 * syntax): controller settings, the configured nodes (UNKNOWN until their agent
 * registers) and the partitions over them. Configuration is not replicated
 * through the log: every replica reads the same file, as every Slurm daemon does.
 */
import { acctgTaskSec } from "../../compat/acctg-freq.ts";
import { JobTable } from "./job-table.ts";
import { gpuTypesOfText } from "../../compat/gpu-types.ts";
import type { ClusterState, ControllerConfig, NodeRecord, PartitionRecord } from "./types.ts";
import { emptyNodeInfo } from "./records.ts";
import { confGet, type ConfRecord, type ParsedConf } from "../../compat/conf/slurm-conf.ts";
import { expandHostlist } from "../../compat/hostlist.ts";
import { buildPartition, relinkNodePartitions } from "./partitions.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { parseTypedCount } from "../plan/request.ts";
import { formatGresItems, parseGresTypes, splitNodeGres, trackedGresNames } from "../../compat/gres-generic.ts";
import { parseLicenseConf } from "../../compat/licenses.ts";
import { schedConfigFrom } from "../plan/sched-config.ts";
import { newAcctState } from "../acct/types.ts";
import { preemptConfigFrom } from "../plan/preempt-config.ts";
import { newTriggerTable } from "./trigger-types.ts";

const num = (v: string | undefined, dflt: number): number => (v === undefined || v === "" ? dflt : Number(v));

/** EnforcePartLimits=NO|YES|ANY|ALL (YES is ANY, as in Slurm); unknown values keep Slurm's default NO. */
function enforcePartLimitsOf(v: string | undefined): "NO" | "ANY" | "ALL" {
  const u = (v ?? "").toUpperCase();
  return u === "ALL" ? "ALL" : u === "ANY" || u === "YES" ? "ANY" : "NO";
}

/** Plugin types that only a restart changes (apply-reconfigure.ts keeps them and says so). */
export const RESTART_TYPE_KEYS = ["authtype", "selecttype", "switchtype", "credtype", "burstbuffertype", "jobcontainertype"] as const;

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
    restartTypes: Object.fromEntries(RESTART_TYPE_KEYS.filter((k) => g.get(k) !== undefined).map((k) => [k, g.get(k) ?? ""])),
    gresTypes: parseGresTypes(g.get("grestypes")),
    ...(acctgTaskSec(g.get("jobacctgatherfrequency") ?? "") === undefined ? {} : { acctTaskFreqSec: acctgTaskSec(g.get("jobacctgatherfrequency") ?? "") }),
    ...(g.get("accountingstoreflags") === undefined ? {} : { accountingStoreFlags: (g.get("accountingstoreflags") ?? "").toLowerCase().split(",").map((s) => s.trim()).filter(Boolean) }),
    ...(g.get("reconfigflags") === undefined ? {} : { reconfigFlags: (g.get("reconfigflags") ?? "").toLowerCase().split(",").map((s) => s.trim()).filter(Boolean) }),
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
    const p = partitionFrom(rec, nodes);
    if (!p.ok) return p;
    partitions.push(p.value);
  }
  relinkNodePartitions(partitions, nodes);
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
      // Procs= and Feature= are the older names slurm.conf still takes for CPUs= and Features=. With
      // both on one line, 22.05 keeps CPUs= but Feature= (scratch slurmctld: CPUs=4 Procs=8 gives 4,
      // Features=x Feature=y gives y, in either order).
      const cpus = num(confGet(rec, "CPUs") ?? confGet(rec, "Procs"), cores > 0 ? sockets * cores * threads : 1);
      Object.assign(info, {
        addr: confGet(rec, "NodeAddr") ?? name, hostname: confGet(rec, "NodeHostname") ?? name,
        port: basePort > 0 ? basePort + (names.value.length > 1 ? i : 0) : 0,
        cpus, sockets, coresPerSocket: cores > 0 ? cores : Math.max(1, cpus / sockets / threads), threadsPerCore: threads,
        realMemoryMib: num(confGet(rec, "RealMemory"), 1), gres, features: confGet(rec, "Feature") ?? confGet(rec, "Features") ?? "",
        weight: num(confGet(rec, "Weight"), 1), tmpDiskMib: num(confGet(rec, "TmpDisk"), 0),
        gpuModel: gpu?.type ?? "", gpuCount: gpu?.count ?? 0,
        ...(generic !== "" ? { gresGeneric: generic } : {}),
        ...(generic !== "" && tracked.length > 0 ? { gresTracked: tracked.join(",") } : {}),
      });
      return { info, gpuByJob: new Map(), drain: false, down: false };
    }),
  );
}

function partitionFrom(rec: ConfRecord, nodes: Map<string, NodeRecord>): Result<PartitionRecord> {
  const built = buildPartition(confGet(rec, "PartitionName") ?? "", (key) => confGet(rec, key), nodes);
  if (built.ok) return built;
  const why = built.error.code === "UnknownNode" ? `unknown node ${built.error.message}` : built.error.code === "BadTime" ? "bad time limit" : built.error.code === "BadNodes" ? "bad Nodes" : `bad value ${built.error.message}`;
  return err("BadConfig", `spur.conf line ${rec.line}: ${why}`);
}
