/**
 * @module cli/sacctmgr
 * `sacctmgr [options] <command> <entity> [names] [where ...] [set ...]`:
 * add/create, modify/update, delete/remove and show/list of accounts, users,
 * QOS, clusters and associations. Changes are previewed, printed and then
 * confirmed at Slurm's prompt ("Would you like to commit changes?"), unless
 * -i/--immediate; show prints sacctmgr's columns (format=, -n, -p, -P).
 */
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { ACCOUNT_WITH_ASSOC_FORMAT, SACCTMGR_ALIASES, SACCTMGR_DEFAULT_FORMAT, SACCTMGR_FIELDS, USER_WITH_ASSOC_FORMAT, parseFieldList, renderTable, withTresLimits, type Parsable } from "../compat/format/sacctmgr-fields.ts";
import { type CliPort, type CliResult, RpcError } from "../net/ctl-port.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "immediate", short: "i", long: ["immediate"], arg: "none" },
  { id: "noheader", short: "n", long: ["noheader"], arg: "none" },
  { id: "parsable", short: "p", long: ["parsable"], arg: "none" },
  { id: "parsable2", short: "P", long: ["parsable2"], arg: "none" },
  { id: "quiet", short: "Q", long: ["quiet"], arg: "none" },
  { id: "associations", short: "s", long: ["associations"], arg: "none" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "help", short: "h", long: ["help", "usage"], arg: "none" },
];

const USAGE = `sacctmgr [<OPTION>] [<COMMAND>]
    Valid <OPTION> values are:
     -h or --help: equivalent to "help" command
     -i or --immediate: commit changes immediately
     -n or --noheader: no header will be added to the beginning of output
     -p or --parsable: output will be '|' delimited with a '|' at the end
     -P or --parsable2: output will be '|' delimited without a '|' at the end
     -Q or --quiet: equivalent to "quiet" command
     -s or --associations: equivalent to "associations" command
     -V or --version: equivalent to "version" command

  <COMMAND> may be omitted from the options list:
     add|create <ENTITY> <SPECS>     add an entity
     delete|remove <ENTITY> where <SPECS>  delete the specified entities
     list|show <ENTITY> [<SPECS>]    display information about entities
     modify|update <ENTITY> where <SPECS> set <SPECS>  modify an entity

  <ENTITY> may be account, association, cluster, qos or user.
`;

const ACTIONS: Record<string, "add" | "modify" | "delete" | "show"> = {
  add: "add", create: "add", modify: "modify", update: "modify", delete: "delete", remove: "delete", show: "show", list: "show",
};

/** sacctmgr accepts singular, plural and short forms of entity names. */
function entityOf(word: string): string | undefined {
  const w = word.toLowerCase();
  if (/^accounts?$/.test(w)) return "account";
  if (/^users?$/.test(w)) return "user";
  if (/^qos$/.test(w) || w === "qoses") return "qos";
  if (/^clusters?$/.test(w)) return "cluster";
  if (/^assoc(iations?|s)?$/.test(w)) return "association";
  if (w === "tres") return "tres";
  return undefined;
}

export interface ParsedSpecs {
  names: string[];
  where: Record<string, string>;
  set: Record<string, string>;
  format: string | undefined;
  /** The word WithAssoc(s) was given (as -s/--associations does for users). */
  withAssoc?: boolean;
  /** The word Tree was given: associations in tree order, each account indented by its depth. */
  tree?: boolean;
}

/** Split `names... [where k=v ...] [set k=v ...]`; `k+=v`/`k-=v` keep their sign in the value. */
export function parseSpecs(words: readonly string[], action: string): ParsedSpecs {
  const out: ParsedSpecs = { names: [], where: {}, set: {}, format: undefined };
  let section: "names" | "where" | "set" = "names";
  for (const word of words) {
    const lw = word.toLowerCase();
    if (lw === "where") { section = "where"; continue; }
    if (lw === "set") { section = "set"; continue; }
    const eq = word.indexOf("=");
    if (eq < 0 && /^withassocs?$/.test(lw)) {
      out.withAssoc = true;
      continue;
    }
    if (eq < 0 && lw === "tree") {
      out.tree = true;
      continue;
    }
    if (eq < 0) {
      out.names.push(...word.split(",").filter(Boolean));
      continue;
    }
    let key = word.slice(0, eq).toLowerCase();
    let value = word.slice(eq + 1);
    if (key.endsWith("+") || key.endsWith("-")) {
      value = `${key.slice(-1)}${value}`;
      key = key.slice(0, -1);
    }
    if (key === "format") out.format = value;
    // add: every key=value is a setting; modify: before `set` they select.
    else if (section === "set" || action === "add") out.set[key] = value;
    else out.where[key] = value;
  }
  return out;
}

/** sacctmgr waits this long for an answer, then discards the change. */
const PROMPT_TIMEOUT_MS = 30_000;

/** What sacctmgr says of a command naming no entity it knows, per command (oracle 22.05). */
const NO_ENTITY: Record<"show" | "add" | "modify" | "delete", string> = {
  show: 'No valid entity in list command\nInput line must include "Account", "Association", "Cluster", "Configuration",\n' +
    '"Event", "Federation", "Problem", "QOS", "Resource", "Reservation",\n"RunAwayJobs", "Stats", "Transaction", "TRES", "User", or "WCKey"',
  add: 'No valid entity in add command\nInput line must include "Account", "Cluster", "Coordinator", "Federation", "QOS", "Resource", or "User"',
  delete: 'No valid entity in delete command\nInput line must include "Account", "Cluster", "Coordinator", "Federation", "QOS", "Resource", or "User"',
  modify: 'No valid entity in modify command\nInput line must include "Account", "Cluster", "Federation", "Job", "QOS", "Resource" or "User"',
};

/** Entities sacctmgr has and Spur's accounting does not keep. */
const NOT_KEPT = /^(configuration|coordinators?|events?|federations?|jobs?|problems?|resources?|reservations?|runawayjobs|stats|transactions?|wckeys?)$/i;

/** A format= naming a field sacctmgr does not have, in its words (the parser's message quotes the name). */
// the name lower-cased, as sacctmgr reads it (oracle 22.05: format=FooBar says 'foobar')
const unknownField = (message: string): CliResult => fail(`Unknown field '${(/"(.*)"$/.exec(message)?.[1] ?? message).toLowerCase()}'`);

const fail = (text: string, code = 1): CliResult => ({ stdout: "", stderr: text.endsWith("\n") ? text : `${text}\n`, exitCode: code });
const errorText = (message: string): string => (message.startsWith(" ") ? message : ` ${message}`);

export async function sacctmgrMain(argv: string[], port: CliPort): Promise<CliResult> {
  const parsed = getoptLong("sacctmgr", argv, OPTIONS);
  if (parsed.error !== undefined) return fail(`${parsed.error}\nTry "sacctmgr --help" for more information`);
  let immediate = false;
  let header = true;
  let parsable: Parsable = "";
  let withAssoc = false;
  for (const o of parsed.options) {
    if (o.id === "associations") withAssoc = true;
    if (o.id === "help") return { stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
    if (o.id === "immediate") immediate = true;
    if (o.id === "noheader") header = false;
    if (o.id === "parsable") parsable = "p";
    if (o.id === "parsable2") parsable = "P";
  }
  const [verb, what, ...rest] = parsed.positionals;
  if (verb === undefined) return fail("sacctmgr: no command given (interactive mode is not supported)");
  if (verb === "help") return { stdout: USAGE, stderr: "", exitCode: 0 };
  if (verb === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
  const action = ACTIONS[verb.toLowerCase()];
  if (action === undefined) return fail(`invalid keyword: ${verb}`);
  const entity = what === undefined ? undefined : entityOf(what);
  // an entity of Slurm's that Spur does not keep (events, wckeys, ...) is named as such; anything else gets Slurm's list
  if (entity === undefined && what !== undefined && NOT_KEPT.test(what)) return fail(` Unknown entity '${what}'\n Use keyword 'where' to modify condition`);
  if (entity === undefined) return fail(NO_ENTITY[action]);
  const specs = parseSpecs(rest, action);
  try {
    if (action === "show" && (entity === "user" || entity === "account") && (withAssoc || specs.withAssoc)) {
      return await showWithAssoc(port, entity, specs, header, parsable);
    }
    if (action === "show") return await show(port, entity, specs, header, parsable);
    return await change(port, action, entity, specs, immediate);
  } catch (error) {
    if (error instanceof RpcError) {
      if (error.code === "unavailable") return fail(`sacctmgr: error: ${error.message}`);
      // said on stdout, though the command fails (oracle 22.05)
      if (/^ ?Nothing (deleted|modified)$/.test(error.message)) return { stdout: `${errorText(error.message)}\n`, stderr: "", exitCode: 1 };
      return fail(errorText(error.message));
    }
    throw error;
  }
}

async function show(port: CliPort, entity: string, specs: ParsedSpecs, header: boolean, parsable: Parsable): Promise<CliResult> {
  if (port.ctl.acctList === undefined) return fail("sacctmgr: error: controller does not support sacctmgr");
  const cols = parseFieldList(specs.format ?? SACCTMGR_DEFAULT_FORMAT[entity] ?? "", SACCTMGR_FIELDS, SACCTMGR_ALIASES);
  if (typeof cols === "string") return unknownField(cols);
  const where = { ...specs.where };
  // `show user alice` / `show qos normal`: bare names select by name.
  if (specs.names.length > 0) where[entity === "association" ? "id" : "name"] = specs.names.join(",");
  const tree = specs.tree === true && entity === "association";
  if (tree) where.tree = "yes";
  const res = await port.ctl.acctList({ entity, where });
  const rows = res.rows.map((r) => withTresLimits(r.fields));
  if (!tree) return { stdout: renderTable(cols, rows, header, parsable), stderr: "", exitCode: 0 };
  // tree: the account column left-justified 20 wide (unless sized), each account one space deeper than its parent (oracle 22.05)
  const treeCols = cols.map((c) => (c.key === "account" && c.width === SACCTMGR_FIELDS.account?.[1] && !c.left ? { ...c, width: 20, left: true } : c));
  const indented = rows.map((f) => ({ ...f, account: `${" ".repeat(Number(f.depth ?? 0))}${f.account ?? ""}` }));
  return { stdout: renderTable(treeCols, indented, header, parsable), stderr: "", exitCode: 0 };
}

/**
 * `list users|accounts -s` / `withassoc`: one line per association of each user (or account),
 * the record's fields beside the association's (22.05).
 */
async function showWithAssoc(port: CliPort, entity: "user" | "account", specs: ParsedSpecs, header: boolean, parsable: Parsable): Promise<CliResult> {
  if (port.ctl.acctList === undefined) return fail("sacctmgr: error: controller does not support sacctmgr");
  const cols = parseFieldList(specs.format ?? (entity === "user" ? USER_WITH_ASSOC_FORMAT : ACCOUNT_WITH_ASSOC_FORMAT), SACCTMGR_FIELDS, SACCTMGR_ALIASES);
  if (typeof cols === "string") return unknownField(cols);
  const where = { ...specs.where };
  if (specs.names.length > 0) where.name = specs.names.join(",");
  const records = await port.ctl.acctList({ entity, where });
  const rows: Record<string, string>[] = [];
  for (const r of records.rows) {
    const name = (entity === "user" ? r.fields.user : r.fields.account) ?? "";
    const assocs = await port.ctl.acctList({ entity: "association", where: { [entity]: name } });
    for (const a of assocs.rows) rows.push(withTresLimits({ ...r.fields, ...a.fields }));
  }
  return { stdout: renderTable(cols, rows, header, parsable), stderr: "", exitCode: 0 };
}

async function change(port: CliPort, action: "add" | "modify" | "delete", entity: string, specs: ParsedSpecs, immediate: boolean): Promise<CliResult> {
  const modify = port.ctl.acctModify;
  if (modify === undefined) return fail("sacctmgr: error: controller does not support sacctmgr");
  const req = { action, entity, names: specs.names, where: specs.where, set: specs.set };
  if (immediate) {
    const done = await modify({ ...req, commit: true });
    return { stdout: done.text, stderr: "", exitCode: 0 };
  }
  const preview = await modify({ ...req, commit: false });
  const prompt = "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): ";
  // A real terminal sees the change and the prompt before answering; test ports answer from stdin.
  let shown = "";
  let answer: string | undefined;
  if (port.readLine !== undefined) {
    port.write("stdout", `${preview.text}${prompt}`);
    answer = await port.readLine(PROMPT_TIMEOUT_MS);
  } else {
    shown = `${preview.text}${prompt}`;
    answer = await port.readStdin();
  }
  if (answer === undefined) return { stdout: `${shown}\ntimeout\n Changes Discarded\n`, stderr: "", exitCode: 0 };
  const first = answer.trimStart()[0] ?? "";
  if (first !== "y" && first !== "Y") return { stdout: `${shown}\n Changes Discarded\n`, stderr: "", exitCode: 0 };
  await modify({ ...req, commit: true });
  return { stdout: `${shown}\n`, stderr: "", exitCode: 0 };
}
