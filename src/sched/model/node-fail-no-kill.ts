/**
 * @module sched/model/node-fail-no-kill
 * -k/--no-kill: a job whose node fails keeps running on the rest of its allocation, as Slurm
 * does (its kill_on_node_fail off): the failed node leaves the job (its share is released, the
 * node list, counts and TRES shrink) and the steps that ran there end NODE_FAIL, their tasks on
 * the other nodes told to stop. The job's own script lives on the batch host: when that node
 * fails there is nothing left to run, and the job ends NODE_FAIL as without --no-kill. So does
 * a one-node job, and a suspended one (its CPUs were released on suspension: keep it simple).
 */
import { gresTresText, parseGresItems, trackedGresNames } from "../../compat/gres-generic.ts";
import { hostlistUniq } from "../../compat/hostlist.ts";
import { licenseItemsOf } from "../../compat/licenses.ts";
import { assert } from "../../lib/assert.ts";
import type { ApplyEvent } from "./apply-result.ts";
import { releaseAlloc } from "./resources.ts";
import { licenseTres, tresText } from "./tres.ts";
import type { ClusterState, JobRecord } from "./types.ts";

/** The job survives the loss of this node (the caller then calls exciseNode instead of ending it). */
export function survivesNodeFail(job: JobRecord, nodeName: string): boolean {
  return job.spec.noKill === true && job.info.state === "RUNNING" && job.info.batchHost !== nodeName
    && job.info.alloc.filter((a) => a.node !== nodeName).length > 0;
}

/** Take the failed node out of the job; the events stop the steps that ran on it. */
export function exciseNode(state: ClusterState, job: JobRecord, nodeName: string, at: number): ApplyEvent[] {
  const info = job.info;
  const lost = info.alloc.find((a) => a.node === nodeName);
  assert(lost !== undefined, `job ${info.jobId} holds a share on ${nodeName}`);
  const node = state.nodes.get(nodeName);
  if (node !== undefined) releaseAlloc(node, info.jobId, lost);
  const alloc = info.alloc.filter((a) => a.node !== nodeName);
  const names = alloc.map((a) => a.node);
  const cpus = alloc.reduce((n, s) => n + s.cpus, 0);
  const mem = alloc.reduce((n, s) => n + s.memMib, 0);
  const gpus = alloc.reduce((n, s) => n + s.gpuIndices.length, 0);
  let tres = tresText(cpus, mem, names.length, gpus) + gresTresText(alloc.flatMap((s) => parseGresItems(s.gres ?? "")), trackedGresNames(state.config.accountingTres));
  if (info.licensesAlloc !== undefined) tres += licenseTres(licenseItemsOf(info.licensesAlloc), state.config.accountingTres);
  Object.assign(info, { alloc, nodelist: hostlistUniq(names), numNodes: names.length, numCpus: cpus, tresAlloc: tres });
  const events: ApplyEvent[] = [];
  for (const step of info.steps) {
    if (step.state !== "RUNNING" || !step.alloc.some((a) => a.node === nodeName)) continue;
    Object.assign(step, { state: "NODE_FAIL", endTime: at });
    const others = step.alloc.map((a) => a.node).filter((n) => n !== nodeName);
    if (others.length > 0) events.push({ type: "signalJob", jobId: info.jobId, nodes: others, signal: 0, reason: "NODE_FAIL", batchOnly: false, stepId: step.stepId });
  }
  assert(!info.alloc.some((a) => a.node === nodeName) && info.alloc.length > 0, "the failed node left, the job kept the rest");
  return events;
}
