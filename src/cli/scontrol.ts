/**
 * @module cli/scontrol
 * `scontrol`: options anywhere on the line (glibc getopt permutes; "--" ends
 * them), then one command matched by Slurm's abbreviation rules. With
 * no command, the commands are read from stdin one per line. Every command
 * is a function over the CliPort (format/scontrol-jobs, -commands); the exit
 * code is 1 when any command failed, as Slurm's scontrol.
 */
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { getoptLong, type OptionRow } from "../compat/format/getopt.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { jobAction, topJobs, merge, outcome, showJob, type Outcome, type ViewFlags } from "./scontrol-jobs.ts";
import { resvCommand, showReservations } from "./scontrol-resv.ts";
import { pingStatus, showConfig, showHosts, showNodes, showPartitions, update, updateEntity } from "./scontrol-commands.ts";
import { keywordMatch } from "../compat/format/scontrol-update.ts";
import { licensesShowText } from "../compat/licenses.ts";
import { withTimeFormat } from "../compat/format-time.ts";

const OPTIONS: readonly OptionRow[] = [
  { id: "all", short: "a", long: ["all"], arg: "none" },
  { id: "details", short: "d", long: ["details"], arg: "none" },
  { id: "future", short: "F", long: ["future"], arg: "none" },
  { id: "help", short: "h", long: ["help"], arg: "none" },
  // the opposite of --all (hidden partitions stay hidden): the default
  { id: "hide", long: ["hide"], arg: "none" },
  { id: "clusters", short: "M", long: ["cluster", "clusters"], arg: "required" },
  { id: "oneliner", short: "o", long: ["oneliner"], arg: "none" },
  { id: "quiet", short: "Q", long: ["quiet"], arg: "none" },
  { id: "usage", short: "u", long: ["usage"], arg: "none" },
  { id: "verbose", short: "v", long: ["verbose"], arg: "none" },
  { id: "version", short: "V", long: ["version"], arg: "none" },
  { id: "json", long: ["json"], arg: "optional" },
  { id: "yaml", long: ["yaml"], arg: "optional" },
];

interface Flags extends ViewFlags {
  quiet: boolean;
  exit: boolean;
  /** --json[=data_parser]: show/ping answer with the REST serializers (src/net/rest/cli-route). */
  json?: { asked: string | undefined; argv: readonly string[] };
}

/** `show ...` and `ping` under --json: the data_parser documents spurrestd serves. */
async function jsonAnswer(port: CliPort, flags: Flags, entity: string, id: string | undefined): Promise<Outcome> {
  const cr = await import("../net/rest/cli-route.ts");
  const target = entity === "ping" ? { operation: "get_ping", params: {} } : cr.showRoute(entity, id);
  if (target === undefined) return outcome("", `scontrol: error: --json is not available for show ${entity}\n`, true);
  const r = await cr.jsonFlagAnswer(target.operation, target.params, port, "scontrol", flags.json?.argv ?? [], flags.json?.asked);
  return outcome(r.stdout, r.stderr, r.exitCode !== 0);
}

const USAGE = [
  "scontrol [<OPTION>] [<COMMAND>]",
  "    Valid <OPTION> values are:",
  "     -a, --all      show hidden partitions and their jobs",
  "     -d, --details  show more details (DerivedExitCode, allocations)",
  "     -F, --future   also show nodes in the FUTURE state",
  "     -h, --help     print this text",
  "     --hide         leave hidden partitions and their jobs out (the default)",
  "     --json, --yaml print show's records as a data_parser document",
  "     -M, --cluster  the cluster to ask",
  "     -o, --oneliner print each record on one line",
  "     -Q, --quiet    print no error messages",
  "     -v, --verbose  say more about what is done",
  "     -V, --version  print the version",
  "",
  "    Valid <COMMAND> values are:",
  "     hold <job_list>, uhold <job_list>, release <job_list>",
  "     requeue <job_list>, requeuehold <job_list>, suspend <job_list>, resume <job_list>",
  "     top <job_list>",
  "     ping, version, help, exit, quit",
  "     show <ENTITY> [<ID>]: config, hostnames, hostlist, hostlistsorted, job, node, partition, step",
  "     update JobId=<id> <Key>=<value> ..., update NodeName=<nodes> State=<state> Reason=<text>",
  "     create|update PartitionName=<name> <Key>=<value> ..., delete PartitionName=<name>",
  "     create|update ReservationName=<name> <Key>=<value> ..., delete ReservationName=<name>",
  "     reconfigure, listpids [<job_id>[.<step_id>]] [<NodeName>]",
  "     write batch_script <job_id> [<file>|-]",
  "",
].join("\n");

const SHOW_ENTITIES: readonly (readonly [string, number])[] = [
  ["aliases", 1], ["bbstat", 2], ["dwstat", 2], ["burstbuffer", 2], ["assoc_mgr", 2], ["cache", 2],
  ["config", 1], ["daemons", 1], ["federations", 1], ["frontendname", 1], ["hostnames", 5], ["hostlist", 5],
  ["hostlistsorted", 9], ["jobs", 1], ["jobid", 1], ["licenses", 2], ["nodes", 1], ["partitions", 2],
  ["partitionname", 2], ["reservations", 1], ["reservationname", 1], ["slurmd", 2], ["steps", 2], ["topology", 1],
];

async function show(port: CliPort, words: string[], flags: Flags): Promise<Outcome> {
  const keyword = words[0] as string;
  if (words.length < 2) return outcome("", `too few arguments for keyword:${keyword}\n`, true);
  if (words.length > 3) return outcome("", `too many arguments for keyword:${keyword}\n`, true);
  const arg = words[1] as string;
  const eq = arg.indexOf("=");
  const tag = eq < 0 ? arg : arg.slice(0, eq);
  const val = eq < 0 ? words[2] : arg.slice(eq + 1);
  const entity = SHOW_ENTITIES.find(([word, min]) => keywordMatch(tag, word, min))?.[0];
  if (flags.json !== undefined && entity === "steps") {
    const r = await (await import("./scontrol-steps-json.ts")).stepsJson(port, val, flags.json.argv, flags.json.asked);
    return outcome(r.stdout, r.stderr, r.exitCode !== 0);
  }
  if (flags.json !== undefined && entity !== undefined) return jsonAnswer(port, flags, entity, val);
  switch (entity) {
    case "jobs":
    case "jobid":
      return showJob(port, val, flags);
    case "nodes":
      return showNodes(port, val, flags);
    case "partitions":
    case "partitionname":
      return showPartitions(port, val, flags);
    case "config":
      return showConfig(port, val);
    case "hostnames":
    case "hostlist":
    case "hostlistsorted":
      return showHosts(port, entity, val);
    case "steps":
      return (await import("./scontrol-show-step.ts")).showSteps(port, val, flags.oneLiner);
    case "reservations":
    case "reservationname":
      return showReservations(port, val, flags.oneLiner);
    case "licenses":
      return outcome(licensesShowText((await port.ctl.listNodes({ withoutNodes: true })).licenses, flags.oneLiner, val), "", false);
    // No burst buffer plugin, no federation, no front end nodes: Slurm answers with nothing to show
    case "burstbuffer":
    case "bbstat":
    case "dwstat":
    case "federations":
      return outcome();
    case "frontendname":
      return outcome("No nodes in the system\n");
    case undefined:
      return outcome("", `invalid entity:${tag} for keyword:${keyword} \n`, true);
    default:
      return outcome("", `show ${entity}: Requested operation is presently disabled\n`, true);
  }
}

/** The action a hold-family keyword asks the controller for. */
function holdAction(tag: string): string | undefined {
  const t = tag.toLowerCase();
  if (keywordMatch(t, "requeue", 3)) return "requeue";
  if (t.startsWith("requeuehold") && t.length >= 11) return "requeuehold";
  if (t.startsWith("holdu") || t.startsWith("uhold")) return "uhold";
  if (t.startsWith("hold")) return "hold";
  if (keywordMatch(t, "release", 3)) return "release";
  if (keywordMatch(t, "suspend", 2)) return "suspend";
  if (keywordMatch(t, "resume", 3)) return "resume";
  return undefined;
}

const FLAG_WORDS: readonly (readonly [string, number, (f: Flags) => void])[] = [
  ["all", 2, (f) => { f.all = true; }], ["details", 1, (f) => { f.detail = 1; }], ["exit", 2, (f) => { f.exit = true; }],
  ["hide", 2, (f) => { f.all = false; f.detail = 0; }], ["oneliner", 1, (f) => { f.oneLiner = true; }],
  ["quiet", 4, (f) => { f.quiet = true; }], ["quit", 4, (f) => { f.exit = true; }], ["verbose", 4, () => {}],
];

async function command(port: CliPort, words: string[], flags: Flags): Promise<Outcome> {
  const tag = words[0] as string;
  const flagWord = FLAG_WORDS.find(([w, min]) => keywordMatch(tag, w, min));
  if (flagWord) {
    flagWord[2](flags);
    return outcome();
  }
  if (keywordMatch(tag, "help", 2)) return outcome(USAGE);
  if (keywordMatch(tag, "ping", 3)) return flags.json === undefined ? pingStatus(port) : jsonAnswer(port, flags, "ping", undefined);
  const action = holdAction(tag);
  if (action !== undefined) {
    if (words.length < 2) return outcome("", `too few arguments for keyword:${tag}\n`, true);
    return jobAction(port, action, words.slice(1));
  }
  if (keywordMatch(tag, "top", 3)) {
    if (words.length !== 2) return outcome("", `too ${words.length < 2 ? "few" : "many"} arguments for keyword:${tag}\n`, true);
    return topJobs(port, words[1] as string);
  }
  if (keywordMatch(tag, "show", 3)) return show(port, words, flags);
  if (keywordMatch(tag, "update", 1)) {
    if (words.length < 2) return outcome("", `too few arguments for ${tag} keyword\n`, true);
    // a job's update may name its reservation: the job wins (Slurm checks for a job id first)
    if (updateEntity(words.slice(1)) === "reservation") return resvCommand(port, "update", words.slice(1));
    if (updateEntity(words.slice(1)) === "partition") return (await import("./scontrol-partition.ts")).partitionCommand(port, "update", words.slice(1));
    return update(port, words.slice(1));
  }
  if (keywordMatch(tag, "create", 2)) {
    if (words.length < 2) return outcome("", `too few arguments for ${tag} keyword\n`, true);
    return createOrDelete(port, "create", words.slice(1));
  }
  if (keywordMatch(tag, "delete", 3)) {
    if (words.length < 2) return outcome("", `too few arguments for ${tag} keyword\n`, true);
    return createOrDelete(port, "delete", words.slice(1));
  }
  if (keywordMatch(tag, "reconfigure", 3)) return reconfigure(port, words);
  if (keywordMatch(tag, "listpids", 1)) return (await import("./scontrol-listpids.ts")).listPidsCommand(port, words, flags.json);
  if (keywordMatch(tag, "version", 4)) return outcome(`${SLURM_VERSION_LINE}\n`);
  if (keywordMatch(tag, "token", 5)) return (await import("./scontrol-token.ts")).tokenCommand(port, words.slice(1));
  if (keywordMatch(tag, "write", 5)) return (await import("./scontrol-write.ts")).writeCommand(port, words);
  return outcome("", `invalid keyword: ${tag}\n`, true);
}

/** `reconfigure`: Slurm complains about extra words and reconfigures anyway. */
async function reconfigure(port: CliPort, words: string[]): Promise<Outcome> {
  const extra = words.length > 2 ? outcome("", `too many arguments for keyword:${words[0]}\n`, true) : outcome();
  if (port.ctl.reconfigure === undefined) return merge([extra, outcome("", "slurm_reconfigure error: Requested operation is presently disabled\n", true)]);
  try {
    const r = await port.ctl.reconfigure({});
    return merge([extra, outcome("", r.refused.map((t) => `slurm_reconfigure error: ${t}\n`).join(""), r.refused.length > 0)]);
  } catch (e) {
    return merge([extra, outcome("", `slurm_reconfigure error: ${e instanceof Error ? e.message : String(e)}\n`, true)]);
  }
}

/**
 * create/delete: the entity is the first word whose tag names a reservation or a partition
 * (Slurm scans for the reservation first: a reservation takes PartitionName= too).
 */
async function createOrDelete(port: CliPort, action: "create" | "delete", args: string[]): Promise<Outcome> {
  const tagOf = (w: string): string => (w.includes("=") ? w.slice(0, w.indexOf("=")) : w);
  const scan = action === "create" ? args : args.slice(0, 1);
  for (const w of scan) {
    if (keywordMatch(tagOf(w), "ReservationName", 3)) return resvCommand(port, action, args);
    if (keywordMatch(tagOf(w), "PartitionName", 3)) return (await import("./scontrol-partition.ts")).partitionCommand(port, action, args);
  }
  return action === "create"
    ? outcome("", `scontrol: error: Invalid creation entity: ${args[0]}\n`, true)
    : outcome("", `Invalid deletion entity: ${args[0]}\n`, true);
}

/** Words of one stdin command line (quotes group, as a shell would). */
const lineWords = (line: string): string[] =>
  (line.match(/"[^"]*"|'[^']*'|\S+/g) ?? []).map((w) => w.replace(/^(["'])(.*)\1$/, "$2"));

const result = (o: Outcome, quiet: boolean): CliResult => ({ stdout: o.stdout, stderr: quiet ? "" : o.stderr, exitCode: o.failed ? 1 : 0 });

/** Run scontrol with `argv` (without the program name). */
/** SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const scontrolMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("scontrol", port.env, port.now(), () => scontrolRun(argv, port));

async function scontrolRun(argv: string[], port: CliPort): Promise<CliResult> {
  // Slurm's scontrol calls getopt_long without "+": glibc permutes, so options after the
  // command count (`scontrol show job -o 12`, `scontrol -a show -o nodes`); "--" ends them.
  const parsed = getoptLong("scontrol", argv, OPTIONS);
  const words = parsed.positionals;
  if (parsed.error !== undefined) {
    return { stdout: "", stderr: `${parsed.error}\nTry "scontrol --help" for more information\n`, exitCode: 1 };
  }
  const flags: Flags = { oneLiner: false, detail: 0, quiet: false, exit: false };
  for (const o of parsed.options) {
    if (o.id === "version") return { stdout: `${SLURM_VERSION_LINE}\n`, stderr: "", exitCode: 0 };
    if (o.id === "help" || o.id === "usage") return { stdout: USAGE, stderr: "", exitCode: 0 };
    if (o.id === "oneliner") flags.oneLiner = true;
    if (o.id === "all") flags.all = true;
    // oracle: --hide also ends -d given before it (`scontrol -d --hide show job` shows no
    // DerivedExitCode); a -d after it counts again
    if (o.id === "hide") Object.assign(flags, { all: false, detail: 0 });
    if (o.id === "details") flags.detail++;
    if (o.id === "quiet") flags.quiet = true;
    if (o.id === "json") flags.json = { asked: o.value, argv };
  }
  if (words.length > 0) return result(await command(port, words, flags), flags.quiet);
  const parts: Outcome[] = [];
  for (const line of (await port.readStdin()).split("\n")) {
    const lw = lineWords(line);
    if (lw.length > 0) parts.push(await command(port, lw, flags));
    if (flags.exit) break;
  }
  return result(merge(parts), flags.quiet);
}
