/**
 * @module sched/model/apply-node
 * Node lifecycle: registration by its agent (resources as the agent found or
 * was configured with; a node that was down for not responding returns to
 * service, like ReturnToService=2), admin state changes (drain, resume, down)
 * and failure (agent silent past the timeout): its jobs end as NODE_FAIL (a --no-kill job loses
 * only that node unless it is its batch host: node-fail-no-kill.ts).
 */
import { noteNodeService } from "./node-history.ts";
import type { Command } from "./commands.ts";
import type { ClusterState, JobRecord, NodeRecord } from "./types.ts";
import { emptyResult, rejected, type ApplyEvent, type ApplyResult } from "./apply-result.ts";
import { refreshNodeState } from "./resources.ts";
import { endFollowers, releaseJob } from "./apply-run.ts";
import { isHetComponent, isHetFollower } from "./het.ts";
import { exciseNode, survivesNodeFail } from "./node-fail-no-kill.ts";

type Of<T extends Command["type"]> = Extract<Command, { type: T }>;

const REPORTED_FIELDS = [
  "addr", "port", "hostname", "cpus", "sockets", "coresPerSocket", "threadsPerCore", "realMemoryMib",
  "gres", "features", "arch", "os", "version", "gpuModel", "gpuCount", "gpuTopology", "bootTime", "tmpDiskMib",
  "cgroup", "gpuCpus",
] as const;

export function applyRegisterNode(state: ClusterState, c: Of<"registerNode">): ApplyResult {
  const node = state.nodes.get(c.node.name);
  if (node === undefined) return rejected("InvalidNodeName", `Invalid node name specified: ${c.node.name}`);
  const info = node.info as unknown as Record<string, unknown>;
  const reported = c.node as unknown as Record<string, unknown>;
  for (const key of REPORTED_FIELDS) info[key] = reported[key];
  if (node.adminFeatures !== undefined) node.info.features = node.adminFeatures;
  node.info.registeredTime = c.at;
  // the start of the node's accounted time (sreport's Reported); kept across later registrations
  if (node.info.firstRegisteredTime === undefined) node.info.firstRegisteredTime = c.at;
  if (node.info.lastBusyTime === 0) node.info.lastBusyTime = c.at; // slurmd's registration counts as last busy (Slurm shows a time, never Unknown)
  node.info.lastHeartbeat = c.at;
  if (node.info.state === "UNKNOWN") node.info.state = "IDLE";
  if (node.down && node.info.reason === "Not responding") {
    node.down = false;
    node.info.reason = "";
  }
  refreshNodeState(node);
  noteNodeService(node, c.at);
  return emptyResult();
}

export function applyUpdateNode(state: ClusterState, c: Of<"updateNode">): ApplyResult {
  if (c.by.uid !== 0 && !state.config.operators.includes(c.by.user)) return rejected("AccessDenied", "Access/permission denied");
  const nodes: NodeRecord[] = [];
  for (const name of c.nodes) {
    const node = state.nodes.get(name);
    if (node === undefined) return rejected("InvalidNodeName", "Invalid node name specified");
    nodes.push(node);
  }
  const wanted = c.state.toUpperCase();
  // Features alone (scontrol update NodeName=X Features=..., REST POST node/X): no state change.
  if (c.features !== undefined) {
    if (!/^[A-Za-z0-9_.,:-]{0,4096}$/.test(c.features)) return rejected("InvalidFeature", "Invalid feature specification");
    if (wanted !== "" && !["DRAIN", "RESUME", "UNDRAIN", "DOWN", "IDLE", "FAIL"].includes(wanted)) return rejected("InvalidNodeState", "Invalid node state specified");
    for (const node of nodes) node.info.features = node.adminFeatures = c.features.split(",").filter(Boolean).join(",");
    if (wanted === "") return emptyResult();
  }
  if (!["DRAIN", "RESUME", "UNDRAIN", "DOWN", "IDLE", "FAIL"].includes(wanted)) return rejected("InvalidNodeState", "Invalid node state specified");
  const events: ApplyEvent[] = [];
  for (const node of nodes) {
    const reasonFields = { reason: c.reason, reasonUser: c.by.user, reasonTime: c.at };
    if (wanted === "DRAIN" || wanted === "FAIL") {
      node.drain = true;
      Object.assign(node.info, reasonFields);
    } else if (wanted === "DOWN") {
      node.down = true;
      Object.assign(node.info, reasonFields);
      events.push(...failJobsOn(state, node.info.name, c.at));
    } else {
      node.drain = false;
      if (node.down && node.info.state !== "UNKNOWN") node.down = false;
      Object.assign(node.info, { reason: "", reasonUser: "", reasonTime: 0 });
    }
    refreshNodeState(node);
    noteNodeService(node, c.at);
  }
  return { ...emptyResult(), events };
}

export function applyNodeFail(state: ClusterState, c: Of<"nodeFail">): ApplyResult {
  const node = state.nodes.get(c.node);
  if (node === undefined || node.down) return emptyResult();
  // The node's agent registered after the leader found it silent: it is alive, the verdict is stale.
  if (node.info.registeredTime > c.at) return emptyResult();
  node.down = true;
  Object.assign(node.info, { reason: c.reason, reasonUser: "root", reasonTime: c.at });
  const events = failJobsOn(state, c.node, c.at);
  refreshNodeState(node);
  noteNodeService(node, c.at);
  return { ...emptyResult(), events };
}

/** End every job using the node as NODE_FAIL and tell its other nodes to kill what is left. */
function failJobsOn(state: ClusterState, nodeName: string, at: number): ApplyEvent[] {
  const events: ApplyEvent[] = [];
  const victims: JobRecord[] = [];
  for (const job of state.jobs.values()) {
    const live = job.info.state === "RUNNING" || job.info.state === "SUSPENDED";
    if (live && job.info.alloc.some((a) => a.node === nodeName)) victims.push(job);
  }
  for (const job of victims) {
    // -k/--no-kill: the job goes on without the node (not for its batch host: node-fail-no-kill.ts)
    if (survivesNodeFail(job, nodeName)) {
      events.push(...exciseNode(state, job, nodeName, at));
      continue;
    }
    const others = job.info.alloc.map((a) => a.node).filter((n) => n !== nodeName);
    releaseJob(state, job);
    Object.assign(job.info, { state: "NODE_FAIL", reason: "NodeDown", endTime: at });
    for (const step of job.info.steps) if (step.state === "RUNNING") Object.assign(step, { state: "NODE_FAIL", endTime: at });
    job.endRequested = "";
    if (others.length > 0) events.push({ type: "signalJob", jobId: job.info.jobId, nodes: others, signal: 0, reason: "NODE_FAIL", batchOnly: false });
    events.push({ type: "jobFinished", jobId: job.info.jobId });
    // a het job's leader (its script) is gone: the other components end with it
    if (isHetComponent(job.info) && !isHetFollower(job.info)) events.push(...endFollowers(state, job, at));
  }
  return events;
}
