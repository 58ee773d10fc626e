/**
 * @module roles/admin/check
 * `spur check [--json] DIR|FILE...`: the migration report, what Spur does with each batch
 * script (ops/check-cli.ts). Exit 0 when every script runs, 1 when one will not, 2 when
 * nothing could be checked.
 */
import type { ParsedArgs } from "citty";
import type { CheckFlags } from "../../ops/check-cli.ts";
import { defineAdminCommand, writeOps } from "./command.ts";

export const checkArgs = {
  json: { type: "boolean", description: "the report as JSON" },
} as const;

export const checkFlagsOf = (a: ParsedArgs<typeof checkArgs>): CheckFlags => ({ json: a.json, paths: a._ });

export default defineAdminCommand({
  meta: { name: "spur check", description: "migration report: what Spur does with each batch script" },
  args: checkArgs,
  rest: { name: "DIR|FILE" },
  run: async ({ args }) => writeOps((await import("../../ops/check-cli.ts")).checkMain(checkFlagsOf(args), Date.now() / 1000)),
});
