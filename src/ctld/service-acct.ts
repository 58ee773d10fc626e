/**
 * @module ctld/service-acct
 * Accounting RPCs: sacctmgr's changes (previewed on a copy, or committed as one
 * "acct" command through controller.execute, so they are logged and replayed),
 * sacctmgr's listings and sshare's fair-tree rows at the controller's clock.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { ServiceContext } from "./service-context.ts";
import { requester, rejectIfError } from "./service-context.ts";
import type { AcctRequest } from "../sched/acct/apply-acct.ts";
import { previewAcct } from "../sched/acct/apply-acct-command.ts";
import { acctRows } from "../sched/acct/acct-rows.ts";
import { fairTree } from "../sched/acct/fair-tree.ts";
import { shareLimitColumns } from "../sched/acct/share-columns.ts";

const ACTIONS = new Set(["add", "modify", "delete"]);
const ENTITIES = new Set(["account", "user", "qos", "cluster", "association"]);

const lower = (m: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(m).map(([k, v]) => [k.toLowerCase(), v]));

export function acctHandlers(sc: ServiceContext) {
  const c = sc.controller;
  return {
    async acctModify(
      req: { action: string; entity: string; names: string[]; where: Record<string, string>; set: Record<string, string>; commit: boolean },
      ctx: Parameters<typeof requester>[0],
    ) {
      if (!ACTIONS.has(req.action)) throw new ConnectError(`Unknown action '${req.action}'`, Code.InvalidArgument);
      if (!ENTITIES.has(req.entity)) throw new ConnectError(`Unknown entity '${req.entity}'`, Code.InvalidArgument);
      const by = requester(ctx);
      const request: AcctRequest = {
        action: req.action as AcctRequest["action"], entity: req.entity as AcctRequest["entity"],
        names: [...req.names], where: lower(req.where), set: lower(req.set),
      };
      if (!req.commit) {
        const out = previewAcct(c.state, by, request);
        if (out.error !== "") throw new ConnectError(out.error, Code.InvalidArgument);
        return { text: out.text, changed: out.changed };
      }
      const result = await c.execute({ v: 1, type: "acct", at: sc.now(), request, by });
      rejectIfError(result);
      return { text: result.text ?? "", changed: result.ids[0] ?? 0 };
    },
    acctList(req: { entity: string; where: Record<string, string> }) {
      const rows = acctRows(c.state, req.entity, lower(req.where));
      if (typeof rows === "string") throw new ConnectError(rows, Code.InvalidArgument);
      // this cluster's controller, as slurmdbd records the one registered (oracle 22.05: ControlHost 127.0.0.1,
      // ControlPort 6817); the state itself holds no address (RPC stays 0: no Slurm protocol number to give)
      const here = (fields: Record<string, string>): Record<string, string> =>
        req.entity.toLowerCase() === "cluster" && fields.cluster === c.state.config.clusterName && sc.address !== undefined
          ? { ...fields, controlhost: sc.address, controlport: String(sc.port ?? 0) }
          : fields;
      return { rows: rows.map((fields) => ({ fields: here(fields) })), cluster: c.state.config.clusterName };
    },
    getShares() {
      const now = sc.now();
      const tree = fairTree(c.state, now, c.state.config.sched.decayHalfLifeSec);
      const columns = shareLimitColumns(c.state, now);
      const rows = tree.rows.map((r) => ({ ...r, grpTresMins: "", tresRunMins: "", ...columns.get(r.assocId) }));
      return { rows, cluster: c.state.config.clusterName };
    },
  };
}
