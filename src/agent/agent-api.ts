/**
 * @module agent/agent-api
 * What the node agent is given (AgentDeps) and what it offers the agent service (Agent);
 * apart from agent.ts so that the pieces of the agent can name them without an import cycle.
 */
import type { ConsolaInstance } from "consola/core";
import type { Clock } from "../lib/clock.ts";
import type { Plain } from "../lib/plain.ts";
import type { LaunchBatchRequest, RunPrologRequest, RunTasksRequest, SignalJobRequest, StepStatsRequest } from "../net/gen/spur/v1/agent_pb.ts";
import type { StepInfo } from "../net/gen/spur/v1/types_pb.ts";
import type { NodeInfoP } from "../sched/model/types.ts";
import type { Containment } from "./containment.ts";
import type { listPids as listStepPids } from "./list-pids.ts";
import type { SiteScripts } from "./prolog.ts";
import type { StepHooks } from "./tasks.ts";

export interface AgentDeps {
  node: NodeInfoP;
  /** Device file per GPU index of this node (gres.conf File= or discovery); may be empty. */
  gpuFiles?: string[];
  /** CPUs local to each GPU index (gres.conf Cores= or discovery); may be empty. */
  gpuCpus?: string[];
  /** Unique id per GPU index (MIG UUIDs, which the visible-device variables carry); may be empty. */
  gpuUniqueIds?: string[];
  spool: string;
  controllerUrl: string;
  /** Replicated controllers: every replica, tried in turn and following "not leader" hints. */
  controllerUrls?: string[];
  /** The cluster secret (SpurClusterSecretFile=): every call to a controller is signed with it. */
  clusterSecret?: string;
  confPath: string;
  logger: ConsolaInstance;
  /** Command that runs this same binary (for `stepd`). */
  selfExec: string[];
  containment: Containment;
  /** Seconds between usage samples of running jobs (JobAcctGatherFrequency task=N). */
  sampleSec: number;
  /** Prolog, Epilog, TaskProlog, TaskEpilog from spur.conf. */
  scripts: SiteScripts;
  /** spur.conf ContainerRuntime= and CDISpecDirs= (containers: agent/container). */
  container?: { runtime: string; cdiSpecDirs: string[] };
  /** Time and timers (the loop, kill waits); the system clock when not given. */
  clock?: Clock;
}

export interface Agent {
  launchBatch(req: LaunchBatchRequest): void;
  signalJob(req: SignalJobRequest): boolean;
  runningJobIds(): number[];
  /** Containment (cgroup set up) and usage reporting for the tasks of an srun step on this node. */
  stepHooks(req: RunTasksRequest): Promise<StepHooks>;
  /** Running steps' usage so far (sstat). */
  stepStats(req: StepStatsRequest): Plain<StepInfo>[];
  /** scontrol listpids: the processes of the job steps here (agent/list-pids.ts). */
  listPids(req: { jobId: number; stepId?: number | undefined }, caller: { uid: number; privileged: boolean }): ReturnType<typeof listStepPids>;
  /** PrologFlags=Alloc: the node Prolog at allocation; "" when it ran (or had run), else why not. */
  runProlog(req: RunPrologRequest): Promise<string>;
  /** sbcast: may `uid` (root: anyone's) write files for job `jobId` here? The job owner's uid, or why not. */
  verifyJob(jobId: number, uid: number): Promise<{ why: string; owner: number }>;
  start(): () => void;
}
