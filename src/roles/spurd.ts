/**
 * @module roles/spurd
 * The node agent daemon. `spurd -N NAME` runs as node NAME from spur.conf (its
 * CPUs, memory and port come from the NodeName line; its GPUs from discovery or
 * gres.conf when present, see node-gpus-read.ts), serves the Agent RPC, and
 * registers with the controller.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostname, arch, release } from "node:os";
import { flag } from "./argv.ts";
import { confPath, controllerUrl, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { createAgent } from "../agent/agent.ts";
import { agentRoutes } from "../agent/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";
import { selfExec } from "./self-exec.ts";
import { SPUR_VERSION } from "../version.ts";
import { readNodeGpus } from "./node-gpus-read.ts";


export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--discover")) return (await import("./devices-cli.ts")).discoverMain(argv);
  const path = confPath(flag(argv, "--conf", "-f"));
  const conf = readConf(path);
  const name = flag(argv, "-N", "--node") ?? hostname();
  const logger = createLogger("spurd").withTag(name);
  const built = createState(conf);
  if (!built.ok) throw new Error(built.error.message);
  const configured = built.value.nodes.get(name);
  if (configured === undefined) {
    process.stderr.write(`spurd: fatal: node ${name} is not in ${path}\n`);
    return 1;
  }
  const gpus = await readNodeGpus(path, name, configured.info, flag(argv, "--devices-root"));
  for (const warning of gpus.warnings) logger.warn({ message: warning, node: name });
  const node = {
    ...configured.info, hostname: hostname(), arch: arch(), os: `Linux ${release()}`, version: SPUR_VERSION,
    bootTime: Date.now() / 1000, partitions: [],
    gpuCount: gpus.gpuCount, gpuModel: gpus.gpuModel, gres: gpus.gres || configured.info.gres, gpuTopology: gpus.gpuTopology,
  };
  const spoolRoot = flag(argv, "--spool") ?? conf.globals.get("slurmdspooldir") ?? "/var/spool/spur/d";
  const spool = join(spoolRoot.replace("%n", name), name);
  mkdirSync(spool, { recursive: true });
  logger.info({ message: "gpus", node: name, source: gpus.source, count: gpus.gpuCount, type: gpus.gpuModel, topology: gpus.gpuTopology !== "" });
  const agent = createAgent({ node, gpuFiles: gpus.gpuFiles, gpuCpus: gpus.gpuCpus, spool, controllerUrl: controllerUrl(conf), confPath: path, logger, selfExec: selfExec() });
  const server = await startRpcServer(agentRoutes(agent, name), { host: node.addr || "127.0.0.1", port: node.port });
  logger.info({ message: "listening", node: name, port: server.port, spool });
  const stop = agent.start();
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  await server.close();
  return 0;
}
