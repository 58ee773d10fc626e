/**
 * Builders for accounting tests: an "acct" command (sacctmgr's request) as root
 * or as another requester.
 */
import type { Command } from "../../../src/sched/model/commands.ts";
import type { AcctRequest } from "../../../src/sched/acct/apply-acct.ts";
import { ROOT } from "../sched/builders.ts";

export const acct = (request: Partial<AcctRequest> & Pick<AcctRequest, "action" | "entity">, by = ROOT): Command => ({
  v: 1, type: "acct", at: 5, by, request: { names: [], where: {}, set: {}, ...request },
});
