/**
 * @module ctld/service
 * The Controller RPC handlers: authenticate the caller, turn the request into
 * one command (or a read of the state), and map results to Connect errors with
 * Slurm's wording. No handler changes state except through controller.execute.
 */
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import { Controller as ControllerService, type SubmitRequest } from "../net/gen/spur/v1/controller_pb.ts";
import { fastUnary, type CallHeaders, type FastUnary, type FastUnaryOptions } from "../net/rpc-unary-fast.ts";
import type { Requester } from "../sched/model/commands.ts";
import type { JobSpec } from "../net/gen/spur/v1/types_pb.ts";
import { PEER_ADDR_HEADER, RawJson, type FastJsonHandlers } from "../net/rpc-server.ts";
import { createListCache } from "./list-cache.ts";
import { listJobsBody } from "./list-jobs-fast.ts";
import { hostNameOf } from "./peer-host.ts";
import { toPlain } from "../lib/to-plain.ts";
import { jobView, listJobViews, nodeViewsList } from "./views.ts";
import { nodeViewsOf, validateSubmit } from "../sched/model/apply-submit.ts";
import { jobPartitions } from "../sched/model/job-partitions.ts";
import { fitJob } from "../sched/plan/fit-node.ts";
import { nodeViewsNow } from "../sched/plan/backfill.ts";
import { runJobSubmitHook } from "./job-submit-hook.ts";
import { compressHostlist, expandHostlist } from "../compat/hostlist.ts";
import { agentHandlers } from "./service-agent.ts";
import { stepHandlers } from "./service-step.ts";
import { overlayHandlers } from "./service-overlay.ts";
import { schedHandlers } from "./service-sched.ts";
import { acctHandlers } from "./service-acct.ts";
import { resvHandlers } from "./service-resv.ts";
import { partitionHandlers } from "./service-partition.ts";
import { configEntries } from "./config-view.ts";
import { SPUR_VERSION } from "../version.ts";
import { tokenHandlers } from "./service-token.ts";
import { rejectIfError, requester, type ServiceContext } from "./service-context.ts";

export { rejectIfError, requester, type ServiceContext } from "./service-context.ts";
import { triggerHandlers } from "./service-trigger.ts";
import { scriptHandlers } from "./service-script.ts";
import { checkSubmitLimits, submitLimitsFrom } from "./submit-limits.ts";
import { resolveUpdateTimes } from "./update-times.ts";
import { jobFilterFromWire, jobInfoToWire, jobInfosToWire, jobSpecFromWire } from "./wire-map/job.ts";
import { nodeInfosToWire, partitionInfosToWire } from "./wire-map/node.ts";
import { renderSinfoView } from "../compat/format/sinfo-listing.ts";
import { localTimeZone } from "../compat/format-time.ts";
import type { JobSpecState } from "../sched/model/state-types.ts";

/**
 * ListNodes' answer (the fast JSON path and the Connect handler give the same). With `sinfoView`,
 * sinfo's listing rendered here from the same nodes instead of them (compat/format/sinfo-listing.ts),
 * unless the view is not one to render here.
 */
function listNodesAnswer(c: ServiceContext["controller"], now: number, withDownSpans: boolean, names: readonly string[] = [], withoutNodes = false, sinfoView = "") {
  const { nodes, partitions, licenses } = nodeViewsList(c, now, names, withoutNodes);
  const wireNodes = nodeInfosToWire(nodes);
  const wirePartitions = partitionInfosToWire(partitions);
  const sinfo = sinfoView === "" ? undefined : sinfoTextOf(sinfoView, wireNodes, wirePartitions);
  if (sinfo !== undefined) {
    // local times in the text are this process's zone's: sinfo uses them only in the same zone
    return { nodes: [], partitions: [], licenses: [], now, downSpans: [], sinfoText: sinfo.text, ...(sinfo.localTime ? { sinfoTextZone: LOCAL_TZ } : {}) };
  }
  // sreport's Down: every node's spans out of service (bounded per node, node-history.ts), only when asked
  const downSpans = !withDownSpans ? [] : [...c.state.nodes.values()].flatMap((n) =>
    (n.downSpans ?? []).map((d) => ({ node: n.info.name, start: d.start, end: d.end ?? 0, state: d.state, reason: d.reason })));
  return { nodes: wireNodes, partitions: wirePartitions, licenses, now, downSpans };
}

/** This process's time zone (the zone of the local times in a sinfo_text). */
const LOCAL_TZ = localTimeZone();

/** sinfo's listing of these nodes for `view`, or undefined (not one to render here, or its rendering failed: the nodes go instead). */
function sinfoTextOf(view: string, nodes: ReturnType<typeof nodeInfosToWire>, partitions: ReturnType<typeof partitionInfosToWire>): { text: string; localTime: boolean } | undefined {
  try {
    return renderSinfoView(view, { nodes, partitions });
  } catch {
    return undefined;
  }
}

/** The JSON fast path for the read-only calls squeue/sinfo/sacct make (see rpc-server.ts). */
export function controllerFastJson(sc: ServiceContext): FastJsonHandlers {
  const c = sc.controller;
  // The epoch keeps list versions of this process apart from a restarted or other controller's.
  const listCache = createListCache({ epoch: `${Math.floor(sc.now() * 1000).toString(36)}${Math.random().toString(36).slice(2, 6)}` });
  return {
    "/spur.v1.Controller/ListJobs": (json) => new RawJson(listJobsBody(c, listCache, json, sc.now())),
    "/spur.v1.Controller/ListNodes": (json) => {
      const req = json as { withDownSpans?: unknown; names?: unknown; withoutNodes?: unknown; sinfoView?: unknown } | null;
      const names = Array.isArray(req?.names) ? req.names.filter((n): n is string => typeof n === "string") : [];
      const view = typeof req?.sinfoView === "string" ? req.sinfoView : "";
      return listNodesAnswer(c, sc.now(), req?.withDownSpans === true, names, req?.withoutNodes === true, view);
    },
  };
}

/** The site's job_submit hook: its changes, or its rejection as the error the client prints. */
async function siteHook(path: string, spec: JobSpecState, by: Requester): Promise<JobSpecState> {
  const verdict = await runJobSubmitHook(path, { spec: spec as unknown as Record<string, unknown>, uid: by.uid, user: by.user });
  if (!verdict.ok) throw new ConnectError(verdict.message, Code.PermissionDenied);
  return { ...spec, ...verdict.changes } as JobSpecState;
}

/**
 * sbatch --test-only of a heterogeneous job (oracle, 22.05): every component is checked, and the
 * line gives the CPUs of all of them and the union of their nodes ("using 3 processors on n[1-2]").
 */
function hetTestOnly(sc: ServiceContext, specs: JobSpecState[], by: Requester) {
  const state = sc.controller.state;
  let cpus = 0;
  const nodes = new Set<string>();
  for (const spec of specs) {
    const checked = validateSubmit(state, spec, by, { testOnly: true });
    if (typeof checked === "string") throw new ConnectError(checked, Code.InvalidArgument);
    const fit = checked.oversizedNodes > 0 ? undefined
      : fitJob(checked.req, nodeViewsNow(state, checked.partition.nodeNames), "now") ?? fitJob(checked.req, nodeViewsOf(state, checked.partition), "ever");
    if (fit === undefined || fit.length === 0) throw new ConnectError("Requested node configuration is not available", Code.InvalidArgument);
    cpus += testOnlyCpus(checked.req, fit);
    for (const a of fit) nodes.add(a.node);
  }
  return { jobId: state.nextJobId, startEstimate: sc.now(), partition: "", cpus, nodelist: compressHostlist([...nodes]), hetComponents: specs.length };
}

/** A het job's components after the first, each through the site's hook and the submit limits as the leader was. */
async function hetComponentSpecs(sc: ServiceContext, given: JobSpec[], by: Requester): Promise<JobSpecState[]> {
  const out: JobSpecState[] = [];
  for (const wire of given) {
    const one = jobSpecFromWire(wire);
    const spec = sc.jobSubmitScript ? await siteHook(sc.jobSubmitScript, one, by) : one;
    const tooBig = checkSubmitLimits(spec, submitLimitsFrom(sc.controller.state.config.sched.schedulerParametersText));
    if (tooBig !== undefined) throw new ConnectError(tooBig, Code.InvalidArgument);
    out.push(spec);
  }
  return out;
}

/** --test-only's "using N processors": the CPUs of the placement (whole nodes with --exclusive, one per node with -O), else those asked for. */
function testOnlyCpus(req: { ntasks: number; cpusPerTask: number }, fit: readonly { cpus: number }[]): number {
  return fit.length > 0 ? fit.reduce((n, a) => n + a.cpus, 0) : req.ntasks * req.cpusPerTask;
}

/**
 * Submit (the Connect route and the fast unary path serve this same function: rpc-unary-fast).
 */
function submitImpl(sc: ServiceContext) {
  const c = sc.controller;
  return async (req: SubmitRequest, ctx: CallHeaders) => {
    const by = requester(ctx);
    if (req.spec === undefined) throw new ConnectError("missing job spec", Code.InvalidArgument);
    const given = jobSpecFromWire(req.spec);
    // JobSubmitScript as the last reconfigure read it (replicated), else as at start
    const replicated = c.state.reconfigured?.globals;
    const hook = replicated === undefined ? sc.jobSubmitScript : (new Map(replicated).get("jobsubmitscript") ?? "");
    const spec = hook ? await siteHook(hook, given, by) : given;
    // Bounded before anything is logged: Slurm's lengths and max_script_size (ctld/submit-limits).
    const tooBig = checkSubmitLimits(spec, submitLimitsFrom(c.state.config.sched.schedulerParametersText));
    if (tooBig !== undefined) throw new ConnectError(tooBig, Code.InvalidArgument);
    if (req.testOnly && req.hetComponents.length > 0) return hetTestOnly(sc, [spec, ...(await hetComponentSpecs(sc, req.hetComponents, by))], by);
    if (req.testOnly) {
      const checked = validateSubmit(c.state, spec, by, { testOnly: true });
      if (typeof checked === "string") throw new ConnectError(checked, Code.InvalidArgument);
      // where it would run: the nodes that fit now (of a list, in the first listed partition where they do),
      // else once the partition is free (golden 037)
      const others = jobPartitions(spec.partition).filter((n) => n !== checked.partition.info.name);
      const listed = [checked.partition, ...others.flatMap((n) => c.state.partitions.filter((p) => p.info.name === n))];
      const now = checked.oversizedNodes > 0 ? undefined : listed.map((p) => ({ p, fit: fitJob(checked.req, nodeViewsNow(c.state, p.nodeNames), "now") })).find((x) => x.fit !== undefined);
      const partition = now?.p ?? checked.partition;
      const fit = checked.oversizedNodes > 0 ? undefined : now?.fit ?? fitJob(checked.req, nodeViewsOf(c.state, partition), "ever");
      // larger than the partition (-N 8 on 4 nodes): Slurm's test fails, it never names an empty node list
      if (fit === undefined || fit.length === 0) throw new ConnectError("Requested node configuration is not available", Code.InvalidArgument);
      const nodelist = compressHostlist(fit.map((a) => a.node));
      return { jobId: c.state.nextJobId, startEstimate: sc.now(), partition: partition.info.name, cpus: testOnlyCpus(checked.req, fit), nodelist };
    }
    const het = await hetComponentSpecs(sc, req.hetComponents, by);
    const allocNode = await hostNameOf(ctx.requestHeader.get(PEER_ADDR_HEADER) ?? "");
    const result = await c.execute({ v: 1, type: "submit", at: sc.now(), spec, by, priority: 0, ...(allocNode ? { allocNode } : {}), ...(het.length > 0 ? { het } : {}) });
    rejectIfError(result);
    const jobId = result.ids[0] ?? 0;
    // srun/salloc say so before "queued and waiting" when the job is larger than its partition
    const queuedOversized = spec.interactive && c.state.jobs.get(jobId)?.info.reason === "PartitionConfig";
    return { jobId, warnings: queuedOversized ? ["Requested partition configuration not available now"] : [], cluster: c.state.config.clusterName };
  };
}

/** The calls served past the Connect adapter with the same answers (net/rpc-unary-fast): a loop of sbatch calls Submit. */
export function controllerFastUnary(sc: ServiceContext) {
  return (opt: FastUnaryOptions): Record<string, FastUnary> => ({
    "/spur.v1.Controller/Submit": fastUnary(ControllerService.method.submit, submitImpl(sc), opt),
  });
}

export function controllerRoutes(sc: ServiceContext) {
  const c = sc.controller;
  return (router: ConnectRouter) =>
    router.service(ControllerService, {
      submit: submitImpl(sc),
      listJobs(req) {
        return { jobs: jobInfosToWire(listJobViews(c, toPlain(req), sc.now())), now: sc.now(), clusterName: c.state.config.clusterName };
      },
      listNodes(req) {
        return listNodesAnswer(c, sc.now(), req.withDownSpans, req.names, req.withoutNodes, req.sinfoView);
      },
      async cancel(req, ctx) {
        const by = requester(ctx);
        if (req.filter === undefined) throw new ConnectError("no job selection", Code.InvalidArgument);
        const filter = jobFilterFromWire(req.filter);
        const result = await c.execute({ v: 1, type: "cancel", at: sc.now(), filter, signal: req.signal, batchOnly: req.batchOnly, by });
        return { results: result.items.map((i) => ({ jobId: i.id, error: i.error, errorCode: i.errorCode })) };
      },
      async updateJob(req, ctx) {
        const by = requester(ctx);
        const result = await c.execute({
          v: 1, type: "updateJob", at: sc.now(), jobIds: req.jobIds, action: req.action, fields: resolveUpdateTimes(req.fields, sc.now()), by,
        });
        return { results: result.items.map((i) => ({ jobId: i.id, error: i.error, errorCode: i.errorCode })) };
      },
      async updateNode(req, ctx) {
        const by = requester(ctx);
        // NodeName=ALL names every node, as in Slurm's scontrol update
        const nodes = req.nodes.toUpperCase() === "ALL" ? { ok: true as const, value: [...c.state.nodes.keys()] } : expandHostlist(req.nodes);
        if (!nodes.ok) throw new ConnectError("Invalid node name specified", Code.InvalidArgument);
        const result = await c.execute({ v: 1, type: "updateNode", at: sc.now(), nodes: nodes.value, state: req.state, reason: req.reason, by, ...(req.features === undefined ? {} : { features: req.features }) });
        rejectIfError(result);
        return {};
      },
      ping() {
        const raft = sc.raftStatus?.();
        return {
          controller: sc.controllerName, primary: raft === undefined || raft.role === "leader", now: sc.now(), version: SPUR_VERSION,
          pid: process.pid, started: sc.startedAt, ...(raft === undefined ? {} : { raft }),
        };
      },
      async changeControllers(req, ctx) {
        const by = requester(ctx);
        if (by.uid !== 0 && !c.state.config.operators.includes(by.user)) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
        if (sc.changeControllers === undefined) throw new ConnectError("this controller is not replicated (no SpurControllers= in spur.conf)", Code.FailedPrecondition);
        return sc.changeControllers(req);
      },
      getConfig() {
        return { entries: configEntries(c.state, sc) };
      },
      async waitJob(req) {
        await c.waitFor(req.jobId, req.untilStates, Math.min(req.timeoutMs || 30_000, 60_000));
        const job = c.state.jobs.get(req.jobId);
        if (job === undefined) throw new ConnectError("Invalid job id specified", Code.NotFound);
        return { job: jobInfoToWire(jobView(c, job)) };
      },
      ...stepHandlers(sc),
      ...schedHandlers(sc),
      ...acctHandlers(sc),
      ...resvHandlers(sc),
      ...partitionHandlers({ controller: c, now: sc.now, requester, confPath: sc.confPath }),
      ...agentHandlers(sc),
      ...overlayHandlers(sc),
      ...tokenHandlers(sc),
      ...scriptHandlers(sc),
      ...triggerHandlers({ controller: c, now: sc.now, selfUid: sc.selfUid, requester }),
    });
}
