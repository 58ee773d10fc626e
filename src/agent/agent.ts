/**
 * @module agent/agent
 * The node agent's core: launches batch scripts through a detached stepd,
 * signals and terminates jobs, reports every ended script to the controller
 * until the controller acknowledges it (the spool keeps it across restarts),
 * and registers and heartbeats. Failure policy: a controller that does not
 * answer is retried forever; nothing is lost while it is away.
 *
 * Time comes from deps.clock (lib/clock.ts; the system clock by default). The pieces:
 * controller-link (replica in use, the periodic turn), batch-launch, job-signal,
 * report-ended, step-hooks; this file wires them.
 */
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { systemClock } from "../lib/system-clock.ts";
import { agentAuthInterceptor } from "../net/cluster-auth.ts";
import { Controller } from "../net/gen/spur/v1/controller_pb.ts";
import { connectTls } from "../net/tls.ts";
import type { Agent, AgentDeps } from "./agent-api.ts";
import { jobFacts } from "./agent-site.ts";
import { launchBatch } from "./batch-launch.ts";
import { type ControllerClient, type ControllerLink, createControllerLink } from "./controller-link.ts";
import { createJobSignaller } from "./job-signal.ts";
import { listPids as listStepPids } from "./list-pids.ts";
import { createNodeProlog } from "./node-prolog.ts";
import { createEndReporter } from "./report-ended.ts";
import { listJobIds } from "./spool.ts";
import { createStepChecks } from "./step-hooks.ts";
import { liveSteps } from "./step-stats.ts";
import { stepGroups } from "./tasks.ts";
import { readNodeLoad } from "./node-load.ts";

export type { Agent, AgentDeps } from "./agent-api.ts";

/** A signed Connect client of the controller at `url`. */
function controllerClient(deps: AgentDeps): (url: string) => ControllerClient {
  const interceptors = deps.clusterSecret === undefined ? [] : [agentAuthInterceptor(deps.clusterSecret, deps.node.name)];
  return (url) => createClient(Controller, createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors, ...connectTls(url) }));
}

export function createAgent(deps: AgentDeps): Agent {
  const { spool, logger, node } = deps;
  const clock = deps.clock ?? systemClock;
  // The link and the node Prolog call each other (reports go through the link): the link is set just below.
  let link: ControllerLink | undefined;
  const linked = (): ControllerLink => link as ControllerLink;
  const nodeProlog = createNodeProlog({
    spool, node: node.name, scripts: deps.scripts,
    stepsRunning: (jobId) => (stepGroups.get(jobId)?.size ?? 0) > 0,
    async report(r) {
      // Job id 0 names no job: the controller only drains the node (Epilog).
      const endTime = clock.now() / 1000;
      const body = "outcome" in r
        ? { node: node.name, jobId: r.jobId, exitCode: 1, exitSignal: 0, outcome: r.outcome, endTime }
        : { node: node.name, jobId: 0, exitCode: 0, exitSignal: 0, outcome: "", endTime, drainReason: r.drainReason };
      logger.warn({ message: "outcome" in r ? "Prolog failed" : r.message, node: node.name, ...("jobId" in r ? { jobId: r.jobId } : {}) });
      await linked().ctl().batchComplete(body, { timeoutMs: 5000 });
    },
  });
  const signaller = createJobSignaller(spool, node.name, clock, nodeProlog);
  /** Jobs this node still holds: running, or ended with the end not yet acknowledged (so never "lost"). */
  const runningJobIds = () => listJobIds(spool);
  link = createControllerLink({
    node, clock, logger, runningJobIds, load: readNodeLoad,
    urls: deps.controllerUrls !== undefined && deps.controllerUrls.length > 0 ? deps.controllerUrls : [deps.controllerUrl],
    clientFor: controllerClient(deps),
    killReported: signaller.killReported,
    reportEnded: createEndReporter({ spool, nodeName: node.name, clock, logger, link: linked }),
  });
  const checks = createStepChecks({ deps, link, nodeProlog, logger });

  return {
    launchBatch: (req) => launchBatch(deps, req),
    signalJob: signaller.signalJob,
    runningJobIds,
    stepHooks: checks.stepHooks,
    verifyJob: checks.verifyJob,
    stepStats: (req) => liveSteps(spool, node.name, req.jobId, req.stepId),
    listPids: (req, caller) => listStepPids(spool, req.stepId === undefined ? { jobId: req.jobId } : { jobId: req.jobId, stepId: req.stepId }, caller),
    async runProlog(req) {
      const facts = jobFacts(node.name, req.job, req.clusterName);
      return facts === undefined ? "no job" : nodeProlog.ensure(facts);
    },
    start: () => linked().start(),
  };
}
