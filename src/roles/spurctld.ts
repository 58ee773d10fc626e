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
import { confPath, controllerAddress, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { apply } from "../sched/model/apply.ts";
import { openLogStore } from "../ctld/log-store.ts";
import { createController } from "../ctld/controller.ts";
import { createAgentLink } from "../ctld/agent-link.ts";
import { controllerFastJson, controllerRoutes } from "../ctld/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";
import { readTopology } from "./topology-read.ts";


export async function main(argv: string[]): Promise<number> {
  const logger = createLogger("spurctld");
  const path = confPath(flag(argv, "--conf"));
  const conf = readConf(path);
  const stateDir = flag(argv, "--state-dir") ?? conf.globals.get("statesavelocation") ?? "/var/spool/spur/ctld";
  mkdirSync(stateDir, { recursive: true });
  const created = createState(conf);
  if (!created.ok) throw new Error(created.error.message);
  const state = created.value;
  state.topology = readTopology(path);
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
