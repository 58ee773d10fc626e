/**
 * @module roles/spurctld-replicated
 * Wiring for one replica of a replicated controller (spur.conf lists SpurControllers):
 * the Raft log in SQLite under the replica's state folder, the driver, the HTTP transport
 * on the controller's own port, the controller in replicated mode, and the gate that makes
 * every replica but the serving leader answer clients with "not the leader" plus the
 * leader's address (header x-spur-leader) so that CLIs and agents go there instead.
 * Failure policy: a request whose outcome consensus cannot confirm is answered
 * Unavailable with x-spur-outcome: unknown, so a client never retries it blindly.
 */
import { runAdminScript } from "../agent/prolog.ts";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { randomInt } from "node:crypto";
import { Code, ConnectError } from "@connectrpc/connect";
import type { ConsolaInstance } from "consola/core";
import type { ParsedConf } from "../compat/conf/slurm-conf.ts";
import { createController, type Controller } from "../ctld/controller.ts";
import { createAgentLink } from "../ctld/agent-link.ts";
import { controllerFastJson, controllerFastUnary, controllerRoutes, type ServiceContext } from "../ctld/service.ts";
import type { IncomingMessage } from "node:http";
import { startRpcServer, type RequestGate, type RpcServer } from "../net/rpc-server.ts";
import { listenerTls, raftClientTls } from "../net/tls.ts";
import type { ApplyResult } from "../sched/model/apply.ts";
import type { Command } from "../sched/model/commands.ts";
import type { ClusterState } from "../sched/model/types.ts";
import { DAEMON_ELECTION_TICKS, createRaftDriver, ProposalError, type RaftDriver } from "../raft/driver.ts";
import { NO_SPACE_MESSAGE } from "../lib/store-full.ts";
import type { ConfChange } from "../raft/core/index.ts";
import { MembershipError, addReplica, removeReplica } from "../raft/membership.ts";
import { encodeSnapshot, restoreSnapshot } from "../ctld/state-snapshot.ts";
import { restoreReconfigured } from "../sched/model/apply-reconfigure.ts";
import { unwrapSnapshot, wrapSnapshot } from "../raft/snapshot-peers.ts";
import { SqliteStorage } from "../raft/storage-sqlite.ts";
import { startSnapshotter } from "../ctld/snapshotter.ts";
import { selfExec } from "./self-exec.ts";
import { ARCHIVE_FILE, openJobArchive, splitArchive, withArchive } from "../ctld/job-archive.ts";
import { createTcpTransport, listenRaft } from "../raft/transport-tcp.ts";
import { clusterSecret, type ControllerPeer, parseControllerAddress, readMembershipFile } from "./conf-file.ts";
import { membershipWriter, strangerRefusal } from "./replica-membership.ts";
import type { CtldExtras } from "./spurctld.ts";
import type { RaftStatus as MetricsRaftStatus } from "../ctld/metrics.ts";

/**
 * The snapshot worker process's command line: this program's snapshot-worker role at the lowest
 * priority (nice 19, all its threads), so the replica's own work comes first on a busy host. In
 * bench/scale/ha.ts (3 replicas filled to 100k jobs on 2 cores, alternating runs) the slowest
 * submission was 198, 242 and 273 ms against 253, 314 and 515 with a Worker thread, and a
 * replica's peak resident memory 383-497 MiB against 510-668; an image takes ~3 s instead of ~2.
 */
export function snapshotWorkerCommand(): string[] {
  const nice = existsSync("/usr/bin/nice") ? ["/usr/bin/nice", "-n", "19"] : [];
  // The compiled program by /proc/PID/exe, the file this process runs: the executable's path may
  // hold a newer version by now (an upgrade copied before the restart), whose images this replica
  // and its peers might not read.
  const self = selfExec();
  const running = `/proc/${process.pid}/exe`;
  const program = self.length === 1 && existsSync(running) ? [running] : self;
  return [...nice, ...program, "snapshot-worker"];
}

export const LEADER_HEADER = "x-spur-leader";
/** Controller RPCs that only read state: each waits for a ReadIndex round before it runs. */
const READ_METHODS = new Set(
  ["ListJobs", "ListNodes", "GetConfig", "WaitJob", "GetPriorityFactors", "GetDiag", "AcctList", "GetShares", "ListReservations", "GetJobScript"].map((m) => `/spur.v1.Controller/${m}`),
);
export const OUTCOME_HEADER = "x-spur-outcome";

export interface ReplicaOptions {
  conf: ParsedConf;
  confPath: string;
  peers: ControllerPeer[];
  self: ControllerPeer;
  stateDir: string;
  state: ClusterState;
  logger: ConsolaInstance;
  now: () => number;
  controllerName: string;
  extras: CtldExtras;
  /** A replica being added at run time (spurctld --join): start with no membership. */
  join?: boolean;
}

export interface Replica {
  server: RpcServer;
  stop(): Promise<void>;
}

const num = (v: string | undefined, dflt: number): number => (v === undefined || v === "" ? dflt : Number(v));

export async function startReplica(o: ReplicaOptions): Promise<Replica> {
  const { conf, peers, self, state, logger } = o;
  mkdirSync(o.stateDir, { recursive: true });
  const logPath = join(o.stateDir, "raft.sqlite");
  if (o.join !== true && !existsSync(logPath)) {
    // No log yet and not joining: make sure a running cluster does not exist without us.
    const others = new Map<number, string>([...peers, ...readMembershipFile(o.confPath).peers].filter((p) => p.id !== self.id).map((p) => [p.id, p.url]));
    const refusal = await strangerRefusal(self.id, [...others.values()]);
    if (refusal !== undefined) throw new Error(refusal);
  }
  // A joining replica starts with an empty log and no membership: it never campaigns and
  // waits for the leader to add it (spur controller add); the log then tells it the members.
  const storage = SqliteStorage.bootstrap(logPath, o.join === true ? [] : peers.map((p) => p.id));
  const secret = clusterSecret(conf, o.confPath);
  // Addresses: spur.conf's, then those carried by membership changes in the log.
  const known = new Map<number, ControllerPeer>(peers.map((p) => [p.id, p]));
  const urlOf = (id: number) => known.get(id)?.url ?? "";
  // Set once the driver exists: a dropped connection to the leader starts an election early.
  let peerLost: (id: number) => void = () => {};
  const transport = createTcpTransport(self.id, peers.filter((p) => p.id !== self.id).map((p) => ({ id: p.id, host: p.host, port: p.raftPort })), secret, 100, (id) => peerLost(id), raftClientTls(o.conf.globals));
  const writeMembership = membershipWriter(o.confPath, logger);
  // After a change the driver's membership is current only once the Ready is done: write then.
  const membershipChanged = (atStart = false) =>
    setImmediate(() => {
      const st = driver.status();
      const ids = [...st.confState.voters, ...st.confState.learners];
      writeMembership(ids.map((id) => known.get(id)).filter((p): p is ControllerPeer => p !== undefined), Math.max(st.confIndex, 0), atStart ? st.lastIndex : undefined);
    });
  const onConfChange = (cc: ConfChange) => {
    membershipChanged();
    if (cc.type === "remove-node") {
      if (cc.nodeId !== self.id) transport.removePeer(cc.nodeId);
      if (cc.nodeId !== self.id) known.delete(cc.nodeId);
      return;
    }
    const peer = cc.context === undefined ? undefined : parseControllerAddress(cc.nodeId, cc.context);
    if (peer === undefined) return;
    known.set(peer.id, peer);
    transport.setPeer({ id: peer.id, host: peer.host, port: peer.raftPort });
  };
  let controller: Controller | undefined;
  const g = conf.globals;
  // Before anything is restored or applied: the worker builds its copy from the same start.
  // SpurRaftSnapshotWorker=no: no second copy of the state while an image is built; snapshots on this thread.
  // yes/process: a child process of this program per image (ctld/snapshotter.ts); thread: a Worker thread of this one.
  const workerMode = (g.get("spurraftsnapshotworker") ?? "yes").toLowerCase();
  const useWorker = workerMode !== "no";
  // Purged jobs' records (sacct); a snapshot carries them to a replica that installs it.
  const archivePath = join(o.stateDir, ARCHIVE_FILE);
  const archive = openJobArchive(archivePath);
  const snapshotter = useWorker ? startSnapshotter(conf, state.topology, state, logger, { logPath, archivePath, ...(workerMode === "thread" ? {} : { process: snapshotWorkerCommand() }) }) : undefined;
  const peerAddresses = () => new Map([...known.values()].map((p) => [p.id, `${p.host.includes(":") ? `[${p.host}]` : p.host}:${p.port}:${p.raftPort}`]));
  const driver: RaftDriver = createRaftDriver(
    {
      id: self.id,
      storage,
      rng: { int: (lo, hi) => randomInt(lo, hi + 1) },
      send: (msgs) => transport.send(msgs),
      applyCommand: (command, index) => (controller as Controller).applyCommitted(command as Command, index),
      restore: (snap) => {
        const { addresses, image } = unwrapSnapshot(snap.data);
        for (const [id, address] of addresses) if (!known.has(id)) onConfChange({ type: "add-learner", nodeId: id, context: address });
        // The purges before the image are never applied here: their rows come with it (upserts, so rows already here are harmless).
        const { rows, stateImage } = splitArchive(image);
        if (rows !== undefined) archive.importRows(rows);
        restoreSnapshot(state, stateImage);
        restoreReconfigured(state);
        snapshotter?.restored(stateImage, snap.meta.index);
        membershipChanged();
      },
      takeSnapshot: (index) => wrapSnapshot(peerAddresses(), withArchive(archive.exportRows(), encodeSnapshot(state, index))),
      takeSnapshotAsync: (index) => snapshotter?.take(index, peerAddresses()),
      // an image restores and encodes every job: at 100k jobs a snapshot every 20k entries cost ~3x the submissions themselves
      snapshotWeight: () => state.jobs.size,
      onConfChange,
      onEntrySkipped: () => controller?.noteSkippedEntries(1),
      onServing: (serving) => {
        logger.info({ message: serving ? "leading" : "no longer leading", id: self.id, term: driver.status().term });
        controller?.leadershipChanged(serving);
      },
      logger,
    },
    {
      tickMs: num(g.get("spurrafttickms"), 50),
      electionTicks: num(g.get("spurraftelectionticks"), DAEMON_ELECTION_TICKS),
      snapshotEveryEntries: num(g.get("spurraftsnapshotentries"), 20_000),
      trailingEntries: num(g.get("spurrafttrailingentries"), 2_000),
    },
  );
  controller = createController({
    state,
    archive,
    replication: { propose: (command) => driver.propose(command).then((r) => r as ApplyResult, (e) => Promise.reject(toConnectError(e, urlOf))), isServing: () => driver.isServing() },
    agents: createAgentLink(5000, secret),
    logger: logger.withTag("ctld"),
    now: o.now,
    onSchedulerPass: o.extras.onSchedulerPass,
    scripts: o.extras.scripts,
    runScript: runAdminScript,
    collectGarbage: () => Bun.gc(true),
  });
  const sc: ServiceContext = {
    controller, now: o.now, controllerName: o.controllerName, startedAt: o.now(), selfUid: process.getuid?.() ?? 0, confPath: o.confPath, globals: o.conf.globals,
    raftStatus: () => raftStatus(driver, [...known.values()]),
    changeControllers: async (req) => {
      try {
        if (req.action === "add") {
          const peer = parseControllerAddress(req.id, req.address);
          if (peer === undefined) throw new ConnectError(`bad controller address "${req.address}" (want HOST:PORT:RAFTPORT)`, Code.InvalidArgument);
          return await addReplica(driver, req.id, req.address, { catchUpEntries: num(g.get("spurraftcatchupentries"), 100) });
        }
        if (req.action === "remove") return await removeReplica(driver, req.id, req.force);
        throw new ConnectError(`unknown action "${req.action}" (want add or remove)`, Code.InvalidArgument);
      } catch (e) {
        if (!(e instanceof MembershipError)) throw toConnectError(e, urlOf);
        const code = e.code === "NotLeader" || e.code === "Pending" ? Code.Unavailable : e.code === "Timeout" ? Code.DeadlineExceeded : Code.FailedPrecondition;
        throw new ConnectError(e.message, code);
      }
    },
    keyring: o.extras.keyring,
    jobSubmitScript: o.extras.jobSubmitScript, rpcStats: o.extras.rpcStats,
    ...(o.extras.agentAuth === undefined ? {} : { agentAuth: o.extras.agentAuth }),
  };
  const rpcExtras = o.extras.rpcExtras(state, o.now, () => controller?.applyFailedTotal() ?? 0, () => metricsRaftStatus(driver));
  const gate: RequestGate = (req) => {
    const url = req.url ?? "";
    if (driver.isServing() || !url.startsWith("/spur.v1.Controller/") || url === "/spur.v1.Controller/Ping") return undefined;
    const lead = driver.leader();
    const leadUrl = lead === self.id ? "" : urlOf(lead);
    const message = lead === 0 || leadUrl === "" ? `spurctld ${self.id} is not the leader and knows no leader (election in progress or quorum lost)` : `spurctld ${self.id} is not the leader; leader is ${lead} at ${leadUrl}`;
    return { status: 503, headers: { [LEADER_HEADER]: leadUrl }, body: JSON.stringify({ code: "unavailable", message }) };
  };
  // Reads are served only after a ReadIndex round (driver.readBarrier): a leader that was
  // deposed without knowing it yet cannot confirm it leads, so it never answers stale state.
  const readBarrier = (req: IncomingMessage) => {
    if (!READ_METHODS.has(req.url ?? "")) return undefined;
    return driver.readBarrier().then(
      () => undefined,
      (e: unknown) => {
        const lead = e instanceof ProposalError ? e.leader : 0;
        const leadUrl = lead === self.id ? "" : urlOf(lead);
        const why = e instanceof Error ? e.message : String(e);
        return { status: 503, headers: { [LEADER_HEADER]: leadUrl }, body: JSON.stringify({ code: "unavailable", message: `spurctld ${self.id} could not confirm it leads (${why}); retry at the leader` }) };
      },
    );
  };
  const server = await startRpcServer(controllerRoutes(sc), { host: self.host, port: self.port }, controllerFastJson(sc), { ...rpcExtras, fastUnary: controllerFastUnary(sc), gate, readBarrier, tls: listenerTls(o.conf.globals, self.host, "spurctld") });
  peerLost = (id) => driver.peerLost(id);
  const raftListener = listenRaft({ host: self.host, port: self.raftPort }, secret, (msgs) => driver.receive(msgs), (id) => driver.peerLost(id), listenerTls(o.conf.globals, self.host, "spurctld"));
  driver.start();
  membershipChanged(true);
  const stopController = controller.start();
  logger.info({ message: "replica started", id: self.id, peers: peers.map((p) => `${p.id}@${p.url}`).join(","), firstIndex: storage.firstIndex(), lastIndex: storage.lastIndex() });
  return {
    server,
    async stop() {
      stopController();
      driver.stop();
      snapshotter?.stop();
      transport.stop();
      raftListener.stop(true);
      await server.close();
      storage.close();
      archive.close();
    },
  };
}

function toConnectError(e: unknown, urlOf: (id: number) => string): unknown {
  if (!(e instanceof ProposalError)) return e;
  if (e.reason === "no-space") return new ConnectError(NO_SPACE_MESSAGE, Code.ResourceExhausted);
  if (e.reason === "not-leader") {
    const url = urlOf(e.leader);
    return new ConnectError(url ? `not the leader; leader is ${e.leader} at ${url}` : "not the leader; no leader known", Code.Unavailable, { [LEADER_HEADER]: url });
  }
  return new ConnectError(`controller failover while the request was being committed: its outcome is unknown (${e.message})`, Code.Unavailable, { [OUTCOME_HEADER]: "unknown" });
}

/** The Raft view in the shape the metrics endpoint renders (spur_raft_*). */
function metricsRaftStatus(driver: RaftDriver): MetricsRaftStatus {
  const st = driver.status();
  return {
    term: st.term, commitIndex: st.commit, appliedIndex: st.applied, lastIndex: st.lastIndex, isLeader: st.state === "leader",
    peers: st.state === "leader" ? [...st.progress].filter(([id]) => id !== st.id).map(([id, pr]) => ({ id: String(id), matchIndex: pr.match })) : [],
  };
}

function raftStatus(driver: RaftDriver, peers: ControllerPeer[]) {
  const st = driver.status();
  const lead = peers.find((p) => p.id === st.lead);
  return {
    id: st.id, role: st.state, term: st.term, commitIndex: st.commit, appliedIndex: st.applied, leaderId: st.lead, leaderUrl: lead?.url ?? "",
    peers: [...st.progress].map(([id, pr]) => ({
      id, url: peers.find((p) => p.id === id)?.url ?? "", matchIndex: pr.match, lag: Math.max(0, st.lastIndex - pr.match), active: pr.recentActive || id === st.id, learner: pr.isLearner,
    })),
  };
}
