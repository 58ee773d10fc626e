/**
 * @module ctld/service-partition
 * The Partition RPC (`scontrol create|update|delete partition`): one "partition" command
 * through controller.execute, so it is logged (single controller) or committed through
 * Raft (replicas) before it is answered, and applied alike everywhere. The refusal is
 * apply's, in Slurm's words (sched/model/apply-partition.ts). The Reconfigure RPC
 * (`scontrol reconfigure`): this controller reads the configuration files once and
 * proposes what they define (ctld/reconfigure-read.ts, sched/model/apply-reconfigure.ts).
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Controller } from "./controller.ts";
import type { Requester } from "../sched/model/commands.ts";
import { configReading, readConfigFiles } from "./reconfigure-read.ts";
import { rejectIfError } from "./service-context.ts";

/** What the handlers need (service.ts passes `requester` in, so this file stays outside the service import cycle). */
export interface PartitionServiceDeps {
  controller: Controller;
  now: () => number;
  requester: (ctx: HandlerContext) => Requester;
  /** spur.conf: `scontrol reconfigure` re-reads it (and topology.conf beside it). */
  confPath: string;
}

const ACTIONS = new Set(["create", "update", "delete"]);

export function partitionHandlers(sc: PartitionServiceDeps) {
  const c = sc.controller;
  return {
    async partition(req: { action: string; name: string; fields: Record<string, string> }, ctx: HandlerContext) {
      if (!ACTIONS.has(req.action)) throw new ConnectError(`Unknown action '${req.action}'`, Code.InvalidArgument);
      const by = sc.requester(ctx);
      const action = req.action as "create" | "update" | "delete";
      const result = await c.execute({ v: 1, type: "partition", at: sc.now(), action, name: req.name, fields: { ...req.fields }, by });
      rejectIfError(result);
      return {};
    },
    async reconfigure(_req: unknown, ctx: HandlerContext) {
      const by = sc.requester(ctx);
      // Slurm checks who asks before it reads anything
      if (by.uid !== 0 && !c.state.config.operators.includes(by.user)) throw new ConnectError("Invalid user id", Code.PermissionDenied);
      const texts = readConfigFiles(sc.confPath);
      const reading = texts.ok ? configReading(texts.value) : texts;
      if (!reading.ok) throw new ConnectError(reading.error.message, Code.FailedPrecondition);
      const result = await c.execute({ v: 1, type: "reconfigure", at: sc.now(), by, ...reading.value });
      rejectIfError(result);
      return { refused: result.text === undefined || result.text === "" ? [] : result.text.split("\n") };
    },
  };
}
