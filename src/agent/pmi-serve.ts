/**
 * @module agent/pmi-serve
 * `srun --mpi=pmi2` on one node: every task of the step gets one end of a socket pair as its
 * PMI_FD, and the agent answers the PMI-1/PMI-2 wire protocol on the other end, as Slurm's
 * slurmstepd does with its mpi/pmi2 plugin. The protocol is the pure `compat/pmi/pmi-node.ts`;
 * this shell moves bytes and runs each fence across the nodes through srun's listener
 * (Launcher.PmiFence), which answers once every node of the step has called for the round.
 *
 * Failure policy: a connection that sends something that is not PMI is closed (the task's PMI
 * library reports it); a fence srun does not answer (srun gone, token refused) releases the local
 * tasks with rc=-1 instead of leaving them blocked; a task's PMI abort kills the step's tasks here.
 * Root only reads and writes the sockets it made; nothing the job names is opened.
 */
import type { Duplex } from "node:stream";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { Launcher, type RunTasksRequest } from "../net/gen/spur/v1/agent_pb.ts";
import { PmiNode, type PmiEffect } from "../compat/pmi/pmi-node.ts";
import { PmiReader } from "../compat/pmi/wire.ts";

export interface PmiServe {
  /** Serve `rank`'s PMI socket (the agent's end of its PMI_FD). */
  attach(rank: number, socket: Duplex): void;
  close(): void;
}

/** The PMI server of the step of `req` on `node`, or undefined when the step does not use one. */
export function servePmi(req: RunTasksRequest, node: string, onAbort: (rank: number, exitCode: number, message: string) => void): PmiServe | undefined {
  if (req.mpiType !== "pmi2" || req.tasks.length === 0) return undefined;
  const size = Number(req.tasks[0]?.env.PMI_SIZE ?? req.tasks.length) || req.tasks.length;
  const core = new PmiNode({ kvsName: `${req.jobId}.${req.stepId}`, size, localRanks: req.tasks.map((t) => t.taskId), mapping: req.pmiProcessMapping });
  const sockets = new Map<number, Duplex>();
  const client = req.launcher === "" ? undefined : createClient(Launcher, createConnectTransport({ baseUrl: `http://${req.launcher}`, httpVersion: "1.1" }));
  const fence = (round: number, puts: Record<string, string>): void => {
    // a step on one node needs nobody else's puts
    if (req.pmiNodes <= 1) return apply(core.fenceDone(round, puts));
    if (client === undefined) return apply(core.fenceFailed(round));
    client.pmiFence({ jobId: req.jobId, stepId: req.stepId, node, token: req.launcherToken, round, puts }).then(
      (r) => apply(r.error === "" ? core.fenceDone(round, r.kvs) : core.fenceFailed(round)),
      () => apply(core.fenceFailed(round)),
    );
  };
  const apply = (effects: readonly PmiEffect[]): void => {
    for (const e of effects) {
      if (e.kind === "reply") sockets.get(e.rank)?.write(e.text);
      else if (e.kind === "fence") fence(e.round, e.puts);
      else {
        onAbort(e.rank, e.exitCode, e.message);
        // srun ends the whole step (every node), as Slurm's srun does on a PMI abort
        void client?.pmiFence({ jobId: req.jobId, stepId: req.stepId, node, token: req.launcherToken, abort: true, abortRank: e.rank, abortExitCode: e.exitCode }).catch(() => undefined);
      }
    }
  };
  return {
    attach(rank, socket) {
      sockets.set(rank, socket);
      const reader = new PmiReader();
      socket.on("error", () => undefined); // the task ended: nothing to answer
      socket.on("data", (b: Buffer) => {
        for (const msg of reader.feed(b.toString("latin1"))) {
          if (msg === "error") {
            socket.destroy();
            return;
          }
          apply(core.receive(rank, msg));
          reader.useWire(core.wireOf(rank));
        }
      });
      socket.on("close", () => sockets.delete(rank));
    },
    close() {
      for (const s of sockets.values()) s.destroy();
      sockets.clear();
    },
  };
}
