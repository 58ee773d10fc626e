/**
 * @module compat/options/spec-syntax
 * Syntax checks for option values with a small grammar (counts, node ranges, gres, gpus,
 * signals, mail types, distribution) and the LIGHT syntax checks of --array/--dependency
 * (their semantics live in src/compat/array-spec.ts and src/compat/dependency.ts).
 * Messages are Slurm's; option-value errors exit 255 like Slurm's exit(-1).
 */
import type { GresRequest } from "../../net/gen/spur/v1/types_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { parseDurationSec } from "../parse-time.ts";
import { signalNumber } from "../signals.ts";
import { parseGresCount } from "../gres-generic.ts";

const OPTION_EXIT = 255;

/** Error codes of checks Slurm makes in its controller: printed as submission rejections. */
export const NODE_COUNT_INVALID = "NodeCountInvalid";
export const INVALID_NODE_NAME = "InvalidNodeName";
const INT_MAX = 2147483647;

/** Slurm's parse_int exits 1 (not -1): x-err-sbatch-ntasks-zero, x-err-sbatch-cpus-garbage. */
const PARSE_INT_EXIT = 1;

/** A C long's largest value: Slurm's parse_int reads with strtol, which stops there. */
const LONG_MAX = 9223372036854775807n;

/**
 * The whole number parse_int reads, as a bigint: > 0 when `positive`, else >= 0; at or past
 * LONG_MAX refused naming the clamped value, as 22.05 does (oracle: `--ntasks-per-core=99999999999999999999`
 * → "Numeric argument (9223372036854775807) to big for --ntasks-per-core.").
 */
function parseLong(text: string, optionName: string, positive: boolean): Result<bigint> {
  const n = /^[+]?[0-9]+$/.test(text) ? BigInt(text.replace(/^\+/, "")) : undefined;
  if (n === undefined || (positive && n <= 0n)) {
    return err("BadNumber", `Invalid numeric value "${text}" for ${optionName}.`, PARSE_INT_EXIT);
  }
  if (n >= LONG_MAX) return err("BadNumber", `Numeric argument (${LONG_MAX}) to big for ${optionName}.`, PARSE_INT_EXIT);
  return ok(n);
}

/** Slurm's parse_int: a whole number, > 0 when `positive`, else >= 0. */
export function parseCount(text: string, optionName: string, positive = true): Result<number> {
  const r = parseLong(text, optionName, positive);
  if (!r.ok) return r;
  // 22.05 keeps the low 32 bits of a larger one; Spur refuses it (any such count is past every node)
  if (r.value > BigInt(INT_MAX)) return err("BadNumber", `Numeric argument (${text}) to big for ${optionName}.`, PARSE_INT_EXIT);
  return ok(Number(r.value));
}

/**
 * A count 22.05 keeps in 16 bits (--sockets-per-node, --cores-per-socket, --threads-per-core,
 * --ntasks-per-socket, --ntasks-per-core): parse_int's number, any size below LONG_MAX, cut to
 * its low 16 bits, where 65534 is Slurm's "not set" (shown as *), and 65535 too for the task
 * counts (`infiniteUnset`). Oracle: 70000 is kept as 4464, 65537 as 1, 4294967296 as 0; 65534 shows *;
 * 2147483647 (65535) shows * for --ntasks-per-core/--ntasks-per-socket and 65535 for the others.
 * Undefined: not set (0 too: Spur's records show an unset count and 0 alike, as *).
 */
export function parseCount16(text: string, optionName: string, infiniteUnset: boolean): Result<number | undefined> {
  const r = parseLong(text, optionName, true);
  if (!r.ok) return r;
  const low = Number(r.value & 0xffffn);
  return ok(low === 0 || low === 0xfffe || (infiniteUnset && low === 0xffff) ? undefined : low);
}

function nodeNumber(text: string): number | undefined {
  const m = /^([0-9]+)([kKmM]?)$/.exec(text);
  if (m === null) return undefined;
  const scale = m[2] === "" ? 1 : /k/i.test(m[2] as string) ? 1024 : 1024 * 1024;
  return Number(m[1]) * scale;
}

/** --nodes=<min>[-<max>] (k/m suffixes as Slurm). Size lists (1,4,8) are not supported. */
export function parseNodeCount(text: string): Result<{ min: number; max: number }> {
  if (/[,:]/.test(text)) return err("Unsupported", `--nodes size lists (${text}) are not supported by Spur`);
  const dash = text.indexOf("-");
  const minText = dash < 0 ? text : text.slice(0, dash);
  // "-N-3": no minimum before the dash means 1 (Slurm's NumNodes=1-3)
  const min = dash === 0 ? 1 : nodeNumber(minText);
  if (min === undefined) return err("BadNodes", `"${minText}" is not a valid node count`, OPTION_EXIT);
  // -N 0: Slurm's controller rejects it (x-err-sbatch-nodes-zero)
  if (dash < 0 && min === 0) return err(NODE_COUNT_INVALID, "Node count specification invalid");
  if (dash < 0) return ok({ min, max: min });
  const maxText = text.slice(dash + 1);
  // "-N 1-": Slurm reads the missing maximum as -1 (oracle: "Maximum node count -1 is less than minimum node count 1")
  if (maxText === "") return err("BadNodes", `Maximum node count -1 is less than minimum node count ${Math.max(min, 1)}`, OPTION_EXIT);
  const max = nodeNumber(maxText);
  if (max === undefined) return err("BadNodes", `"${maxText}" is not a valid node count`, OPTION_EXIT);
  const lo = Math.max(min, 1);
  if (max < lo) {
    return err("BadNodes", `Maximum node count ${max} is less than minimum node count ${lo}`, OPTION_EXIT);
  }
  return ok({ min: lo, max });
}

const UINT32_MAX = 0xffffffff;
export const GRES_MESSAGE = "Invalid generic resource (gres) specification";
const NAME_RE = /^[A-Za-z0-9_.]+(?:[-][A-Za-z0-9_.]+)*$/;

/** --gres=<name>[[:<type>]:<count>][,...]; "none" clears. */
/** A --gres naming nothing ("" or ","): sbatch sends it on and the controller refuses it (oracle 22.05). */
export const INVALID_TRES = "InvalidTres";

export function parseGres(text: string): Result<Plain<GresRequest>[]> {
  if (text.toLowerCase() === "none") return ok([]);
  // oracle: --gres= and --gres=, fail as "Batch job submission failed: Invalid Trackable RESource (TRES) specification"
  if (text.split(",").every((item) => item === "")) return err(INVALID_TRES, "Invalid Trackable RESource (TRES) specification");
  const out: Plain<GresRequest>[] = [];
  for (const raw of text.split(",")) {
    // "gres:" is dropped; "gres/" (the TRES spelling) is not a GRES name (oracle 22.05: --gres=gres:gpu:1 is
    // TresPerNode=gres:gpu:1, --gres=gres/gpu:1 is "Invalid generic resource (gres) specification", exit 1)
    const item = raw.replace(/^gres:/, "");
    const parts = item.split(":");
    const name = parts[0] ?? "";
    const last = parts[parts.length - 1] ?? "";
    const counted = parts.length > 1 ? parseGresCount(last) : undefined;
    const hasCount = counted !== undefined;
    const type = parts.length === 3 || (parts.length === 2 && !hasCount) ? (parts[1] as string) : "";
    if (parts.length > 3 || !NAME_RE.test(name) || (type !== "" && !NAME_RE.test(type))) {
      return err("InvalidGres", GRES_MESSAGE);
    }
    if (parts.length === 3 && !hasCount) return err("InvalidGres", GRES_MESSAGE);
    // Counts take K/M/G suffixes (--gres=bandwidth:lustre:1G); one above uint32 travels as countWide.
    const count = counted ?? 1;
    // no count: one, shown without a count (oracle 22.05: --gres=gpu is TresPerNode=gres:gpu, --gres=gpu:mi300x gres:gpu:mi300x)
    const omitted = hasCount ? {} : { countOmitted: true };
    out.push(count > UINT32_MAX ? { name, type, count: 0, countWide: count } : { name, type, count, ...omitted });
  }
  return ok(out);
}

/**
 * --gpus / --gpus-per-node / --gpus-per-task: [type:]count[,...]. The text is kept as given.
 * A zero count is accepted and asks for no GPU (oracle: --gpus=0, --gpus=mi300x:0,
 * --gpus-per-node=0, --gpus-per-task=0 are submitted; differential seeds 103, 221).
 */
export function checkGpus(text: string): Result<string> {
  // an empty value asks for none (oracle: --gpus= and --gpus-per-node= are submitted; differential seeds 1286, 1299)
  if (text === "") return ok(text);
  for (const item of text.split(",")) {
    const parts = item.split(":");
    const count = parts[parts.length - 1] ?? "";
    // a type alone asks for one GPU of it (oracle 22.05: --gpus=mi300x, --gpus-per-node=mi300x are TresPerJob/Node=gres:gpu:mi300x)
    if (parts.length === 1 && !/^[0-9]/.test(count) && NAME_RE.test(count)) continue;
    const typeOk = parts.length === 1 || (parts.length === 2 && NAME_RE.test(parts[0] as string));
    if (!typeOk || !/^[0-9]+$/.test(count)) return err("InvalidGres", GRES_MESSAGE);
  }
  return ok(text);
}

export { signalNumber };

/**
 * --signal=[{R|B}:]<sig>[@<secs>] normalised to "[R:|B:]<number>@<secs>" (secs default 60). The flags
 * before the colon are read as 22.05 reads them: an R, then a B, then an R, each optional, any case
 * (oracle: RB:, BR:, RR:, RBR: and an empty ":" are taken; BB:, RRB:, RRR:, BRB: refused); B wins
 * in the stored form, as R (a reservation's end) signals the same steps here.
 */
export function parseSignal(text: string, allowBatchFlag = true): Result<string> {
  const fail = err("BadSignal", "Invalid --signal specification", OPTION_EXIT);
  const m = /^(?:([Rr]?[Bb]?[Rr]?):)?([^@:]+)(?:@([0-9]+))?$/.exec(text);
  if (m === null) return fail;
  const flags = (m[1] ?? "").toUpperCase();
  const flag = flags.includes("B") ? "B" : flags.includes("R") ? "R" : "";
  const num = signalNumber(m[2] as string);
  const secs = m[3] === undefined ? 60 : Number(m[3]);
  if (num === undefined || secs > 0xffff || (flag === "B" && !allowBatchFlag)) return fail;
  return ok(`${flag === "" ? "" : `${flag}:`}${num}@${secs}`);
}

const MAIL_TYPES = new Set(["NONE", "BEGIN", "END", "FAIL", "REQUEUE", "ALL", "INVALID_DEPEND", "STAGE_OUT",
  "TIME_LIMIT", "TIME_LIMIT_90", "TIME_LIMIT_80", "TIME_LIMIT_50", "ARRAY_TASKS"]);

/**
 * --mail-type=<type>[,<type>...] normalised to upper case; NONE anywhere in one value means no
 * mail from that value (22.05: "NONE,END" and "END,NONE" both leave MailType empty).
 */
export function parseMailType(text: string): Result<string> {
  const types = text.split(",").map((t) => t.trim().toUpperCase());
  if (types.some((t) => !MAIL_TYPES.has(t))) return err("BadMailType", "Invalid --mail-type specification", OPTION_EXIT);
  return ok(types.includes("NONE") ? "NONE" : types.join(","));
}

/**
 * A further --mail-type adds its events to the earlier ones (22.05 ORs the flags:
 * --mail-type=ALL --mail-type=END is ALL, --mail-type=BEGIN --mail-type=FAIL is BEGIN,FAIL,
 * and a later NONE takes nothing away).
 */
export function addMailTypes(prev: string, next: string): string {
  if (prev === "" || prev === "NONE") return next;
  return next === "NONE" ? prev : `${prev},${next}`;
}

const DIST_RE = /^(\*|block|cyclic|arbitrary|plane=[0-9]+)(:(\*|block|cyclic|fcyclic)){0,2}(,(pack|nopack))?$/i;

/**
 * --distribution: light check of the documented grammar; the text is kept as given. A plane
 * without a positive size gets Slurm's line about it first (oracle: plane=0, plane; differential seed 288).
 */
export function checkDistribution(text: string): Result<string> {
  if (DIST_RE.test(text) && !/^plane=0+(?![0-9])/i.test(text)) return ok(text);
  const plane = /^plane(?:$|[=:,])/i.test(text) && !/^plane=0*[1-9][0-9]*/i.test(text);
  const message = `${plane ? "Invalid plane size or size not specified\n" : ""}Invalid --distribution specification`;
  return err("BadDistribution", message, OPTION_EXIT);
}

/** --array light check: token[,token...][%max], token = N | N-M | N-M:S, optionally in [ ]. */
export function checkArray(text: string): Result<string> {
  // an empty value asks for no array, and clears an earlier --array (oracle 22.05: --array=1-2 --array= is a plain job; seed 13546)
  if (text === "") return ok(text);
  const fail = err("InvalidArray", "Invalid job array specification");
  const percent = text.indexOf("%");
  const body = percent < 0 ? text : text.slice(0, percent);
  const throttle = percent < 0 ? "0" : text.slice(percent + 1);
  if (body === "" || !/^[0-9]+$/.test(throttle)) return fail;
  for (const token of body.split(",")) {
    const m = /^\[?([0-9]+)(?:-([0-9]+)(?::([0-9]+))?)?\]?$/.exec(token);
    if (m === null) return fail;
    if (m[2] !== undefined && Number(m[2]) < Number(m[1])) return fail;
    if (m[3] !== undefined && Number(m[3]) === 0) return fail;
  }
  return ok(text);
}

const DEP_TYPES = ["after", "afterany", "afterok", "afternotok", "aftercorr", "expand"];
const JOBSPEC_RE = /^([0-9]+)(?:_(?:[0-9]+|\*|\[[0-9,:%-]+\]))?(?:\+[0-9]+)?(?:\([a-z]+\))?$/i;

/** Split on separators outside [ ] so "1_[1-3,5]" stays one piece. */
function splitOutsideBrackets(text: string, seps: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = "";
  for (const ch of text) {
    if (ch === "[") depth++;
    if (ch === "]") depth--;
    if (depth === 0 && seps.includes(ch)) {
      out.push(cur);
      cur = "";
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function validJobspec(spec: string): boolean {
  const m = JOBSPEC_RE.exec(spec);
  return m !== null && Number(m[1]) !== 0;
}

function validDependencyItem(item: string): boolean {
  if (/^singleton(\([a-z]+\))?$/i.test(item)) return true;
  const colon = item.indexOf(":");
  if (colon < 0) return validJobspec(item);
  const type = item.slice(0, colon).toLowerCase();
  const typeOk = DEP_TYPES.includes(type) || (type.length >= 11 && "afterburstbuffer".startsWith(type.slice(0, 11)));
  const specs = splitOutsideBrackets(item.slice(colon + 1), ":");
  return typeOk && specs.every(validJobspec);
}

/** A job id as 22.05's controller first reads it: a number (not 0, a sign and any size taken), then an array part, +minutes, a state. */
const LOOSE_JOBSPEC_RE = /^(-?[0-9]+)(?:_(?:[0-9]+|\*|\[[^\]]*\]))?(?:\+[0-9]+)?(?:\([a-z]*\))?$/i;

/** What 22.05 checks of an item before it reaches a later one: a known type and job ids that read as numbers. */
function readableDependencyItem(item: string): boolean {
  if (/^singleton(\([a-z]*\))?$/i.test(item)) return true;
  const colon = item.indexOf(":");
  if (colon < 0) return false;
  const type = item.slice(0, colon).toLowerCase();
  if (!DEP_TYPES.includes(type) && !(type.length >= 11 && "afterburstbuffer".startsWith(type.slice(0, 11)))) return false;
  return splitOutsideBrackets(item.slice(colon + 1), ":").every((spec) => {
    const m = LOOSE_JOBSPEC_RE.exec(spec);
    return m !== null && Number(m[1]) !== 0;
  });
}

/** Job expansion (SchedulerParameters=permit_job_expansion) is off in 22.05 by default, and in Spur. */
export const EXPANSION_NOT_SUPPORTED = "Requested operation not supported on this system";

/**
 * --dependency light check (types, job id forms, "," and "?" not mixed); "" and "0" clear.
 * An expand:<anything> item is refused as not supported once every item before it reads
 * (oracle 22.05: `expand:1`, `expand:`, `afterok:-1,expand:1`, `afterok:1?afterok:1,expand:2` are
 * "Requested operation not supported on this system"; `afterok:abc,expand:1` and `expand` are
 * "Job dependency problem"; differential seed 9430).
 */
export function checkDependency(text: string): Result<string> {
  if (text === "" || text === "0") return ok(text);
  const fail = err("DependencyProblem", "Job dependency problem");
  for (const item of splitOutsideBrackets(text, ",?")) {
    if (/^expand:/i.test(item)) return err("NotSupported", EXPANSION_NOT_SUPPORTED);
    if (!readableDependencyItem(item)) break;
  }
  const hasAnd = splitOutsideBrackets(text, ",").length > 1;
  const hasOr = splitOutsideBrackets(text, "?").length > 1;
  if (hasAnd && hasOr) return fail;
  const items = splitOutsideBrackets(text, hasOr ? "?" : ",");
  return items.every(validDependencyItem) ? ok(text) : fail;
}

/**
 * --tres-per-task list: "cpu=4,gres/gpu=1", "gres/gpu:mi300x=2" (":" also accepted
 * before the count). Only cpu and gres/gpu are trackable here; gpus come back as
 * the "[type:]N" text --gpus-per-task takes.
 */
export function parseTresPerTask(text: string): Result<{ cpus?: number; gpus?: string }> {
  const out: { cpus?: number; gpus?: string } = {};
  for (const item of text.split(",")) {
    const m = /^(cpu|gres[/:]gpu)(?::([A-Za-z0-9_.-]+))?[=:]([0-9]+)$/.exec(item.trim());
    if (m === null || Number(m[3]) === 0) return err("InvalidGres", GRES_MESSAGE);
    if (m[1] === "cpu") {
      if (m[2] !== undefined) return err("InvalidGres", GRES_MESSAGE);
      out.cpus = Number(m[3]);
    } else out.gpus = m[2] !== undefined ? `${m[2]}:${m[3]}` : m[3];
  }
  return ok(out);
}

/** Slurm's default wait for --switches without @time (SchedulerParameters max_switch_wait). */
export const SWITCH_WAIT_DEFAULT_SEC = 300;

/**
 * --switches=N[@max-time]: leaf switch count and the wait in seconds (time as --time reads it).
 * As Slurm 22.05 (oracle): a count that is not a positive number is parse_int's error (exit 1,
 * "x", "0"); a wait it cannot read leaves the default wait.
 */
export function parseSwitches(text: string): Result<{ count: number; waitSec: number }> {
  const at = text.indexOf("@");
  const countText = at < 0 ? text : text.slice(0, at);
  const count = parseCount(countText, "--switches");
  if (!count.ok) return count;
  const waitSec = at < 0 ? undefined : parseDurationSec(text.slice(at + 1));
  return ok({ count: count.value, waitSec: waitSec !== undefined && Number.isSafeInteger(waitSec) ? waitSec : SWITCH_WAIT_DEFAULT_SEC });
}
