/**
 * @module cli/sshare
 * `sshare`: the fair-tree rows (shares, decayed usage, LevelFS, factor) as the
 * controller computes them at its clock. Without -a only the caller's own user
 * associations are listed beside the accounts; -u and -A select users and
 * accounts; -U leaves the account rows out; -l adds NormUsage, LevelFS, GrpTRESMins and TRESRunMins; -o picks
 * fields; -n drops the header; -p/-P print '|'-separated output.
 */
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { parseFieldList, renderTable, type Parsable } from "../compat/format/sacctmgr-fields.ts";
import type { ShareRow } from "../net/gen/spur/v1/controller_pb.ts";
import type { Plain } from "../lib/plain.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "all", short: "a", long: ["all"], arg: "none" },
  { id: "accounts", short: "A", long: ["accounts"], arg: "required" },
  { id: "long", short: "l", long: ["long"], arg: "none" },
  // -h is --noheader too in 22.05 (oracle: `sshare -h -o Account,User` prints rows without a header)
  { id: "noheader", short: "n", long: ["noheader"], arg: "none" },
  { id: "noheader", short: "h", long: [], arg: "none" },
  { id: "format", short: "o", long: ["format"], arg: "required" },
  { id: "parsable", short: "p", long: ["parsable"], arg: "none" },
  { id: "parsable2", short: "P", long: ["parsable2"], arg: "none" },
  { id: "users", short: "u", long: ["users"], arg: "required" },
  { id: "usersOnly", short: "U", long: ["Users"], arg: "none" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", long: ["help"], arg: "none" },
  { id: "usage", long: ["usage"], arg: "none" },
  { id: "json", long: ["json"], arg: "optional" },
];

const USAGE = "Usage:  sshare [-a] [-A acct] [-l] [-n] [-o fmt] [-p] [-P] [-u user] [-U] [-v] [-V]\n";

/** Field name -> [header, width]; Account is left-justified, the rest right. */
const FIELDS: Record<string, [string, number]> = {
  account: ["Account", 20], user: ["User", 10], rawshares: ["RawShares", 10], normshares: ["NormShares", 11],
  rawusage: ["RawUsage", 11], normusage: ["NormUsage", 11], effectvusage: ["EffectvUsage", 13], fairshare: ["FairShare", 10],
  levelfs: ["LevelFS", 10], grptresmins: ["GrpTRESMins", 30], tresrunmins: ["TRESRunMins", 30], partition: ["Partition", 12],
  cluster: ["Cluster", 10], id: ["ID", 6],
};
const DEFAULT = "account,user,rawshares,normshares,rawusage,effectvusage,fairshare";
const LONG = "account,user,rawshares,normshares,rawusage,normusage,effectvusage,fairshare,levelfs,grptresmins,tresrunmins";

const fixed6 = (x: number): string => (Number.isFinite(x) ? x.toFixed(6) : "inf");

/**
 * The indentation each row gets: the number of its ancestors that are shown (oracle 22.05:
 * `sshare -A a,b -a` indents b under a, `sshare -U -a` indents no user). `depths` are the tree
 * depths of the rows in the controller's (depth-first) order.
 */
export function shownDepths(depths: readonly number[], shown: readonly boolean[]): number[] {
  const stack: number[] = [];
  const out: number[] = [];
  depths.forEach((depth, i) => {
    stack.length = Math.min(stack.length, depth);
    out.push(stack.filter((j) => shown[j]).length);
    stack.push(i);
  });
  return out;
}

/** One row's cells; `depth` is its shown indentation, `isRoot` whether it is the cluster's root association. */
function rowText(r: Plain<ShareRow> & { isRoot: boolean }, cluster: string): Record<string, string> {
  const isRoot = r.isRoot;
  const isUser = r.user !== "";
  const levelFs = Number(r.levelFs);
  return {
    account: `${" ".repeat(r.depth)}${r.account}`,
    user: r.user, partition: r.partition, cluster,
    rawshares: isRoot ? "" : String(r.rawShares),
    normshares: isRoot ? "0.000000" : fixed6(r.normShares),
    rawusage: String(Math.round(r.rawUsage)),
    // root's NormUsage is empty and its EffectvUsage 1 even without usage (oracle 22.05)
    normusage: isRoot ? "" : fixed6(r.normUsage),
    effectvusage: isRoot ? "1.000000" : fixed6(r.effectvUsage),
    fairshare: isUser ? fixed6(Number(r.fairshare)) : "",
    levelfs: isRoot ? "" : fixed6(levelFs),
    grptresmins: r.grpTresMins, tresrunmins: r.tresRunMins, id: String(r.assocId),
  };
}

export async function sshareMain(argv: string[], port: CliPort): Promise<CliResult> {
  const parsed = getoptLong("sshare", argv, OPTIONS);
  if (parsed.error !== undefined) return { stdout: "", stderr: `${parsed.error}\n${USAGE}`, exitCode: 1 };
  let all = false;
  let long = false;
  let header = true;
  let parsable: Parsable = "";
  let format: string | undefined;
  let usersOnly = false;
  const users: string[] = [];
  const accounts: string[] = [];
  for (const o of parsed.options) {
    const v = o.value ?? "";
    if (o.id === "help" || o.id === "usage") return { stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
    if (o.id === "all") all = true;
    // --json[=data_parser]: the document GET /slurm/v0.0.45/shares serves (src/net/rest/cli-route)
    if (o.id === "json") return (await import("../net/rest/cli-route.ts")).jsonFlagAnswer("get_shares", {}, port, "sshare", argv, o.value);
    if (o.id === "long") long = true;
    if (o.id === "noheader") header = false;
    if (o.id === "parsable") parsable = "p";
    if (o.id === "parsable2") parsable = "P";
    if (o.id === "format") format = v;
    if (o.id === "usersOnly") usersOnly = true;
    if (o.id === "users") users.push(...v.split(",").filter(Boolean));
    if (o.id === "accounts") accounts.push(...v.split(",").filter(Boolean));
  }
  const cols = parseFieldList(format ?? (long ? LONG : DEFAULT), FIELDS);
  // the name lower-cased, as sshare reads it (oracle 22.05: -o Shares says "shares")
  if (typeof cols === "string") return { stdout: "", stderr: `sshare: error: ${cols.replace(/"(.*)"$/, (_m, name: string) => `"${name.toLowerCase()}"`)}\n`, exitCode: 1 };
  for (const c of cols) if (c.key === "account" && !format?.toLowerCase().includes("account%")) c.left = true;
  if (port.ctl.getShares === undefined) return { stdout: "", stderr: "sshare: error: controller does not support sshare\n", exitCode: 1 };
  let res;
  try {
    res = await port.ctl.getShares({});
  } catch (error) {
    if (error instanceof RpcError) return { stdout: "", stderr: `sshare: error: ${error.message}\n`, exitCode: 1 };
    throw error;
  }
  const wantUsers = users.length > 0 ? users : all ? undefined : [port.invoker.user];
  const keep = res.rows.map((r) => {
    // -A keeps the named accounts' own rows and their users', root's only when named (oracle 22.05)
    if (accounts.length > 0 && !accounts.includes(r.account)) return false;
    if (r.user === "") return !usersOnly;
    return wantUsers === undefined || wantUsers.includes(r.user);
  });
  const depths = shownDepths(res.rows.map((r) => r.depth), keep);
  const rows = res.rows.flatMap((r, i) => (keep[i] ? [{ ...r, depth: depths[i] ?? 0, isRoot: r.depth === 0 }] : []));
  return { stdout: renderTable(cols, rows.map((r) => rowText(r, res.cluster)), header, parsable), stderr: "", exitCode: 0 };
}
