/**
 * @module ctld/service-trigger
 * strigger's RPCs: set and clear as one "trigger" command through controller.execute
 * (logged, replicated; the rules are sched/model/triggers.ts), and the list --get
 * filters. The caller's identity comes from the kernel (requester), the controller's
 * own uid stands for Slurm's SlurmUser. Imports nothing of service.ts (the caller
 * passes `requester` in), so it stays outside the service import cycle.
 */
import { Code, ConnectError, type HandlerContext } from "@connectrpc/connect";
import type { Controller } from "./controller.ts";
import type { Requester } from "../sched/model/commands.ts";
import { TRIGGER_TYPES, type TriggerResType, type TriggerType } from "../sched/model/trigger-types.ts";
import { expandHostlist } from "../compat/hostlist.ts";
import { accessSync, constants } from "node:fs";
import { rejectIfError } from "./service-context.ts";

export interface TriggerServiceDeps {
  controller: Controller;
  now: () => number;
  /** The uid spurctld runs as (Slurm's SlurmUser). */
  selfUid: number;
  requester: (ctx: HandlerContext) => Requester;
}

const RES_TYPES: readonly TriggerResType[] = ["job", "node", "slurmctld", "slurmdbd", "database", "burst_buffer", "front_end"];
const PROGRAM_LENGTH_MAX = 4096;

interface SetRequest {
  resType: string;
  resId: string;
  types: string[];
  offset: number;
  perm: boolean;
  program: string;
}

function checkSet(req: SetRequest): { resType: TriggerResType; types: TriggerType[] } {
  const resType = RES_TYPES.find((r) => r === req.resType);
  const types = req.types.map((t) => TRIGGER_TYPES.find((k) => k === t));
  if (resType === undefined || types.length === 0 || types.some((t) => t === undefined)) {
    throw new ConnectError("Invalid trigger specification", Code.InvalidArgument);
  }
  if (!req.program.startsWith("/") || req.program.length > PROGRAM_LENGTH_MAX) throw new ConnectError("Invalid trigger specification", Code.InvalidArgument);
  if (resType === "node" && req.resId !== "*" && !expandHostlist(req.resId).ok) throw new ConnectError("Invalid node name specified", Code.InvalidArgument);
  if (resType === "job" && !/^\d+$/.test(req.resId)) throw new ConnectError("Invalid job id specified", Code.InvalidArgument);
  // the program runs on this host: it must be executable here (as Slurm's controller checks)
  if (!executable(req.program.split(" ")[0] ?? "")) throw new ConnectError("Access/permission denied", Code.PermissionDenied);
  return { resType, types: types as TriggerType[] };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export function triggerHandlers(d: TriggerServiceDeps) {
  const c = d.controller;
  return {
    async setTrigger(req: SetRequest, ctx: HandlerContext) {
      const by = d.requester(ctx);
      const { resType, types } = checkSet(req);
      const spec = { resType, resId: req.resId, types, offsetSec: req.offset, perm: req.perm, program: req.program };
      const result = await c.execute({ v: 1, type: "trigger", at: d.now(), action: "set", spec, by, slurmUid: d.selfUid });
      rejectIfError(result);
      return { triggerId: result.ids[0] ?? 0 };
    },
    async clearTrigger(req: { triggerId: number; jobId: number; uid?: number | undefined }, ctx: HandlerContext) {
      const by = d.requester(ctx);
      const selector = {
        ...(req.triggerId > 0 ? { id: req.triggerId } : {}), ...(req.jobId > 0 ? { jobId: req.jobId } : {}),
        ...(req.uid === undefined ? {} : { uid: req.uid }),
      };
      if (Object.keys(selector).length === 0) throw new ConnectError("Invalid trigger specification", Code.InvalidArgument);
      const result = await c.execute({ v: 1, type: "trigger", at: d.now(), action: "clear", selector, by, slurmUid: d.selfUid });
      rejectIfError(result);
      return {};
    },
    listTriggers() {
      const triggers = c.state.triggers.list.map((t) => ({
        triggerId: t.id, resType: t.resType, resId: t.resId, types: t.types, offset: t.offsetSec, user: t.user, uid: t.uid,
        perm: t.perm, program: t.program,
      }));
      return { triggers };
    },
  };
}
