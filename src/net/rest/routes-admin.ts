/**
 * @module rest/routes-admin
 * The operators' side of /slurm/: reservations (list, one, create or modify, delete:
 * the same Reservation RPC `scontrol create|update|delete reservation` uses), node
 * removal, partition deletion and reconfigure (the Partition and Reconfigure RPCs of
 * `scontrol delete partition` and `scontrol reconfigure`). The controller decides who may (operators and admins), as for the CLI.
 * Failure policy: every body is validated before any call; a reservation list that
 * partly fails stops at the first refusal and says which one (those before it are done,
 * as with slurmrestd's POST reservations/).
 */
import type { Route, RequestContext } from "./route.ts";
import type { Infer } from "./schema.ts";
import { arr, named, obj, str } from "./schema.ts";
import { RestError } from "./errors.ts";
import { ctlCall } from "./ctl-errors.ts";
import { OpenapiResp, Uint32NoVal, Uint64NoVal, envelopeProps, value } from "./schemas-common.ts";
import { ReservationsResp } from "./schemas-cluster.ts";

const names = (max = 4096) => arr(str(256), max);

/** reservation_desc_msg: what a client may set on a reservation. */
export const ReservationDesc = named(
  "reservation_desc_msg",
  obj({
    name: str(256), start_time: Uint64NoVal, end_time: Uint64NoVal, duration: Uint32NoVal,
    node_list: names(), node_count: Uint32NoVal, core_count: Uint32NoVal, users: names(), accounts: names(),
    flags: names(64), partition: str(256), comment: str(4096),
  }),
);
export const ReservationModReq = named("reservation_mod_req", obj({ reservations: arr(ReservationDesc, 1000) }, ["reservations"]));
export const ReservationModResp = named("openapi_reservation_mod_resp", obj({ reservations: arr(ReservationDesc), ...envelopeProps }, ["reservations"]));

type Desc = Infer<typeof ReservationDesc>;
type NoValIn = { set?: boolean; infinite?: boolean; number?: number } | undefined;

const setNumber = (v: NoValIn): number | undefined => (v === undefined || v.set === false || v.infinite === true ? undefined : v.number);

/** A reservation_desc_msg → the keys `scontrol create reservation` sends (lower-cased). */
export function resvFields(d: Desc): Record<string, string> {
  const f: Record<string, string> = {};
  const start = setNumber(d.start_time);
  if (start !== undefined) f.starttime = String(start);
  const minutes = setNumber(d.duration);
  if (d.duration?.infinite === true) f.duration = "UNLIMITED";
  else if (minutes !== undefined) f.duration = String(minutes);
  const end = setNumber(d.end_time);
  if (end !== undefined && f.duration === undefined) f.endtime = String(end);
  if (d.node_list !== undefined && d.node_list.length > 0) f.nodes = d.node_list.join(",");
  const count = setNumber(d.node_count);
  if (count !== undefined && f.nodes === undefined) f.nodecnt = String(count);
  if (d.users !== undefined) f.users = d.users.join(",");
  if (d.accounts !== undefined) f.accounts = d.accounts.join(",");
  if (d.flags !== undefined && d.flags.length > 0) f.flags = d.flags.join(",");
  if (d.partition !== undefined && d.partition !== "") f.partitionname = d.partition;
  return f;
}

async function reservations(rc: RequestContext, name?: string) {
  if (rc.ctl.listReservations === undefined) throw new RestError("NotImplemented", "This controller does not list reservations", "get_reservations");
  const list = rc.ctl.listReservations.bind(rc.ctl);
  const res = await ctlCall("get_reservations", () => list({ withDeleted: false }));
  const items = name === undefined ? res.reservations : res.reservations.filter((r) => r.name === name);
  if (name !== undefined && items.length === 0) throw new RestError("NotFound", `Unable to query reservation ${name.slice(0, 64)}`, "get_reservation", "Requested reservation is invalid", 2051);
  return {
    reservations: items.map((r) => ({
      name: r.name, node_list: r.nodes, node_count: r.nodeCount, partition: r.partition, users: r.users.join(","), accounts: r.accounts.join(","),
      start_time: value(Math.floor(r.startTime)), end_time: value(Math.floor(r.endTime)), flags: r.flags,
    })),
    last_update: value(Math.floor(rc.nowSec)),
  };
}

async function existingNames(rc: RequestContext): Promise<Set<string>> {
  if (rc.ctl.listReservations === undefined) return new Set();
  const list = rc.ctl.listReservations.bind(rc.ctl);
  return new Set((await ctlCall("post_reservation", () => list({ withDeleted: false }))).reservations.map((r) => r.name));
}

/** Create the reservations that do not exist yet, update the others (slurmrestd's "create or modify"). */
async function upsert(rc: RequestContext, descs: readonly Desc[]) {
  if (rc.ctl.reservation === undefined) throw new RestError("NotImplemented", "This controller does not manage reservations", "post_reservation");
  const call = rc.ctl.reservation.bind(rc.ctl);
  const known = await existingNames(rc);
  const done: Desc[] = [];
  for (const d of descs) {
    const name = d.name ?? "";
    const action = name !== "" && known.has(name) ? "update" : "create";
    const res = await ctlCall("post_reservation", () => call({ action, name, fields: resvFields(d) }));
    done.push({ ...d, name: res.name || name });
  }
  return { reservations: done };
}

async function deleteReservation(rc: RequestContext) {
  if (rc.ctl.reservation === undefined) throw new RestError("NotImplemented", "This controller does not manage reservations", "delete_reservation");
  const call = rc.ctl.reservation.bind(rc.ctl);
  const name = rc.params.reservation_name ?? "";
  await ctlCall("delete_reservation", () => call({ action: "delete", name, fields: {} }));
  return {};
}

async function deleteNode(rc: RequestContext): Promise<Record<string, unknown>> {
  const name = rc.params.node_name ?? "";
  const res = await ctlCall("delete_node", () => rc.ctl.listNodes({ names: [name] }));
  if (!res.nodes.some((n) => n.name === name)) throw new RestError("InvalidNodeName", `Unable to delete node ${name.slice(0, 64)}: no such node`, "delete_node", "Invalid node name specified");
  // Spur has no dynamic nodes: every node is a NodeName= line that the whole cluster reads.
  throw new RestError("Rejected", `Node ${name} is not dynamic: remove its NodeName= line from spur.conf and restart spurctld to delete it`, "delete_node", "Invalid node state specified", 2021);
}

/** GET reconfigure/: `scontrol reconfigure` (the controller re-reads spur.conf and replicates it). */
async function reconfigure(rc: RequestContext): Promise<Record<string, unknown>> {
  if (rc.ctl.reconfigure === undefined) throw new RestError("NotImplemented", "This controller does not reconfigure", "reconfigure");
  const call = rc.ctl.reconfigure.bind(rc.ctl);
  const res = await ctlCall("reconfigure", () => call({}));
  // what needs a restart kept its old value: said as slurmctld answers the RPC (an error), the rest applied
  if (res.refused.length > 0) throw new RestError("Rejected", res.refused.join("; "), "reconfigure", res.refused[res.refused.length - 1]);
  return {};
}

/** DELETE partition/{partition_name}: `scontrol delete PartitionName=`. */
async function deletePartition(rc: RequestContext): Promise<Record<string, unknown>> {
  if (rc.ctl.partition === undefined) throw new RestError("NotImplemented", "This controller does not manage partitions", "delete_partition");
  const call = rc.ctl.partition.bind(rc.ctl);
  await ctlCall("delete_partition", () => call({ action: "delete", name: rc.params.partition_name ?? "", fields: {} }));
  return {};
}

export const ADMIN_ROUTES: readonly Route[] = [
  { method: "get", api: "slurm", path: "reconfigure/", since: 43, operation: "get_reconfigure", summary: "request slurmctld reconfigure", response: OpenapiResp, handle: reconfigure },
  { method: "delete", api: "slurm", path: "partition/{partition_name}", since: 45, operation: "delete_partition", summary: "delete partition", response: OpenapiResp, handle: deletePartition },
  { method: "get", api: "slurm", path: "reservations/", since: 42, operation: "get_reservations", summary: "get all reservation info", query: ["update_time"], response: ReservationsResp, handle: (rc) => reservations(rc) },
  { method: "get", api: "slurm", path: "reservation/{reservation_name}", since: 42, operation: "get_reservation", summary: "get reservation info", response: ReservationsResp, handle: (rc) => reservations(rc, rc.params.reservation_name ?? "") },
  { method: "post", api: "slurm", path: "reservations/", since: 43, operation: "post_reservations", summary: "create or update reservations", body: ReservationModReq, response: ReservationModResp, handle: (rc) => upsert(rc, (rc.body as Infer<typeof ReservationModReq>).reservations) },
  { method: "post", api: "slurm", path: "reservation", since: 43, operation: "post_reservation", summary: "create or update a reservation", body: ReservationDesc, response: ReservationModResp, handle: (rc) => upsert(rc, [rc.body as Desc]) },
  { method: "delete", api: "slurm", path: "reservation/{reservation_name}", since: 43, operation: "delete_reservation", summary: "delete a reservation", response: OpenapiResp, handle: deleteReservation },
  { method: "delete", api: "slurm", path: "node/{node_name}", since: 42, operation: "delete_node", summary: "delete node", response: OpenapiResp, handle: deleteNode },
];
