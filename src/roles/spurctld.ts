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
import { ensureKeyFile, keyPathFromConf, openKeyring } from "../net/rest/keyring.ts";
import { tokenVerifier } from "../ctld/service-token.ts";
import { renderMetrics } from "../net/metrics-text.ts";
import { startMetricsServer } from "../net/metrics-http.ts";
import { createRpcMetrics } from "../net/rpc-metrics.ts";
import { controllerMetrics, createSchedulerStats, type RaftStatus } from "../ctld/metrics.ts";
import { PROTOCOL_VERSION, SPUR_VERSION } from "../version.ts";

/** Set by the Raft driver once it runs under the controller; read by the metrics endpoint. */
let raftStatusSource: (() => RaftStatus) | undefined;
export const setRaftStatusSource = (source: () => RaftStatus): void => {
  raftStatusSource = source;
};
const raftStatus = (): RaftStatus | undefined => raftStatusSource?.();


export async function main(argv: string[]): Promise<number> {
  const logger = createLogger("spurctld");
  const path = confPath(flag(argv, "--conf"));
  const conf = readConf(path);
  const stateDir = flag(argv, "--state-dir") ?? conf.globals.get("statesavelocation") ?? "/var/spool/spur/ctld";
  mkdirSync(stateDir, { recursive: true });
  const created = createState(conf);
  if (!created.ok) throw new Error(created.error.message);
  const state = created.value;
  const log = openLogStore(join(stateDir, "state-log.sqlite"));
  let replayed = 0;
  for (const { command } of log.entries()) {
    apply(state, command);
    replayed++;
  }
  logger.info({ message: "state recovered", commands: replayed, jobs: state.jobs.size, nextJobId: state.nextJobId });
  const now = () => Date.now() / 1000;
  const sched = createSchedulerStats();
  const scripts = {
    prolog: conf.globals.get("prologslurmctld") ?? "", epilog: conf.globals.get("epilogslurmctld") ?? "",
    timeoutSec: Number(conf.globals.get("prologepilogtimeout") ?? 0) || 0,
  };
  const controller = createController({
    state, log, agents: createAgentLink(), logger: logger.withTag("ctld"), now, onSchedulerPass: (p) => sched.observe(p), scripts,
  });
  const { host, port } = controllerAddress(conf);
  // auth/jwt: the key spurrestd and `scontrol token` use, created on first start.
  const keyPath = keyPathFromConf(conf.globals, stateDir);
  ensureKeyFile(keyPath);
  const keyring = openKeyring(keyPath);
  const sc = {
    controller, now, controllerName: hostname(), startedAt: now(), selfUid: process.getuid?.() ?? 0, confPath: path, keyring,
    jobSubmitScript: conf.globals.get("jobsubmitscript") ?? "",
  };
  const rpc = createRpcMetrics();
  // The Raft driver (issue 4) sets raftStatus so that spur_raft_* appear; until then they are absent.
  const metrics = () => renderMetrics(controllerMetrics({
    state, sched, rpc: rpc.families(), raft: raftStatus(), version: SPUR_VERSION, protocol: PROTOCOL_VERSION, startedAt: sc.startedAt,
  }));
  const server = await startRpcServer(controllerRoutes(sc), { host, port }, controllerFastJson(sc), { metrics, rpc, verifyToken: tokenVerifier(keyring, now) });
  const metricsPort = Number(conf.globals.get("metricsport") ?? "0");
  const metricsServer = metricsPort > 0 ? await startMetricsServer({ host: conf.globals.get("metricsaddr") ?? host, port: metricsPort }, metrics) : undefined;
  const stop = controller.start();
  logger.info({ message: "listening", host, port: server.port, conf: path, metricsPort: metricsServer?.port ?? server.port });
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  await metricsServer?.close();
  await server.close();
  log.close();
  logger.info({ message: "stopped" });
  return 0;
}
