/**
 * @module ctld/service-resv
 * Reservation RPCs: create/update/delete as one "reservation" command through
 * controller.execute (logged, replayed), and the list that `scontrol show
 * reservation` and `sinfo -T` print, with each window as it stands now (sreport's list adds
 * the deleted ones, state DELETED).
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ServiceContext } from "./service-context.ts";
import { requester, rejectIfError } from "./service-context.ts";
import { compressHostlist } from "../compat/hostlist.ts";
import { isActive, windowAt, type ResvRecord } from "../sched/resv/types.ts";

export function resvHandlers(sc: ServiceContext) {
  const c = sc.controller;
  return {
    async reservation(req: { action: string; name: string; fields: Record<string, string> }, ctx: Parameters<typeof requester>[0]) {
      if (req.action !== "create" && req.action !== "update" && req.action !== "delete") {
        throw new ConnectError(`Unknown action '${req.action}'`, Code.InvalidArgument);
      }
      const by = requester(ctx);
      const result = await c.execute({ v: 1, type: "reservation", at: sc.now(), action: req.action, name: req.name, fields: { ...req.fields }, by });
      rejectIfError(result);
      return { name: result.text ?? req.name };
    },
    listReservations(req: { withDeleted?: boolean }) {
      const now = sc.now();
      const info = (r: ResvRecord, state: string) => {
        const w = windowAt(r, now);
        return {
          name: r.name, startTime: w.start, endTime: w.end, nodes: compressHostlist(r.nodes), nodeCount: r.nodes.length,
          coreCount: r.cores, users: r.users, accounts: r.accounts, flags: r.flags, partition: r.partition, state,
        };
      };
      const reservations = [...c.state.reservations.values()]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((r) => info(r, isActive(r, now) ? "ACTIVE" : "INACTIVE"));
      // sreport's: those deleted after they started, ending at their deletion
      if (req.withDeleted === true) reservations.push(...(c.state.deletedReservations ?? []).map((r) => info(r, "DELETED")));
      return { reservations, now };
    },
  };
}
