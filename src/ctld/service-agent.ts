/**
 * @module ctld/service-agent
 * Handlers for node agents: registration, heartbeats and batch completion.
 * Callers prove themselves by the cluster secret (SpurClusterSecretFile=, a credential
 * per call, net/cluster-auth; any host) or by auth/loopback (root or the controller's own
 * user on this host). A credential that does not verify is refused and logged. Heartbeats are soft state (not logged); what they reveal
 * (a job the agent no longer has) becomes a logged command.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import { runsBatchScript } from "../sched/model/het.ts";
import type { ServiceContext } from "./service-context.ts";
import { PEER_UID_HEADER, agentCredential, peerUid } from "../net/rpc-server.ts";
import { nodeInfoFromWire } from "./wire-map/node.ts";
import { stepUsageFromWire } from "./wire-map/job.ts";
import { isJobFinished } from "../sched/model/types.ts";
import { PROTOCOL_VERSION, SPUR_VERSION } from "../version.ts";
import { agentProtocolRefusal } from "../version-compat.ts";
import type { Controller } from "./controller.ts";
import { batchHosts, type BatchHosts } from "./batch-hosts.ts";
import type { RegisterNodeRequest } from "../net/gen/spur/v1/controller_pb.ts";
import type { StepUsage } from "../net/gen/spur/v1/types_pb.ts";

/** A batch job the agent does not report this long after its start was lost with the node's state. */
const LOST_JOB_GRACE_SEC = 15;
/** How often an agent beats in a small cluster (ms). */
const HEARTBEAT_INTERVAL_MS = 2000;
/** Never faster than this, whatever SlurmdTimeout says (ms). */
const HEARTBEAT_INTERVAL_MIN_MS = 500;
/** Heartbeats a second the controller asks of all its agents together, at most (larger clusters beat less often). */
const HEARTBEATS_PER_SEC_MAX = 500;

/**
 * The interval agents are told to beat at: 2 s in a small cluster; beyond 1,000 nodes slower, so
 * that all agents together send at most HEARTBEATS_PER_SEC_MAX a second (10k nodes: every 20 s;
 * each beat is an RPC, thousands a second would take a core); never slower than a third of
 * SlurmdTimeout, so a live node is heard from at least three times before it would be failed
 * (slurmctld spaces its node pings by a third of SlurmdTimeout too: from memory of its sources,
 * not probed on the oracle, which cannot show the ping interval).
 */
export function heartbeatIntervalMs(nodes: number, slurmdTimeoutSec: number): number {
  const wanted = Math.max(HEARTBEAT_INTERVAL_MS, Math.ceil((nodes * 1000) / HEARTBEATS_PER_SEC_MAX));
  const third = slurmdTimeoutSec > 0 ? Math.floor((slurmdTimeoutSec * 1000) / 3) : Number.POSITIVE_INFINITY;
  return Math.max(HEARTBEAT_INTERVAL_MIN_MS, Math.min(wanted, third));
}

export function requireAgent(ctx: HandlerContext, sc: ServiceContext): void {
  const cred = agentCredential(ctx);
  if (typeof cred === "string") return;
  if (cred !== undefined) {
    // A credential that does not verify (another cluster's secret, a stale clock) is refused
    // even from loopback root: it is a misconfiguration the operator must see.
    sc.agentAuth?.refused(ctx.method.name, cred.why);
    throw new ConnectError(`Access/permission denied: node agent not authenticated: ${cred.why}`, Code.Unauthenticated);
  }
  const uid = ctx.requestHeader.get(PEER_UID_HEADER) ?? "";
  if (uid === "" && sc.agentAuth !== undefined) {
    const why = "no cluster credential and not a loopback caller (is SpurClusterSecretFile= set on the node?)";
    sc.agentAuth.refused(ctx.method.name, why);
    throw new ConnectError(`Access/permission denied: node agent not authenticated: ${why}`, Code.Unauthenticated);
  }
  const n = peerUid(ctx);
  if (n !== 0 && n !== sc.selfUid) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
}

/** Reconcile what an agent runs with what the controller believes; returns jobs the agent must kill. */
function reconcile(c: Controller, hosts: BatchHosts, node: string, running: number[], now: number): number[] {
  const reported = new Set(running);
  // Anything the agent runs that the controller does not have running there must stop.
  const kill = running.filter((id) => {
    const job = c.state.jobs.get(id);
    // A SUSPENDED job (scontrol suspend, PreemptMode=SUSPEND) still lives on its node.
    const live = job !== undefined && (job.info.state === "RUNNING" || job.info.state === "SUSPENDED");
    return job === undefined || isJobFinished(job.info) || !live || job.info.batchHost !== node;
  });
  for (const id of hosts.jobsOn(node)) {
    const i = c.state.jobs.get(id)?.info;
    if (i === undefined || (i.state !== "RUNNING" && i.state !== "SUSPENDED") || !runsBatchScript(i) || i.batchHost !== node || reported.has(i.jobId)) continue;
    if (now - i.startTime < LOST_JOB_GRACE_SEC) continue;
    void c.execute({ v: 1, type: "jobEnded", at: now, jobId: i.jobId, exitCode: 0, exitSignal: 0, outcome: "NODE_FAIL", restarts: i.restarts }).catch(() => undefined);
  }
  return kill;
}

export function agentHandlers(sc: ServiceContext) {
  const c = sc.controller;
  const hosts = batchHosts(c.state, sc.now, LOST_JOB_GRACE_SEC);
  return {
    async registerNode(req: RegisterNodeRequest, ctx: HandlerContext) {
      requireAgent(ctx, sc);
      const refusal = agentProtocolRefusal(req.protocolVersion, PROTOCOL_VERSION, SPUR_VERSION);
      if (refusal !== undefined) throw new ConnectError(refusal, Code.FailedPrecondition);
      if (req.node === undefined) throw new ConnectError("missing node", Code.InvalidArgument);
      const node = nodeInfoFromWire(req.node);
      if (node.name === "") throw new ConnectError("missing node", Code.InvalidArgument);
      const result = await c.execute({ v: 1, type: "registerNode", at: sc.now(), node, runningJobIds: req.runningJobIds });
      if (result.error) throw new ConnectError(result.error, Code.NotFound);
      c.heartbeat(node.name);
      return { killJobIds: reconcile(c, hosts, node.name, req.runningJobIds, sc.now()), heartbeatIntervalMs: heartbeatIntervalMs(c.state.nodes.size, c.state.config.slurmdTimeoutSec) };
    },
    heartbeat(req: { node: string; runningJobIds: number[]; cpuLoad: number; freeMemoryMib: number }, ctx: HandlerContext) {
      requireAgent(ctx, sc);
      const node = c.state.nodes.get(req.node);
      if (node === undefined || node.info.state === "UNKNOWN" || node.down) return { killJobIds: [], reregister: true };
      // an agent older than these fields sends zeros: as a node that reports nothing
      const load = Number.isFinite(req.cpuLoad) && req.cpuLoad >= 0 ? { cpuLoad: req.cpuLoad, freeMemoryMib: req.freeMemoryMib } : undefined;
      c.heartbeat(req.node, load);
      return { killJobIds: reconcile(c, hosts, req.node, req.runningJobIds, sc.now()), reregister: false };
    },
    async batchComplete(
      req: { node: string; jobId: number; exitCode: number; exitSignal: number; outcome: string; endTime: number; usage?: StepUsage | undefined; drainReason?: string; restarts?: number | undefined },
      ctx: HandlerContext,
    ) {
      requireAgent(ctx, sc);
      const job = c.state.jobs.get(req.jobId);
      // The batch host reports the job's end; any node of the job may report that its Prolog failed (it runs on every node).
      const fromNode = req.outcome === "PROLOG_FAILED" ? job?.info.alloc.some((a) => a.node === req.node) === true : job?.info.batchHost === req.node;
      // A report for an earlier run of a requeued job (restarted since) is dropped here; apply() checks it again.
      const sameRun = req.restarts === undefined || job?.info.restarts === req.restarts;
      if (job !== undefined && job.info.state === "RUNNING" && fromNode && sameRun) {
        await c.execute({
          v: 1, type: "jobEnded", at: req.endTime || sc.now(), jobId: req.jobId, exitCode: req.exitCode,
          exitSignal: req.exitSignal, outcome: req.outcome, ...(req.usage ? { usage: stepUsageFromWire(req.usage) } : {}),
          ...(req.outcome === "PROLOG_FAILED" ? { node: req.node } : {}),
          ...(req.restarts === undefined ? {} : { restarts: req.restarts }),
        });
      }
      if (req.drainReason && c.state.nodes.has(req.node)) {
        const root = { uid: 0, gid: 0, user: "root", group: "root" };
        await c.execute({ v: 1, type: "updateNode", at: sc.now(), nodes: [req.node], state: "DRAIN", reason: req.drainReason, by: root });
      }
      return {};
    },
    async recordStepUsage(req: { node: string; jobId: number; stepId: number; usage?: StepUsage | undefined }, ctx: HandlerContext) {
      requireAgent(ctx, sc);
      const job = c.state.jobs.get(req.jobId);
      const onNode = job?.info.alloc.some((a) => a.node === req.node) ?? false;
      if (req.usage !== undefined && onNode) {
        await c.execute({ v: 1, type: "stepUsage", at: sc.now(), jobId: req.jobId, stepId: req.stepId, node: req.node, usage: stepUsageFromWire(req.usage) });
      }
      return {};
    },
  };
}
