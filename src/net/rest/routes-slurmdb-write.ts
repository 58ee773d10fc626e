/**
 * @module rest/routes-slurmdb-write
 * /slurmdb/ writes: add or update accounts, users, QOS and associations, and delete
 * them, through the controller's AcctModify RPC, the same one `sacctmgr add|modify|
 * delete` uses, so each change is one logged, replicated "acct" command and the
 * controller applies sacctmgr's authorisation (operators and admins only).
 * "Add or update" as slurmdbd does it: an add that finds the record already there
 * ("Nothing new added") becomes a modify of the fields given.
 * Also the read side from the same records (AcctList), so that what a POST wrote is
 * what a GET shows; controllers without it fall back to routes-slurmdb.ts's view.
 * Failure policy: bodies are validated before any call; items are applied in order
 * and the first refusal stops the request, naming the item (earlier ones are done).
 */
import type { Route, RequestContext } from "./route.ts";
import type { Infer } from "./schema.ts";
import { arr, bool, int32, named, num, obj, str, strEnum } from "./schema.ts";
import { RestError } from "./errors.ts";
import { ctlCall } from "./ctl-errors.ts";
import { OpenapiResp, Uint32NoVal, envelopeProps, value } from "./schemas-common.ts";
import type { ControllerPort } from "../ctl-port.ts";

const name = () => str(256);
const ADMIN_LEVELS = ["Not Set", "None", "Operator", "Administrator"] as const;

const AccountIn = obj({ name: name(), description: str(4096), organization: str(4096), flags: arr(str(64), 64), coordinators: arr(obj({ name: name(), direct: bool() }), 64) }, ["name"]);
const UserIn = obj({
  name: name(), administrator_level: arr(strEnum(ADMIN_LEVELS), 4), default: obj({ account: name(), wckey: name(), qos: int32() }), flags: arr(str(64), 64),
  old_name: name(), associations: arr(obj({ account: name(), cluster: name(), partition: name(), user: name() }), 1000), coordinators: arr(obj({ name: name(), direct: bool() }), 64),
}, ["name"]);
const QosIn = obj({ name: name(), description: str(4096), flags: arr(str(64), 64), id: int32(), priority: Uint32NoVal, usage_factor: num() }, ["name"]);
const AssocIn = obj({
  account: name(), cluster: name(), partition: name(), user: name(), id: int32(), is_default: bool(), flags: arr(str(64), 64),
  shares_raw: int32(), default: obj({ qos: name() }), qos: arr(name(), 256), comment: str(4096),
}, ["account", "user"]);

export const AccountsReq = named("openapi_accounts_post_req", obj({ accounts: arr(AccountIn, 1000), ...envelopeProps }, ["accounts"]));
export const UsersReq = named("openapi_users_post_req", obj({ users: arr(UserIn, 1000), ...envelopeProps }, ["users"]));
export const QosReq = named("openapi_slurmdbd_qos_post_req", obj({ qos: arr(QosIn, 1000), ...envelopeProps }, ["qos"]));
export const AssocsReq = named("openapi_assocs_post_req", obj({ associations: arr(AssocIn, 1000), ...envelopeProps }, ["associations"]));

export const AccountsRemovedResp = named("openapi_accounts_removed_resp", obj({ removed_accounts: arr(str()), ...envelopeProps }, ["removed_accounts"]));
export const QosRemovedResp = named("openapi_slurmdbd_qos_removed_resp", obj({ removed_qos: arr(str()), ...envelopeProps }, ["removed_qos"]));
export const AssocsRemovedResp = named("openapi_assocs_removed_resp", obj({ removed_associations: arr(str()), ...envelopeProps }, ["removed_associations"]));

type Entity = "account" | "user" | "qos" | "association";
interface Change {
  entity: Entity;
  names: string[];
  /** Fields for `add`. */
  add: Record<string, string>;
  /** Fields for `modify` when the record exists (empty: nothing to change). */
  modify: Record<string, string>;
  where?: Record<string, string>;
  /** How the item is named in an error. */
  what: string;
}

function modifier(rc: RequestContext, source: string): NonNullable<ControllerPort["acctModify"]> {
  if (rc.ctl.acctModify === undefined) throw new RestError("Rejected", "This controller keeps no accounting records", source);
  return rc.ctl.acctModify.bind(rc.ctl);
}

/** Add, or modify what exists: one AcctModify (two when the record was there). */
async function upsert(rc: RequestContext, source: string, changes: readonly Change[]): Promise<Record<string, unknown>> {
  const modify = modifier(rc, source);
  for (const c of changes) {
    try {
      await ctlCall(source, () => modify({ action: "add", entity: c.entity === "association" ? "user" : c.entity, names: c.names, where: {}, set: c.add, commit: true }));
    } catch (e) {
      if (!(e instanceof RestError) || !/Nothing new added/.test(e.message)) throw withItem(e, c.what);
      if (Object.keys(c.modify).length === 0) continue;
      const where = c.where ?? {};
      try {
        await ctlCall(source, () => modify({ action: "modify", entity: c.entity === "association" ? "user" : c.entity, names: c.where === undefined ? c.names : [], where, set: c.modify, commit: true }));
      } catch (e2) {
        throw withItem(e2, c.what);
      }
    }
  }
  return {};
}

function withItem(e: unknown, what: string): unknown {
  if (!(e instanceof RestError)) return e;
  return new RestError(e.kind, `${what}: ${e.description.trim()}`, e.source, e.errorText, e.errno);
}

const pick = (entries: [string, string | undefined][]): Record<string, string> => Object.fromEntries(entries.filter((kv): kv is [string, string] => kv[1] !== undefined && kv[1] !== ""));

function accountChanges(body: Infer<typeof AccountsReq>): Change[] {
  return body.accounts.map((a) => {
    const set = pick([["description", a.description], ["organization", a.organization]]);
    return { entity: "account", names: [a.name], add: set, modify: set, what: `account ${a.name}` };
  });
}

function adminLevel(levels: readonly string[] | undefined): string | undefined {
  const l = levels?.find((x) => x !== "Not Set");
  return l;
}

function userChanges(body: Infer<typeof UsersReq>): Change[] {
  return body.users.map((u) => {
    const accounts = [...new Set([u.default?.account ?? "", ...(u.associations ?? []).map((a) => a.account)].filter(Boolean))];
    const admin = adminLevel(u.administrator_level);
    const add = pick([["account", accounts.join(",")], ["defaultaccount", u.default?.account], ["adminlevel", admin]]);
    const modify = pick([["defaultaccount", u.default?.account], ["adminlevel", admin]]);
    return { entity: "user", names: [u.name], add, modify, what: `user ${u.name}` };
  });
}

function qosChanges(body: Infer<typeof QosReq>): Change[] {
  return body.qos.map((q) => {
    const priority = q.priority?.set === false || q.priority?.number === undefined ? undefined : String(q.priority.number);
    const add = pick([["description", q.description], ["priority", priority], ["usagefactor", q.usage_factor === undefined ? undefined : String(q.usage_factor)]]);
    return { entity: "qos", names: [q.name], add, modify: add, what: `qos ${q.name}` };
  });
}

function assocChanges(body: Infer<typeof AssocsReq>): Change[] {
  return body.associations.map((a) => {
    const limits = pick([["fairshare", a.shares_raw === undefined ? undefined : String(a.shares_raw)], ["defaultqos", a.default?.qos], ["qos", a.qos?.join(",")]]);
    const add = { ...pick([["account", a.account], ["partition", a.partition], ["cluster", a.cluster]]), ...limits };
    const where = pick([["account", a.account], ["user", a.user], ["partition", a.partition], ["cluster", a.cluster]]);
    return { entity: "association", names: [a.user], add, modify: limits, where, what: `association of user ${a.user} to account ${a.account}` };
  });
}

async function remove(rc: RequestContext, source: string, entity: Entity | "association", names: string[], where: Record<string, string> = {}): Promise<string[]> {
  const modify = modifier(rc, source);
  try {
    await ctlCall(source, () => modify({ action: "delete", entity, names, where, set: {}, commit: true }));
  } catch (e) {
    if (e instanceof RestError && /Nothing deleted/.test(e.message)) throw new RestError("NotFound", `Nothing found to delete (${[...names, ...Object.entries(where).map(([k, v]) => `${k}=${v}`)].join(", ").slice(0, 200)})`, source, "Nothing found", 9003);
    throw e;
  }
  return names.length > 0 ? names : [Object.entries(where).map(([k, v]) => `${k}=${v}`).join(",")];
}

function assocFilter(rc: RequestContext, source: string): Record<string, string> {
  const where = pick([["account", rc.query.account], ["user", rc.query.user], ["partition", rc.query.partition], ["cluster", rc.query.cluster]]);
  if (where.account === undefined && where.user === undefined) throw new RestError("InvalidQuery", "Give account= and/or user= to say which associations to delete", source);
  return where;
}

// --- read side from the controller's accounting records --------------------------------

type Rows = { fields: Record<string, string> }[];

async function rows(rc: RequestContext, entity: string, source: string): Promise<Rows | undefined> {
  if (rc.ctl.acctList === undefined) return undefined;
  const list = rc.ctl.acctList.bind(rc.ctl);
  return (await ctlCall(source, () => list({ entity, where: {} }))).rows;
}

const LEVELS: Record<string, (typeof ADMIN_LEVELS)[number]> = { administrator: "Administrator", admin: "Administrator", operator: "Operator", none: "None" };

export async function accountsFromRecords(rc: RequestContext): Promise<Record<string, unknown> | undefined> {
  const r = await rows(rc, "account", "get_accounts");
  return r && { accounts: r.map(({ fields: f }) => ({ description: f.description ?? "", name: f.account ?? "", organization: f.organization ?? "", flags: [] })) };
}

export async function usersFromRecords(rc: RequestContext): Promise<Record<string, unknown> | undefined> {
  const r = await rows(rc, "user", "get_users");
  return r && {
    users: r.map(({ fields: f }) => ({
      administrator_level: [LEVELS[(f.adminlevel ?? "").toLowerCase()] ?? "None"], default: { account: f.defaultaccount ?? "", wckey: "" }, flags: [], name: f.user ?? "",
    })),
  };
}

export async function qosFromRecords(rc: RequestContext): Promise<Record<string, unknown> | undefined> {
  const r = await rows(rc, "qos", "get_qos");
  return r && {
    qos: r.map(({ fields: f }) => ({ description: f.description ?? "", flags: [], id: Number(f.id ?? 0), name: f.name ?? "", priority: value(Number(f.priority ?? 0)), usage_factor: Number(f.usagefactor ?? 1) })),
  };
}

export async function assocsFromRecords(rc: RequestContext): Promise<Record<string, unknown> | undefined> {
  const r = await rows(rc, "association", "get_associations");
  return r && {
    associations: r.map(({ fields: f }) => ({ account: f.account ?? "", cluster: f.cluster ?? "", partition: f.partition ?? "", user: f.user ?? "", id: Number(f.id ?? 0), is_default: false, flags: [] })),
  };
}

export const SLURMDB_WRITE_ROUTES: readonly Route[] = [
  { method: "post", api: "slurmdb", path: "accounts/", since: 42, operation: "post_accounts", summary: "Add/update list of accounts", body: AccountsReq, response: OpenapiResp, handle: (rc) => upsert(rc, "post_accounts", accountChanges(rc.body as Infer<typeof AccountsReq>)) },
  { method: "post", api: "slurmdb", path: "users/", since: 42, operation: "post_users", summary: "Update users", body: UsersReq, response: OpenapiResp, handle: (rc) => upsert(rc, "post_users", userChanges(rc.body as Infer<typeof UsersReq>)) },
  { method: "post", api: "slurmdb", path: "qos/", since: 42, operation: "post_qos", summary: "Add or update QOSs", body: QosReq, response: OpenapiResp, handle: (rc) => upsert(rc, "post_qos", qosChanges(rc.body as Infer<typeof QosReq>)) },
  { method: "post", api: "slurmdb", path: "associations/", since: 42, operation: "post_associations", summary: "Set associations info", body: AssocsReq, response: OpenapiResp, handle: (rc) => upsert(rc, "post_associations", assocChanges(rc.body as Infer<typeof AssocsReq>)) },
  { method: "delete", api: "slurmdb", path: "account/{account_name}", since: 42, operation: "delete_account", summary: "Delete account", response: AccountsRemovedResp, handle: async (rc) => ({ removed_accounts: await remove(rc, "delete_account", "account", [rc.params.account_name ?? ""]) }) },
  { method: "delete", api: "slurmdb", path: "user/{name}", since: 42, operation: "delete_user", summary: "Delete user", response: OpenapiResp, handle: async (rc) => (await remove(rc, "delete_user", "user", [rc.params.name ?? ""]), {}) },
  { method: "delete", api: "slurmdb", path: "qos/{qos}", since: 42, operation: "delete_single_qos", summary: "Delete QOS", response: QosRemovedResp, handle: async (rc) => ({ removed_qos: await remove(rc, "delete_single_qos", "qos", [rc.params.qos ?? ""]) }) },
  { method: "delete", api: "slurmdb", path: "associations/", since: 42, operation: "delete_associations", summary: "Delete associations", query: ["account", "user", "partition", "cluster"], response: AssocsRemovedResp, handle: async (rc) => ({ removed_associations: await remove(rc, "delete_associations", "association", [], assocFilter(rc, "delete_associations")) }) },
  { method: "delete", api: "slurmdb", path: "association/", since: 42, operation: "delete_association", summary: "Delete association", query: ["account", "user", "partition", "cluster"], response: AssocsRemovedResp, handle: async (rc) => ({ removed_associations: await remove(rc, "delete_association", "association", [], assocFilter(rc, "delete_association")) }) },
];
