/**
 * @module sched/acct/apply-acct-command
 * The "acct" command as apply() sees it: only root, SpurOperators and users
 * with AdminLevel Operator/Administrator may change accounting; the change
 * itself is applyAcct on the replicated AcctState. `previewAcct` runs the same
 * change on a copy (for sacctmgr's confirmation prompt) and changes nothing.
 */
import type { Command, Requester } from "../model/commands.ts";
import type { ClusterState } from "../model/types.ts";
import { emptyResult, rejected, type ApplyResult } from "../model/apply-result.ts";
import { addAcct, type AcctOutcome, type AcctRequest } from "./apply-acct.ts";
import { deleteAcct, modifyAcct } from "./modify-acct.ts";
import type { AcctState } from "./types.ts";

type AcctCommand = Extract<Command, { type: "acct" }>;

export const ACCESS_DENIED = "Your user doesn't have privilege to perform this action";

export function mayAdminAcct(state: ClusterState, by: Requester): boolean {
  if (by.uid === 0 || state.config.operators.includes(by.user)) return true;
  const level = state.acct.users.get(by.user)?.adminLevel ?? "None";
  return level === "Operator" || level === "Administrator";
}

export function applyAcctCommand(state: ClusterState, c: AcctCommand): ApplyResult {
  if (!mayAdminAcct(state, c.by)) return rejected("AccessDenied", ACCESS_DENIED);
  // Work on a copy so that a request failing half-way changes nothing.
  const copy = cloneAcct(state.acct);
  const out = applyAcct(copy, state.config.clusterName, c.request);
  if (out.error !== "") return rejected("AcctRejected", out.error);
  state.acct = copy;
  return { ...emptyResult(), text: out.text, ids: [out.changed] };
}

export function previewAcct(state: ClusterState, by: Requester, request: AcctRequest): AcctOutcome {
  if (!mayAdminAcct(state, by)) return { error: ACCESS_DENIED, text: "", changed: 0 };
  return applyAcct(cloneAcct(state.acct), state.config.clusterName, request);
}

export function cloneAcct(a: AcctState): AcctState {
  return structuredClone(a);
}

/** sacctmgr's add / modify / delete, by action (add lives in apply-acct.ts, the others in modify-acct.ts). */
export function applyAcct(acct: AcctState, cluster: string, req: AcctRequest): AcctOutcome {
  switch (req.action) {
    case "add":
      return addAcct(acct, cluster, req);
    case "modify":
      return modifyAcct(acct, cluster, req);
    case "delete":
      return deleteAcct(acct, cluster, req);
  }
}
