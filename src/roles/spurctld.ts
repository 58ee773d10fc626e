/**
 * @module roles/spurctld
 * The controller daemon: reads spur.conf, rebuilds state by replaying its
 * command log through apply(), serves the Controller RPC and runs the
 * scheduling loop. SIGTERM/SIGINT stop it cleanly; a SIGKILL loses nothing that
 * was acknowledged (the log is synced before every answer).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostname } from "node:os";
import { flag } from "./argv.ts";
import { confPath, controllerAddress, controllerPeers, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { apply } from "../sched/model/apply.ts";
import { openLogStore } from "../ctld/log-store.ts";
import { createController } from "../ctld/controller.ts";
import { createAgentLink } from "../ctld/agent-link.ts";
import { controllerFastJson, controllerRoutes } from "../ctld/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";


export async function main(argv: string[]): Promise<number> {
  const logger = createLogger("spurctld");
  const path = confPath(flag(argv, "--conf"));
  const conf = readConf(path);
  const explicitDir = flag(argv, "--state-dir");
  const stateDir = explicitDir ?? conf.globals.get("statesavelocation") ?? "/var/spool/spur/ctld";
  mkdirSync(stateDir, { recursive: true });
  const created = createState(conf);
  if (!created.ok) throw new Error(created.error.message);
  const state = created.value;
  const peers = controllerPeers(conf);
  if (peers.length > 0) {
    const id = Number(flag(argv, "--id") ?? process.env.SPUR_CONTROLLER_ID ?? "0");
    const self = peers.find((p) => p.id === id);
    if (self === undefined) {
      process.stderr.write(`spurctld: fatal: ${path} lists controllers ${peers.map((p) => p.id).join(", ")}: start this one with --id ID\n`);
      return 1;
    }
    const { startReplica } = await import("./spurctld-replicated.ts");
    const now = () => Date.now() / 1000;
    const replica = await startReplica({
      conf, confPath: path, peers, self, stateDir: explicitDir ?? join(stateDir, `ctld-${id}`), state, logger, now, controllerName: `${hostname()}#${id}`,
    });
    logger.info({ message: "listening", host: self.host, port: replica.server.port, conf: path, id });
    await new Promise<void>((resolve) => {
      for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
    });
    await replica.stop();
    logger.info({ message: "stopped" });
    return 0;
  }
  const log = openLogStore(join(stateDir, "state-log.sqlite"));
  let replayed = 0;
  for (const { command } of log.entries()) {
    apply(state, command);
    replayed++;
  }
  logger.info({ message: "state recovered", commands: replayed, jobs: state.jobs.size, nextJobId: state.nextJobId });
  const now = () => Date.now() / 1000;
  const controller = createController({ state, log, agents: createAgentLink(), logger: logger.withTag("ctld"), now });
  const { host, port } = controllerAddress(conf);
  const sc = { controller, now, controllerName: hostname(), startedAt: now(), selfUid: process.getuid?.() ?? 0, confPath: path };
  const server = await startRpcServer(controllerRoutes(sc), { host, port }, controllerFastJson(sc));
  const stop = controller.start();
  logger.info({ message: "listening", host, port: server.port, conf: path });
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  await server.close();
  log.close();
  logger.info({ message: "stopped" });
  return 0;
}
