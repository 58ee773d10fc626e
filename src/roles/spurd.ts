/**
 * @module roles/spurd
 * The node agent daemon. `spurd -N NAME` runs as node NAME from spur.conf (its
 * CPUs, memory and port come from the NodeName line; its GPUs from discovery or
 * gres.conf when present, see node-gpus-read.ts), serves the Agent RPC, and
 * registers with the controller.
 */
import { acctgTaskSec } from "../compat/acctg-freq.ts";
import { hostCpuTopology } from "../devices/cpu-topology.ts";
import { readOsCpus } from "../devices/read-sysfs.ts";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostname, machine, release, type, version } from "node:os";
import { parseFlagsOrThrow } from "../lib/flags.ts";
import { writeOutput } from "./cli/stdio.ts";
import { confPath, controllerUrl, controllerUrls, optionalClusterSecret, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { createAgent } from "../agent/agent.ts";
import { createContainment } from "../agent/containment.ts";
import { DEFAULT_CDI_DIRS } from "../agent/container/devices.ts";
import { sweepContainers } from "../agent/container/sweep.ts";
import { listJobIds } from "../agent/spool.ts";
import { removeSpurRoots } from "../agent/cgroup/detect.ts";
import { agentRoutes } from "../agent/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";
import { configureClientTls, listenerTls } from "../net/tls.ts";
import { serverAuth, startLocalAuthd } from "./auth-setup.ts";
import { credAuthExtras } from "./ctld-auth.ts";
import { nodeAudience } from "../net/auth/types.ts";
import { selfExec } from "./self-exec.ts";
import { PROTOCOL_VERSION, SPUR_VERSION } from "../version.ts";
import { renderMetrics } from "../net/metrics-text.ts";
import { createRpcMetrics } from "../net/rpc-metrics.ts";
import { agentMetrics } from "../agent/metrics.ts";
import { readAgentSnapshot } from "../agent/metrics-read.ts";
import { createOverlayAgent } from "../agent/overlay.ts";
import { confGet, type ParsedConf } from "../compat/conf/slurm-conf.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import type { ConsolaInstance } from "consola/core";
import { readNodeGpus } from "./node-gpus-read.ts";
import { loadConstraints } from "../agent/cgroup/read-cgroup-conf.ts";
import { containmentText } from "../agent/cgroup/cgroup-conf.ts";
import { readProcessFacts } from "../net/metrics-process.ts";


const USAGE = `Usage: spurd [options]
  -N, --node NAME        run as node NAME of spur.conf (default: this host's name)
  -f, --conf FILE        spur.conf (default: $SPUR_CONF or $SLURM_CONF, else /etc/spur/spur.conf)
  --devices-root DIR     discover GPUs from a sysfs snapshot under DIR
  --spool DIR            spool root (default: SlurmdSpoolDir)
  --discover [--json] [--root DIR]   print this node's GPUs and job containment, then exit
`;

const SPEC = {
  values: [["--conf", "-f"], ["--node", "-N"], ["--devices-root"], ["--spool"]],
  booleans: [["--help", "-h"]],
} as const;

export async function main(argv: string[]): Promise<number> {
  // A mode of its own with its own flags (devices-cli.ts parses them).
  if (argv.includes("--discover")) return (await import("./devices-cli.ts")).discoverMain(argv);
  const flags = parseFlagsOrThrow("spurd", argv, SPEC);
  if (flags.on["--help"]) {
    await writeOutput("stdout", USAGE);
    return 0;
  }
  const path = confPath(flags.values["--conf"]);
  const conf = readConf(path);
  configureClientTls(conf.globals);
  const name = flags.values["--node"] ?? hostname();
  const logger = createLogger("spurd").withTag(name);
  const built = createState(conf);
  if (!built.ok) throw new Error(built.error.message);
  const configured = built.value.nodes.get(name);
  if (configured === undefined) {
    process.stderr.write(`spurd: fatal: node ${name} is not in ${path}\n`);
    return 1;
  }
  const gpus = await readNodeGpus(path, name, configured.info, flags.values["--devices-root"]);
  for (const warning of gpus.warnings) logger.warn({ message: warning, node: name });
  const spoolRoot = flags.values["--spool"] ?? conf.globals.get("slurmdspooldir") ?? "/var/spool/spur/d";
  const spool = join(spoolRoot.replace("%n", name), name);
  mkdirSync(spool, { recursive: true });
  const constraints = loadConstraints(path, conf.globals);
  if (!constraints.ok) {
    process.stderr.write(`spurd: fatal: ${constraints.error.message}\n`);
    return 1;
  }
  const containment = createContainment({
    spool, nodeName: name, nodeCpus: configured.info.cpus, confPath: path, logger, constraints: constraints.value, cpuTopology: hostCpuTopology(configured.info, readOsCpus("/")),
    plugin: conf.globals.get("cgroupplugin") ?? "autodetect", gpuFiles: gpus.gpuFiles, gpuCpus: gpus.gpuCpus,
  });
  // Before serving: cgroups of steps and jobs that ended while no spurd was watching.
  await containment.sweep();
  await sweepContainers(spool, new Set(listJobIds(spool)));
  const node = {
    // As slurmd reports itself: NodeHostname from the config (default: the node name), the
    // machine name (x86_64, not Node's x64) and uname's sysname, release and version.
    ...configured.info, hostname: configured.info.hostname || name,
    arch: machine(), os: `${type()} ${release()} ${version()}`, version: SPUR_VERSION,
    bootTime: Date.now() / 1000, partitions: [], cgroup: containmentText(containment.support.summary, constraints.value),
    gpuCount: gpus.gpuCount, gpuModel: gpus.gpuModel, gres: gpus.gres || configured.info.gres, gpuTopology: gpus.gpuTopology,
    // Each GPU's local CPUs (gres.conf Cores= or discovery): the controller derives the GPU's socket from them.
    ...(gpus.gpuCpus.some((c) => c !== "") ? { gpuCpus: gpus.gpuCpus.join(";") } : {}),
  };
  logger.info({ message: "gpus", node: name, source: gpus.source, count: gpus.gpuCount, gres: gpus.gres, topology: gpus.gpuTopology !== "" });
  // The cluster secret (when spur.conf names one) signs every call to the controllers.
  const secret = optionalClusterSecret(conf, path);
  const agent = createAgent({
    node, gpuFiles: gpus.gpuFiles, gpuCpus: gpus.gpuCpus, gpuUniqueIds: gpus.gpuUniqueIds, spool, controllerUrl: controllerUrl(conf), controllerUrls: controllerUrls(conf, path), confPath: path,
    ...(secret === undefined ? {} : { clusterSecret: secret }), logger, selfExec: selfExec(), containment,
    sampleSec: acctFrequencySec(conf.globals.get("jobacctgatherfrequency")),
    container: {
      runtime: conf.globals.get("containerruntime") ?? "",
      cdiSpecDirs: (conf.globals.get("cdispecdirs") ?? DEFAULT_CDI_DIRS.join(",")).split(",").filter((d) => d !== ""),
    },
    scripts: {
      prolog: conf.globals.get("prolog") ?? "", epilog: conf.globals.get("epilog") ?? "",
      taskProlog: conf.globals.get("taskprolog") ?? "", taskEpilog: conf.globals.get("taskepilog") ?? "",
      timeoutSec: Number(conf.globals.get("prologepilogtimeout") ?? 0) || 0,
    },
  });
  const rpc = createRpcMetrics();
  const startedAt = Date.now() / 1000;
  const metrics = () => renderMetrics(agentMetrics({
    node, jobs: readAgentSnapshot(spool), rpc: rpc.families(), version: SPUR_VERSION, protocol: PROTOCOL_VERSION, startedAt,
    process: readProcessFacts(startedAt),
  }));
  // AuthType=auth/spur: srun, sattach, sbcast on other hosts are identified by their credentials,
  // and this node vouches for its own callers (its jobs' srun, a user logged in here)
  const auth = serverAuth(conf, path, nodeAudience(name), logger) ?? credAuthExtras(conf.globals, logger.withTag("auth"));
  const server = await startRpcServer(agentRoutes(agent, name, containment.support.summary), { host: node.addr || "127.0.0.1", port: node.port }, {}, {
    metrics, rpc, tls: listenerTls(conf.globals, node.addr || "127.0.0.1", "spurd"),
    ...(secret === undefined ? {} : { clusterSecret: secret }), ...auth,
  });
  const authd = startLocalAuthd(conf, path, name, logger);
  logger.info({ message: "listening", node: name, port: server.port, spool });
  const stop = agent.start();
  const stopOverlay = startOverlay(conf, name, controllerUrl(conf), logger, secret);
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  stopOverlay();
  authd?.stop();
  await server.close();
  await containment.sweep(); // srun steps die with their streams; batch jobs keep running under stepd
  await sweepContainers(spool, new Set(listJobIds(spool)));
  removeSpurRoots(containment.support); // only when empty: jobs of a detached stepd keep theirs
  return 0;
}

/**
 * WireGuard peer distribution, when spur.conf names this node's overlay config:
 * OverlayConf=/etc/spur/wg/%n.conf, OverlayInterface=spur0 (default; %n too, for hosts that
 * share one /var/run/wireguard such as network namespaces on one machine), and the endpoint
 * others dial as OverlayEndpoint=host:port on the node's NodeName line ("" = behind NAT).
 */
function startOverlay(conf: ParsedConf, name: string, ctlUrl: string, logger: ConsolaInstance, clusterSecret: string | undefined): () => void {
  const path = conf.globals.get("overlayconf");
  if (path === undefined || path === "") return () => undefined;
  const rec = conf.nodes.find((r) => {
    const names = expandHostlist(confGet(r, "NodeName") ?? "");
    return names.ok && names.value.includes(name);
  });
  return createOverlayAgent({
    node: name, confPath: path.replace(/%n/g, name), iface: (conf.globals.get("overlayinterface") ?? "spur0").replace(/%n/g, name),
    endpoint: (rec === undefined ? undefined : confGet(rec, "OverlayEndpoint")) ?? "", controllerUrl: ctlUrl, logger,
    ...(clusterSecret === undefined ? {} : { clusterSecret }),
  }).start();
}

/** JobAcctGatherFrequency "task=N" or "N" → seconds between samples; Spur's default is 2 (Slurm's 30 is too coarse for short jobs). */
function acctFrequencySec(text: string | undefined): number {
  const sec = acctgTaskSec(text ?? "") ?? 2;
  return sec > 0 ? sec : 2;
}
