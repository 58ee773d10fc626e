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
import { logFileOf } from "./log-file.ts";
import { parseFlagsOrThrow } from "../lib/flags.ts";
import { writeOutput } from "./cli/stdio.ts";
import { confPath, controllerAddress, controllerPeers, optionalClusterSecret, readConf } from "./conf-file.ts";
import type { ConsolaInstance } from "consola/core";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { replayLog } from "../ctld/replay.ts";
import { scriptsFrom } from "../ctld/ctld-scripts.ts";
import { openLogStore } from "../ctld/log-store.ts";
import { ARCHIVE_FILE, openJobArchive } from "../ctld/job-archive.ts";
import { createController } from "../ctld/controller.ts";
import { createAgentLink } from "../ctld/agent-link.ts";
import type { CtldScripts } from "../ctld/ctld-scripts.ts";
import { runAdminScript } from "../agent/prolog.ts";
import { controllerFastJson, controllerFastUnary, controllerRoutes } from "../ctld/service.ts";
import { startRpcServer, type RpcServerExtras } from "../net/rpc-server.ts";
import { credAuthExtras } from "./ctld-auth.ts";
import { configureClientTls, listenerTls } from "../net/tls.ts";
import { serverAuth, shortHostname, startLocalAuthd } from "./auth-setup.ts";
import { CTLD_AUDIENCE } from "../net/auth/types.ts";
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import type { ClusterState } from "../sched/model/types.ts";
import { ensureKeyFile, keyPathFromConf, openKeyring } from "../net/rest/keyring.ts";
import { tokenVerifier } from "../ctld/service-token.ts";
import { renderMetrics } from "../net/metrics-text.ts";
import { startMetricsServer } from "../net/metrics-http.ts";
import { createRpcMetrics, type RpcMetrics } from "../net/rpc-metrics.ts";
import { createRpcRateLimiter, rpcRateLimitFrom } from "../net/rpc-rate-limit.ts";
import { controllerMetrics, createSchedulerStats, type RaftStatus } from "../ctld/metrics.ts";
import { readProcessFacts } from "../net/metrics-process.ts";
import { PROTOCOL_VERSION, SPUR_VERSION } from "../version.ts";

/**
 * What both modes (one controller, or a Raft replica) serve beyond the controller itself:
 * the JWT key, the job_submit hook, PrologSlurmctld/EpilogSlurmctld, scheduler and RPC
 * metrics. Built once here so the two wirings cannot drift apart.
 */
export interface CtldExtras {
  keyring: ReturnType<typeof openKeyring>;
  jobSubmitScript: string;
  scripts: CtldScripts;
  onSchedulerPass: (pass: { seconds: number; started: number }) => void;
  rpcExtras: (state: ClusterState, now: () => number, applyFailed: () => number, raft?: () => RaftStatus) => RpcServerExtras;
  /** Present when spur.conf names a cluster secret: refused agent credentials are logged (ServiceContext.agentAuth). */
  agentAuth?: { refused(method: string, why: string): void };
  /** SpurClusterSecretFile='s secret: signs calls to agents, verifies agents' calls. */
  clusterSecret?: string;
  /** The RPC counts the metrics endpoint shows, for sdiag's tables too (ServiceContext.rpcStats). */
  rpcStats: RpcMetrics;
}

/** Logs refused agent calls, at most once a minute per reason (agents retry every 250 ms). */
function agentRefusalLog(logger: ConsolaInstance): { refused(method: string, why: string): void } {
  const lastMs = new Map<string, number>();
  return {
    refused(method, why) {
      const t = Date.now();
      if (t - (lastMs.get(why) ?? 0) < 60_000) return;
      lastMs.set(why, t);
      logger.warn({ message: "refused an unauthenticated node agent", method, why });
    },
  };
}

function ctldExtras(conf: ParsedConf, confFile: string, stateDir: string, startedAt: number, logger: ConsolaInstance): CtldExtras {
  const g = conf.globals;
  const clusterSecret = optionalClusterSecret(conf, confFile);
  // auth/jwt: the key spurrestd and `scontrol token` use, created on first start.
  const keyPath = keyPathFromConf(g, stateDir);
  ensureKeyFile(keyPath);
  const keyring = openKeyring(keyPath);
  const sched = createSchedulerStats();
  const rpc = createRpcMetrics();
  const rateLimit = rpcRateLimitFrom(g.get("slurmctldparameters") ?? "");
  // AuthType=auth/spur: clients on other hosts are identified by their credentials (auth/munge: ctld-auth.ts)
  const auth = serverAuth(conf, confFile, CTLD_AUDIENCE, logger) ?? credAuthExtras(g, logger.withTag("auth"));
  return {
    keyring,
    jobSubmitScript: g.get("jobsubmitscript") ?? "",
    scripts: scriptsFrom(g),
    onSchedulerPass: (p) => sched.observe(p),
    rpcStats: rpc,
    ...(clusterSecret === undefined ? {} : { agentAuth: agentRefusalLog(logger), clusterSecret }),
    rpcExtras: (state, now, applyFailed, raft) => ({
      rpc,
      ...(rateLimit === undefined ? {} : { rateLimit: createRpcRateLimiter(rateLimit, [process.getuid?.() ?? 0]) }),
      ...(clusterSecret === undefined ? {} : { clusterSecret }),
      verifyToken: tokenVerifier(keyring, now),
      ...auth,
      metrics: () => renderMetrics(controllerMetrics({
        state, sched, rpc: rpc.families(), raft: raft?.(), applyFailed: applyFailed(), version: SPUR_VERSION, protocol: PROTOCOL_VERSION, startedAt,
        process: readProcessFacts(startedAt),
      })),
    }),
  };
}

async function startMetricsPort(conf: ParsedConf, host: string, metrics: (() => string) | undefined) {
  const metricsPort = Number(conf.globals.get("metricsport") ?? "0");
  if (metricsPort <= 0 || metrics === undefined) return undefined;
  return startMetricsServer({ host: conf.globals.get("metricsaddr") ?? host, port: metricsPort }, metrics);
}
import { readTopology } from "./topology-read.ts";


const USAGE = `Usage: spurctld [options]
  --conf FILE        spur.conf (default: $SPUR_CONF or $SLURM_CONF, else /etc/spur/spur.conf)
  --state-dir DIR    state directory (default: StateSaveLocation)
  --id ID            this replica's id among SpurControllers= (default: $SPUR_CONTROLLER_ID, else 0)
  --join             join a running replicated cluster as a new member
`;

const SPEC = {
  values: [["--conf"], ["--state-dir"], ["--id"]],
  booleans: [["--join"], ["--help", "-h"]],
} as const;

export async function main(argv: string[]): Promise<number> {
  const flags = parseFlagsOrThrow("spurctld", argv, SPEC);
  if (flags.on["--help"]) {
    await writeOutput("stdout", USAGE);
    return 0;
  }
  const logger = createLogger("spurctld");
  const path = confPath(flags.values["--conf"]);
  const conf = readConf(path);
  configureClientTls(conf.globals);
  const explicitDir = flags.values["--state-dir"];
  const stateDir = explicitDir ?? conf.globals.get("statesavelocation") ?? "/var/spool/spur/ctld";
  mkdirSync(stateDir, { recursive: true });
  const created = createState(conf);
  if (!created.ok) throw new Error(created.error.message);
  const state = created.value;
  state.topology = readTopology(path);
  // AuthType=auth/spur: a controller's host vouches for its own users too (an admin's scontrol there)
  const authd = startLocalAuthd(conf, path, shortHostname(), logger);
  const peers = controllerPeers(conf);
  if (peers.length > 0) {
    const id = Number(flags.values["--id"] ?? process.env.SPUR_CONTROLLER_ID ?? "0");
    const self = peers.find((p) => p.id === id);
    if (self === undefined) {
      process.stderr.write(`spurctld: fatal: ${path} lists controllers ${peers.map((p) => p.id).join(", ")}: start this one with --id ID\n`);
      return 1;
    }
    const { startReplica } = await import("./spurctld-replicated.ts");
    const now = () => Date.now() / 1000;
    const replicaDir = explicitDir ?? join(stateDir, `ctld-${id}`);
    const replica = await startReplica({
      conf, confPath: path, peers, self, stateDir: replicaDir, state, logger, now, controllerName: `${hostname()}#${id}`,
      extras: ctldExtras(conf, path, stateDir, now(), logger), join: flags.on["--join"] === true,
    });
    // Replicas share one spur.conf, so one MetricsPort= cannot serve them all: each
    // replica serves /metrics on its own RPC port instead (SpurControllers= lists them).
    logger.info({ message: "listening", host: self.host, port: replica.server.port, conf: path, id });
    await new Promise<void>((resolve) => {
      for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
    });
    await replica.stop();
    authd?.stop();
    logger.info({ message: "stopped" });
    return 0;
  }
  const log = openLogStore(join(stateDir, "state-log.sqlite"));
  const archive = openJobArchive(join(stateDir, ARCHIVE_FILE));
  const { replayed, failed } = replayLog(state, log.entries(), (o) => logger.error(o), archive);
  logger.info({ message: "state recovered", commands: replayed, skipped: failed.length, jobs: state.jobs.size, nextJobId: state.nextJobId });
  const now = () => Date.now() / 1000;
  const extras = ctldExtras(conf, path, stateDir, now(), logger);
  const controller = createController({
    state, log, archive, agents: createAgentLink(5000, extras.clusterSecret), logger: logger.withTag("ctld"), now, onSchedulerPass: extras.onSchedulerPass, scripts: extras.scripts, runScript: runAdminScript, collectGarbage: () => Bun.gc(true),
  });
  const { host, port } = controllerAddress(conf);
  const sc = {
    controller, now, controllerName: hostname(), startedAt: now(), selfUid: process.getuid?.() ?? 0, confPath: path,
    port, address: host, globals: conf.globals, ...logFileOf(),
    keyring: extras.keyring, jobSubmitScript: extras.jobSubmitScript, rpcStats: extras.rpcStats,
    ...(extras.agentAuth === undefined ? {} : { agentAuth: extras.agentAuth }),
  };
  controller.noteSkippedEntries(failed.length);
  const rpcExtras = extras.rpcExtras(state, now, () => controller.applyFailedTotal());
  const server = await startRpcServer(controllerRoutes(sc), { host, port }, controllerFastJson(sc), { ...rpcExtras, fastUnary: controllerFastUnary(sc), tls: listenerTls(conf.globals, host, "spurctld") });
  const metricsServer = await startMetricsPort(conf, host, rpcExtras.metrics);
  const stop = controller.start();
  logger.info({ message: "listening", host, port: server.port, conf: path, metricsPort: metricsServer?.port ?? server.port });
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  await metricsServer?.close();
  await server.close();
  log.close();
  archive.close();
  authd?.stop();
  logger.info({ message: "stopped" });
  return 0;
}
