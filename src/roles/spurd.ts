/**
 * @module roles/spurd
 * The node agent daemon. `spurd -N NAME` runs as node NAME from spur.conf (its
 * CPUs, memory, GPUs and port come from the NodeName line; real discovery is
 * the devices issue), serves the Agent RPC, and registers with the controller.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostname, machine, release, type, version } from "node:os";
import { flag } from "./argv.ts";
import { confPath, controllerUrl, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { createAgent } from "../agent/agent.ts";
import { agentRoutes } from "../agent/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";
import { selfExec } from "./self-exec.ts";
import { SPUR_VERSION } from "../version.ts";


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
  // As slurmd reports itself: NodeHostname from the config (default: the node name), the
  // machine name (x86_64, not Node's x64) and uname's sysname, release and version.
  const node = {
    ...configured.info, hostname: configured.info.hostname || name, arch: machine(), os: `${type()} ${release()} ${version()}`, version: SPUR_VERSION,
    bootTime: Date.now() / 1000, partitions: [],
  };
  const spoolRoot = flag(argv, "--spool") ?? conf.globals.get("slurmdspooldir") ?? "/var/spool/spur/d";
  const spool = join(spoolRoot.replace("%n", name), name);
  mkdirSync(spool, { recursive: true });
  const agent = createAgent({ node, spool, controllerUrl: controllerUrl(conf), confPath: path, logger, selfExec: selfExec() });
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
