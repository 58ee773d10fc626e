/**
 * @module roles/cli/srun-launcher
 * srun's own listener while its step runs, what Slurm calls srun's message
 * port: the tasks see it as SLURM_SRUN_COMM_HOST:SLURM_SRUN_COMM_PORT (and
 * SLURM_STEP_LAUNCHER_PORT), and every node's agent reports each task's exit
 * to it (Launcher.TaskExit), as slurmstepd reports task exits to srun. srun
 * takes the tasks' exit status from these reports. The agents of nodes whose
 * tasks read srun's stdin pull it from here too (Launcher.TaskInput, fed by
 * srun-stdin.ts), as slurmstepd gets stdin from srun.
 *
 * Failure policy: a report, or a stdin subscription, is accepted only for this
 * step and with the step's random token (anyone on the host could connect, and
 * stdin may be secret); the first report of a task
 * wins. The listener binds to the address srun reaches the nodes from, so the
 * nodes can reach it back; if it cannot be opened the step still runs, without
 * the variables (never pointing at nothing) and with exits from the stream.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import { connect } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Launcher } from "../../net/gen/spur/v1/agent_pb.ts";
import { guardServer, HTTP_LIMITS_DEFAULT, type HttpLimits } from "../../net/http-guard.ts";
import type { StdinFeed } from "./srun-stdin.ts";
import { FenceRounds } from "../../compat/pmi/fence.ts";

export interface TaskExitReport {
  node: string;
  exitCode: number;
  exitSignal: number;
}

export interface StepLauncher {
  host: string;
  port: number;
  token: string;
  /** Reports received so far, by task id. */
  exits: ReadonlyMap<number, TaskExitReport>;
  /** Called when a node reports that a task called PMI abort (srun --mpi=pmi2). */
  onPmiAbort?: (rank: number, exitCode: number, node: string) => void;
  close(): Promise<void>;
}

/** How long srun waits to learn the local address it reaches a node from. */
const PROBE_TIMEOUT_MS = 3000;

/** Reports are a few hundred bytes: anything much larger is refused unread. */
const REPORT_BYTES_MAX = 64 * 1024;

/** A node's PMI fence call carries its tasks' puts (MPI business cards): up to the node's KVS limit (compat/pmi/pmi-node.ts PMI_KVS_BYTES_MAX) and the framing. */
const FENCE_BYTES_MAX = 20 * 1024 * 1024;

/**
 * The local address of a TCP connection to `addr:port`: the address the node can reach srun at
 * (a loopback node is reached from loopback, without a probe).
 */
export function localAddressTowards(addr: string, port: number): Promise<string> {
  if (/^127\./.test(addr) || addr === "localhost") return Promise.resolve("127.0.0.1");
  return new Promise((resolve, reject) => {
    const socket = connect({ host: addr, port, timeout: PROBE_TIMEOUT_MS });
    const fail = (e: Error) => {
      socket.destroy();
      reject(e);
    };
    socket.once("connect", () => {
      const local = socket.localAddress ?? "";
      socket.end();
      socket.destroy();
      resolve(local.replace(/^::ffff:/, ""));
    });
    socket.once("timeout", () => fail(new Error(`no answer from ${addr}:${port}`)));
    socket.once("error", fail);
  });
}

/**
 * The listener for a step whose first node's agent is at `node`, or undefined (with the
 * reason on stderr) when it cannot be opened.
 */
export async function launcherFor(
  node: { addr: string; port: number } | undefined, jobId: number, stepId: number, input?: StdinFeed, pmiNodes = 0,
): Promise<StepLauncher | undefined> {
  if (node === undefined) return undefined;
  try {
    return await openStepLauncher(await localAddressTowards(node.addr, node.port), jobId, stepId, {}, input, pmiNodes);
  } catch (error) {
    process.stderr.write(`srun: error: cannot open the step's message port: ${(error as Error).message}\n`);
    return undefined;
  }
}

/**
 * Open the listener of step `jobId.stepId` on `host` (port chosen by the system). It has the
 * limits of every Spur listener (net/http-guard: header, body and idle timeouts, connections
 * per address, body size): anyone who can reach the port could otherwise hold srun's
 * connections open for as long as the step runs.
 */
export async function openStepLauncher(
  host: string, jobId: number, stepId: number, limits: Partial<HttpLimits> = {}, input?: StdinFeed, pmiNodes = 0,
): Promise<StepLauncher> {
  const token = randomBytes(16).toString("hex");
  const exits = new Map<number, TaskExitReport>();
  // srun --mpi=pmi2: the PMI fences of the step's nodes meet here (compat/pmi/fence.ts)
  const fences = pmiNodes > 0 ? new FenceRounds(pmiNodes) : undefined;
  const fenceWaiters = new Map<number, Array<(kvs: Record<string, string>) => void>>();
  const launcher: StepLauncher = {
    host, port: 0, token, exits,
    close: () => {
      // agents keep their report connections alive: drop them so that srun need not wait for them
      http.closeAllConnections();
      return new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
  // served on plain node:http: the token, not the caller's uid, says who may report (no peer lookup)
  const handler = connectNodeAdapter({
    readMaxBytes: pmiNodes > 0 ? FENCE_BYTES_MAX : REPORT_BYTES_MAX,
    routes: (router) =>
      router.service(Launcher, {
        taskExit(req) {
          if (req.token !== token || req.jobId !== jobId || req.stepId !== stepId) return {};
          for (const taskId of req.taskIds) {
            if (!exits.has(taskId)) exits.set(taskId, { node: req.node, exitCode: req.exitCode, exitSignal: req.exitSignal });
          }
          return {};
        },
        async pmiFence(req) {
          if (req.token !== token || req.jobId !== jobId || req.stepId !== stepId || fences === undefined) return { error: "not this step's PMI fence" };
          if (req.abort) {
            launcher.onPmiAbort?.(req.abortRank, req.abortExitCode, req.node);
            return {};
          }
          const arrival = fences.arrive(req.round, req.node, req.puts);
          if (arrival.error !== "") return { error: arrival.error };
          const all = arrival.complete;
          if (all !== undefined) {
            for (const release of fenceWaiters.get(req.round) ?? []) release(all);
            fenceWaiters.delete(req.round);
            return { kvs: all };
          }
          const kvs = await new Promise<Record<string, string>>((resolve) => {
            fenceWaiters.set(req.round, [...(fenceWaiters.get(req.round) ?? []), resolve]);
          });
          return { kvs };
        },
        async *taskInput(req, ctx) {
          if (req.token !== token || req.jobId !== jobId || req.stepId !== stepId || input === undefined) return;
          yield* input.subscribe(req.node, ctx.signal);
        },
      }),
  });
  const http = createServer((req, res) => {
    if (admit(req, res)) handler(req, res);
  });
  const admit = guardServer(http, { ...HTTP_LIMITS_DEFAULT, bodyBytesMax: pmiNodes > 0 ? FENCE_BYTES_MAX : REPORT_BYTES_MAX, ...limits });
  http.on("clientError", (_err, socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, host, () => resolve());
  });
  const address = http.address();
  launcher.port = typeof address === "object" && address !== null ? address.port : 0;
  return launcher;
}
