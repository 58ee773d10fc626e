/**
 * @module ctld/agent-link
 * The controller's calls to node agents (spurd), over Connect with the full
 * client stack (the controller is long-lived, start-up cost does not matter).
 * One transport per node address, created on first use.
 */
import { createClient, type Client } from "@connectrpc/connect";
import { hetBatchEnv } from "../compat/het-env.ts";
import { hetComponents, isHetComponent } from "../sched/model/het.ts";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Agent } from "../net/gen/spur/v1/agent_pb.ts";
import { agentAuthInterceptor } from "../net/cluster-auth.ts";
import { connectTls, rpcUrl } from "../net/tls.ts";
import type { ClusterState, JobRecord } from "../sched/model/types.ts";
import type { ApplyEvent } from "../sched/model/apply.ts";
import { launchStdPaths } from "../sched/model/std-paths.ts";
import { jobInfoToWire, jobSpecToWire } from "./wire-map/job.ts";

export interface AgentLink {
  launchBatch(job: JobRecord, state: ClusterState): Promise<void>;
  signalJob(node: string, event: Extract<ApplyEvent, { type: "signalJob" }>, state: ClusterState): Promise<void>;
  /** PrologFlags=Alloc: the node Prolog of `job` on `node`; "" when it ran, else why not. */
  runProlog(node: string, job: JobRecord, state: ClusterState): Promise<string>;
}

/** `clusterSecret`: sign every call (net/cluster-auth) so agents on other hosts accept it. */
export function createAgentLink(timeoutMs = 5000, clusterSecret?: string): AgentLink {
  const interceptors = clusterSecret === undefined ? [] : [agentAuthInterceptor(clusterSecret, "spurctld")];
  const clients = new Map<string, Client<typeof Agent>>();
  function clientFor(state: ClusterState, nodeName: string): Client<typeof Agent> {
    const node = state.nodes.get(nodeName);
    if (node === undefined || node.info.port === 0) throw new Error(`node ${nodeName} has no agent address`);
    const url = rpcUrl(node.info.addr, node.info.port);
    let client = clients.get(url);
    if (client === undefined) {
      client = createClient(Agent, createConnectTransport({ baseUrl: url, httpVersion: "1.1", interceptors, ...connectTls(url) }));
      clients.set(url, client);
    }
    return client;
  }
  return {
    async launchBatch(job, state) {
      const client = clientFor(state, job.info.batchHost);
      // a heterogeneous job's script also sees every component (SLURM_*_HET_GROUP_n, SLURM_HET_SIZE)
      const components = isHetComponent(job.info) ? hetComponents(state.jobs, job) : [];
      const het = components.length > 0 ? hetBatchEnv(components.map((c) => c.info), components.map((c) => c.spec.ntasks)) : {};
      await client.launchBatch(
        { job: jobInfoToWire({ ...job.info, ...launchStdPaths(job) }), script: job.spec.script, argv: job.spec.argv, env: { ...job.spec.env, ...het }, openMode: job.spec.openMode, spec: jobSpecToWire(job.spec), clusterName: state.config.clusterName },
        { timeoutMs },
      );
    },
    async runProlog(node, job, state) {
      // A Prolog may take up to PrologEpilogTimeout: the call waits for it.
      const r = await clientFor(state, node).runProlog({ job: jobInfoToWire(job.info), clusterName: state.config.clusterName }, { timeoutMs: 0 });
      return r.ok ? "" : r.message || "Prolog failed";
    },
    async signalJob(node, event, state) {
      const job = state.jobs.get(event.jobId);
      await clientFor(state, node).signalJob(
        {
          jobId: event.jobId, signal: event.signal, batchOnly: event.batchOnly, stepsOnly: event.stepsOnly ?? false, reason: event.reason, stepId: event.stepId ?? -1,
          killWaitSec: job?.info.killWaitSec ?? state.config.killWaitSec,
          ...(event.signal === 0 && job !== undefined ? { job: jobInfoToWire(job.info), clusterName: state.config.clusterName } : {}),
        },
        { timeoutMs },
      );
    },
  };
}
