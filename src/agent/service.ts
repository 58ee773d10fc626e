/**
 * @module agent/service
 * The Agent RPC handlers. Launch and signal calls must come from the controller: a call
 * signed with the cluster secret (net/cluster-auth), or root / the agent's own user on
 * loopback; task launches from the job's user or root.
 */
import { Code, ConnectError, type ConnectRouter, type HandlerContext } from "@connectrpc/connect";
import { Agent as AgentService } from "../net/gen/spur/v1/agent_pb.ts";
import { agentCredential, peerUid } from "../net/rpc-server.ts";
import type { Agent } from "./agent.ts";
import { runTasks } from "./tasks.ts";
import { lookupUid } from "../net/users.ts";

/** The controller: a verified cluster credential (net/cluster-auth), else root or `self` on loopback. */
function requireController(ctx: HandlerContext, self: number): void {
  const cred = agentCredential(ctx);
  if (typeof cred === "string") return;
  if (cred !== undefined) throw new ConnectError(`Access/permission denied: controller not authenticated: ${cred.why}`, Code.Unauthenticated);
  requireUid(ctx, [self]);
}

function requireUid(ctx: HandlerContext, allowed: number[]): void {
  const uid = peerUid(ctx);
  if (uid !== 0 && !allowed.includes(uid)) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
}

export function agentRoutes(agent: Agent, nodeName: string, cgroupSummary = "") {
  const self = process.getuid?.() ?? 0;
  return (router: ConnectRouter) =>
    router.service(AgentService, {
      launchBatch(req, ctx) {
        requireController(ctx, self);
        try {
          agent.launchBatch(req);
        } catch (error) {
          throw new ConnectError(String((error as Error).message ?? error), Code.FailedPrecondition);
        }
        return {};
      },
      signalJob(req, ctx) {
        requireController(ctx, self);
        return { found: agent.signalJob(req) };
      },
      async *runTasks(req, ctx) {
        requireUid(ctx, [req.uid]);
        if (self !== 0 && req.uid !== self) throw new ConnectError(`spurd runs as uid ${self} and cannot run tasks for uid ${req.uid}`, Code.PermissionDenied);
        // Only the uid is proven (the caller's socket or token): the group and name the tasks, the Prolog
        // and the Epilog get come from this node's passwd, as the controller's for jobs, never from the request.
        if (self === 0) {
          const entry = lookupUid(req.uid);
          req.gid = entry.gid;
          req.user = entry.name;
        }
        yield* runTasks(req, ctx.signal, await agent.stepHooks(req));
      },
      stepStats(req) {
        // Anyone may ask (sstat), as Slurm lets users see every job's steps.
        return { steps: agent.stepStats(req), cgroup: cgroupSummary };
      },
      listPids(req, ctx) {
        // loopback callers only (peerUid refuses others): root and the agent's user see every job, others their own
        const uid = peerUid(ctx);
        return agent.listPids(req, { uid, privileged: uid === 0 || uid === self });
      },
      async runProlog(req, ctx) {
        requireUid(ctx, [self]);
        const why = await agent.runProlog(req);
        return { ok: why === "", message: why };
      },
      ping(_req, ctx) {
        requireController(ctx, self);
        return { node: nodeName, runningJobIds: agent.runningJobIds() };
      },
    });
}
