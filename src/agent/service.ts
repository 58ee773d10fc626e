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
import { runTasks, type Frame } from "./tasks.ts";
import { attachStep, stepInput } from "./step-attach.ts";
import { lookupUid } from "../net/users.ts";
import { writeBcastBlock } from "./file-bcast.ts";

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
      async fileBcast(req, ctx) {
        // the caller's uid is proven (socket or token); the job's record says whose the job is and that it runs here
        const checked = await agent.verifyJob(req.jobId, peerUid(ctx));
        if (checked.why !== "") throw new ConnectError(`Invalid job credential: ${checked.why}`, Code.PermissionDenied);
        if (!req.dest.startsWith("/")) throw new ConnectError("the destination must be an absolute path", Code.InvalidArgument);
        const owner = lookupUid(checked.owner);
        return writeBcastBlock(req, checked.owner, owner.gid, nodeName);
      },
      async *attachStep(req, ctx) {
        // sattach: the job's owner or root, as for srun steps (step-check.ts); "no tasks running" otherwise
        const checked = await agent.verifyJob(req.jobId, peerUid(ctx));
        const session = checked.why === "" ? attachStep<Frame>(req.jobId, req.stepId, ctx.signal) : undefined;
        if (session === undefined) throw new ConnectError(`Node ${nodeName}: no tasks running`, Code.NotFound);
        yield { taskId: 0, stdout: new Uint8Array(0), stderr: new Uint8Array(0), exited: false, exitCode: 0, exitSignal: 0, attachToken: session.token };
        yield* session.frames;
      },
      async stepInput(req) {
        // the token is the proof: only a verified AttachStep of this step got one
        if (!(await stepInput(req.jobId, req.stepId, req.token, req.taskId, req.data, req.eof))) throw new ConnectError("no such attach session", Code.NotFound);
        return {};
      },
      ping(_req, ctx) {
        requireController(ctx, self);
        return { node: nodeName, runningJobIds: agent.runningJobIds() };
      },
    });
}
