/**
 * @module sched/acct/add-text
 * What sacctmgr prints when it adds users and accounts (checked against the oracle, 22.05):
 * association lines in fixed-width, cut columns (U 9, A 10, C 10, P 10), the user records'
 * "Settings =" given on the command line, and the associations' "Non Default Settings", one
 * per limit given, in Slurm's order and with its labels ("%-14s= " each). Pure.
 */
import type { Row } from "./acct-rows.ts";

/** `text` in exactly `width` columns: cut, or padded on the right (printf's %-W.Ws). */
export const cut = (text: string, width: number): string => text.slice(0, width).padEnd(width);

/** One association line of an add: user (if any), account, cluster, partition (if any). */
export function assocAddLine(a: { user: string; account: string; cluster: string; partition: string }): string {
  const user = a.user === "" ? "" : `U = ${cut(a.user, 9)} `;
  const partition = a.partition === "" ? "" : ` P = ${cut(a.partition, 10)}`;
  return `  ${user}A = ${cut(a.account, 10)} C = ${cut(a.cluster, 10)}${partition}`;
}

/** Limit labels in the order sacctmgr lists them, each with its column in an association row and the keys that set it. */
const NON_DEFAULT: readonly (readonly [label: string, column: string, keys: readonly string[]])[] = [
  ["Fairshare", "fairshare", ["fairshare", "shares"]],
  ["GrpJobs", "grpjobs", ["grpjobs"]],
  ["GrpSubmitJobs", "grpsubmit", ["grpsubmitjobs", "grpsubmit"]],
  ["GrpTRES", "grptres", ["grptres"]],
  ["GrpTRESMins", "grptresmins", ["grptresmins"]],
  ["GrpWall", "grpwall", ["grpwall"]],
  ["MaxJobs", "maxjobs", ["maxjobs"]],
  ["MaxSubmitJobs", "maxsubmit", ["maxsubmitjobs", "maxsubmit"]],
  ["MaxTRES", "maxtres", ["maxtres", "maxtresperjob"]],
  ["MaxTRESMins", "maxtresmins", ["maxtresmins", "maxtresminsperjob"]],
  ["MaxWall", "maxwall", ["maxwall", "maxwalldurationperjob"]],
  ["Priority", "priority", ["priority"]],
  ["QOS", "qos", ["qos", "qoslevel"]],
  ["DefQOS", "defaultqos", ["defaultqos"]],
];

/** The "Non Default Settings" lines for the limits `set` gave, as the association `row` holds them. */
export function nonDefaultLines(row: Row, set: Readonly<Record<string, string>>): string[] {
  const out: string[] = [];
  for (const [label, column, keys] of NON_DEFAULT) {
    if (keys.some((k) => set[k] !== undefined)) out.push(`  ${label.padEnd(14)}= ${row[column] ?? ""}`);
  }
  return out;
}

/** An add or modify naming a key sacctmgr does not take: the key as given with its value (users: no hint). */
export function unknownOptionText(key: string, value: string | undefined, hint: boolean): string {
  const said = ` Unknown option: ${key}${value === undefined ? "" : `=${value}`}`;
  return hint ? `${said}\n Use keyword 'where' to modify condition` : said;
}
