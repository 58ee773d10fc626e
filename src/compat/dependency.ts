/**
 * @module dependency
 * `--dependency` as data: parse Slurm's grammar (`afterok:1:2,afterany:3+5`,
 * `singleton`, `?` for OR, `17_*`, `17_[1-3]`), resolve it at submit, evaluate it
 * against the job table (satisfied / pending / never) and print the remaining list
 * as squeue %E, scontrol `Dependency=` and SLURM_JOB_DEPENDENCY show it.
 * Facts: /work/shared/slurm-surface/dependency-and-array.md §1; goldens 064, 079-084.
 */
import { assert } from "../lib/assert.ts";
import { err, ok, type Result } from "../lib/result.ts";
import { parseArraySpec } from "./array-spec.ts";

export type DependencyType =
  | "after"
  | "afterany"
  | "afterok"
  | "afternotok"
  | "aftercorr"
  | "afterburstbuffer"
  | "singleton";

/** One `<jobid>[_<task>|_*][+<minutes>]` of an item. */
export interface DependencyRef {
  jobId: number;
  /** `_N`: one array task. */
  arrayTaskId?: number;
  /** `_*` (or a plain id that names an array, after resolveDependency): the whole array. */
  wholeArray?: boolean;
  /**
   * `+N` minutes. Kept per ref because Slurm's parser carries a delay over to the
   * following refs of the same item (`after:1:2+5:3` delays 2 and 3, not 1).
   */
  delayMin?: number;
}

export interface DependencyItem {
  type: DependencyType;
  /** Empty for singleton. */
  jobIds: DependencyRef[];
}

export interface DependencySpec {
  /** True when the items were joined with `?` (OR); false for `,` (AND). */
  anyOf: boolean;
  items: DependencyItem[];
}

/** What evaluation needs to know about another job record. */
export interface DepJobView {
  jobId: number;
  arrayJobId: number;
  arrayTaskId: number;
  /** Base state: PENDING RUNNING SUSPENDED COMPLETED FAILED CANCELLED ... */
  state: string;
  startTime: number;
  endTime: number;
  user: string;
  name: string;
  exitCode: number;
  /** The job itself waits on `singleton` (older such jobs go first). */
  singleton?: boolean;
  /** For an array's pending remainder: the task indices not yet split off as records of their own. */
  pendingTasks?: readonly number[];
}

export interface DepSelf {
  user: string;
  name: string;
  jobId: number;
  /** Set for array records: aftercorr uses the task index, singleton the array id. */
  arrayJobId?: number;
  arrayTaskId?: number;
}

export type DepStatus = "satisfied" | "pending" | "never";

/** Per-ref results: entries[i][j] for items[i].jobIds[j]; singleton has one entry. */
export interface DependencyEval {
  result: DepStatus;
  entries: DepStatus[][];
}

/** ESLURM_DEPENDENCY; sbatch adds "Batch job submission failed: " (golden 084). */
export const DEPENDENCY_ERROR_MESSAGE = "Job dependency problem";

/** Bound on refs after `_[...]` expansion, so one submit cannot make a huge list. */
const DEPENDENCY_REFS_MAX = 10_000;

const problem = (): Result<never> => err("InvalidDependency", DEPENDENCY_ERROR_MESSAGE, 1);

const TYPE_NAMES: Readonly<Record<string, DependencyType>> = {
  after: "after",
  afterany: "afterany",
  afterok: "afterok",
  afternotok: "afternotok",
  aftercorr: "aftercorr",
};

/** Type names are case-insensitive; afterburstbuffer matches on 11 characters. */
function typeOf(name: string): DependencyType | undefined {
  const lower = name.toLowerCase();
  if (lower.startsWith("afterburstb")) return "afterburstbuffer";
  return TYPE_NAMES[lower];
}

/** Rewrite `123_[1-3,5]` as `123_1:123_2:123_3:123_5`; undefined when a list is bad. */
function expandTaskLists(text: string): string | undefined {
  let bad = false;
  const out = text.replace(/(\d+)_\[([^\]]*)\]/g, (_whole, jobId: string, list: string) => {
    const parsed = list.includes("%") ? undefined : parseArraySpec(list, DEPENDENCY_REFS_MAX);
    if (parsed === undefined || !parsed.ok) {
      bad = true;
      return "";
    }
    return parsed.value.taskIds.map((task) => `${jobId}_${task}`).join(":");
  });
  return bad ? undefined : out;
}

const REF_PATTERN = /^([0-9]+)(?:_([0-9]+|\*))?(?:\+([0-9]+))?(?:\([A-Za-z]*\))?$/;

/** The refs of one item; a `+N` applies to its ref and every later one. */
function parseRefs(texts: readonly string[]): DependencyRef[] | undefined {
  const refs: DependencyRef[] = [];
  let delayMin: number | undefined;
  for (const text of texts) {
    const match = REF_PATTERN.exec(text);
    if (match === null) return undefined;
    const jobId = Number(match[1]);
    if (jobId <= 0 || jobId > 0xffffffff) return undefined;
    if (match[3] !== undefined) delayMin = Number(match[3]);
    const ref: DependencyRef = { jobId };
    if (match[2] === "*") ref.wholeArray = true;
    else if (match[2] !== undefined) ref.arrayTaskId = Number(match[2]);
    if (delayMin !== undefined && delayMin > 0) ref.delayMin = delayMin;
    refs.push(ref);
  }
  return refs;
}

function parseItem(token: string): DependencyItem | undefined {
  if (/^singleton(\([A-Za-z]*\))?$/i.test(token)) return { type: "singleton", jobIds: [] };
  const colonAt = token.indexOf(":");
  // Legacy form: bare job ids mean afterany.
  const legacy = /^[0-9]/.test(token);
  const type = legacy ? "afterany" : typeOf(token.slice(0, Math.max(colonAt, 0)));
  if (type === undefined || (!legacy && colonAt < 0)) return undefined;
  const refTexts = (legacy ? token : token.slice(colonAt + 1)).split(":");
  const jobIds = parseRefs(refTexts);
  return jobIds === undefined || jobIds.length === 0 ? undefined : { type, jobIds };
}

/**
 * Parse a dependency list. "" and "0" give an empty spec (they clear the
 * dependency in `scontrol update`). Mixing `,` and `?`, an unknown type, job id 0,
 * or any other malformed text is "Job dependency problem".
 */
export function parseDependency(text: string): Result<DependencySpec> {
  if (text === "" || text === "0") return ok({ anyOf: false, items: [] });
  const expanded = expandTaskLists(text);
  if (expanded === undefined) return problem();
  const anyOf = expanded.includes("?");
  if (anyOf && expanded.includes(",")) return problem();
  const tokens = expanded.split(anyOf ? "?" : ",").filter((token) => token !== "");
  if (tokens.length === 0) return problem();
  const items: DependencyItem[] = [];
  let refCount = 0;
  for (const token of tokens) {
    const item = parseItem(token);
    if (item === undefined) return problem();
    refCount += item.jobIds.length;
    if (refCount > DEPENDENCY_REFS_MAX) return problem();
    items.push(item);
  }
  assert(items.length === tokens.length, "one item per token");
  return ok({ anyOf, items });
}

/** Jobs the dependency names, as the controller sees them at submit or evaluation. */
export type DepLookup = (jobId: number, arrayTaskId?: number) => DepJobView | undefined;

const isArrayBase = (jobId: number, allJobs: readonly DepJobView[]): boolean =>
  allJobs.some((job) => job.arrayJobId === jobId);

/**
 * Submit-time checks and normalisation: a plain id that names an array becomes
 * the whole array (`afterok:17` shows as `afterok:17_*`, golden 064); afterok /
 * afternotok on an id the controller does not know is rejected (current Slurm;
 * 22.05 accepted it, golden 083); a job may not depend on itself.
 */
export function resolveDependency(
  spec: DependencySpec,
  lookup: DepLookup,
  allJobs: readonly DepJobView[],
  selfJobId: number,
): Result<DependencySpec> {
  const items: DependencyItem[] = [];
  for (const item of spec.items) {
    const jobIds: DependencyRef[] = [];
    for (const ref of item.jobIds) {
      if (ref.jobId === selfJobId) return problem();
      const whole = ref.wholeArray === true || (ref.arrayTaskId === undefined && isArrayBase(ref.jobId, allJobs));
      const known = whole ? isArrayBase(ref.jobId, allJobs) : lookup(ref.jobId, ref.arrayTaskId) !== undefined;
      if (!known && (item.type === "afterok" || item.type === "afternotok")) return problem();
      jobIds.push(whole ? { ...ref, wholeArray: true } : { ...ref });
    }
    items.push({ type: item.type, jobIds });
  }
  assert(items.length === spec.items.length, "items kept one to one");
  return ok({ anyOf: spec.anyOf, items });
}

const ACTIVE_STATES: ReadonlySet<string> = new Set(["PENDING", "RUNNING", "SUSPENDED"]);
const isFinished = (job: DepJobView): boolean => !ACTIVE_STATES.has(job.state);
const isOk = (job: DepJobView): boolean => job.state === "COMPLETED" && job.exitCode === 0;

/**
 * One dependency type tested against the records it names (one job, or every
 * record of an array including its pending remainder). No records = purged,
 * which Slurm counts as satisfied.
 */
function membersStatus(type: DependencyType, members: readonly DepJobView[], delayMin: number, now: number): DepStatus {
  if (members.length === 0) return "satisfied";
  const allFinished = members.every(isFinished);
  switch (type) {
    case "after": {
      if (members.some((job) => job.state === "PENDING")) return "pending";
      const startedAt = Math.max(...members.map((job) => job.startTime || job.endTime));
      return now >= startedAt + delayMin * 60 ? "satisfied" : "pending";
    }
    case "afterany":
    case "afterburstbuffer":
      return allFinished ? "satisfied" : "pending";
    case "afterok":
    case "aftercorr":
      if (!allFinished) return "pending";
      return members.every(isOk) ? "satisfied" : "never";
    case "afternotok":
      if (!allFinished) return "pending";
      return members.every(isOk) ? "never" : "satisfied";
    case "singleton":
      return "satisfied";
  }
}

interface DepWorld {
  lookup: DepLookup;
  self: DepSelf;
  allJobs: readonly DepJobView[];
  now: number;
}

/** `_N` of an array whose task N is still in the pending remainder (a held array): that remainder. */
function unsplitTask(ref: DependencyRef, allJobs: readonly DepJobView[]): DepJobView | undefined {
  const n = ref.arrayTaskId;
  if (n === undefined) return undefined;
  return allJobs.find((job) => job.arrayJobId === ref.jobId && job.pendingTasks?.includes(n) === true);
}

function refStatus(type: DependencyType, ref: DependencyRef, world: DepWorld): DepStatus {
  const arrayMembers = (): DepJobView[] => world.allJobs.filter((job) => job.arrayJobId === ref.jobId);
  const delayMin = ref.delayMin ?? 0;
  const whole = ref.wholeArray === true || (ref.arrayTaskId === undefined && isArrayBase(ref.jobId, world.allJobs));
  const selfTask = world.self.arrayTaskId;
  if (type === "aftercorr" && whole && selfTask !== undefined && selfTask >= 0) {
    // The task with the same index in the other array; missing = purged/absent.
    const peer = world.lookup(ref.jobId, selfTask);
    return membersStatus(type, peer === undefined ? [] : [peer], delayMin, world.now);
  }
  if (whole) return membersStatus(type, arrayMembers(), delayMin, world.now);
  const job = world.lookup(ref.jobId, ref.arrayTaskId) ?? unsplitTask(ref, world.allJobs);
  return membersStatus(type, job === undefined ? [] : [job], delayMin, world.now);
}

/**
 * singleton: blocked while another job of the same user and name is running or
 * suspended, or is an older (lower id) pending job that also waits on singleton,
 * so that such jobs start one at a time in submit order. Pending records of the
 * job's own array never block it (they are its own remainder/siblings).
 */
function singletonStatus(world: DepWorld): DepStatus {
  const { self } = world;
  const sameArray = (job: DepJobView): boolean =>
    self.arrayJobId !== undefined && self.arrayJobId > 0 && job.arrayJobId === self.arrayJobId;
  const blocking = world.allJobs.some((job) => {
    if (job.jobId === self.jobId || job.user !== self.user || job.name !== self.name) return false;
    if (job.state === "RUNNING" || job.state === "SUSPENDED") return true;
    return job.state === "PENDING" && job.singleton === true && job.jobId < self.jobId && !sameArray(job);
  });
  return blocking ? "pending" : "satisfied";
}

function combine(anyOf: boolean, statuses: readonly DepStatus[]): DepStatus {
  if (statuses.length === 0) return "satisfied";
  if (anyOf) {
    if (statuses.includes("satisfied")) return "satisfied";
    return statuses.every((status) => status === "never") ? "never" : "pending";
  }
  if (statuses.includes("never")) return "never";
  return statuses.every((status) => status === "satisfied") ? "satisfied" : "pending";
}

/**
 * Evaluate every ref. `previous` (entries from an earlier evaluation) makes
 * settled refs sticky: Slurm keeps a failed dependency failed even if the other
 * job is later requeued and succeeds, and a fulfilled one is dropped for good.
 */
export function evaluateDependencyDetail(
  spec: DependencySpec,
  lookup: DepLookup,
  self: DepSelf,
  allJobs: readonly DepJobView[],
  now: number,
  previous?: readonly (readonly DepStatus[])[],
): DependencyEval {
  const world: DepWorld = { lookup, self, allJobs, now };
  const entries = spec.items.map((item, i) => {
    const fresh = item.type === "singleton" ? [singletonStatus(world)] : item.jobIds.map((ref) => refStatus(item.type, ref, world));
    return fresh.map((status, j) => {
      const before = previous?.[i]?.[j];
      return before === "satisfied" || before === "never" ? before : status;
    });
  });
  assert(entries.length === spec.items.length, "one entry list per item");
  return { result: combine(spec.anyOf, entries.flat()), entries };
}

/**
 * satisfied / pending / never for a whole dependency (AND: any never = never;
 * OR: any satisfied = satisfied). A job id the controller no longer knows counts
 * as satisfied (Slurm: purged jobs release their dependents).
 */
export function evaluateDependency(
  spec: DependencySpec,
  lookup: DepLookup,
  self: DepSelf,
  allJobs: readonly DepJobView[],
  now: number,
): DepStatus {
  return evaluateDependencyDetail(spec, lookup, self, allJobs, now).result;
}

function formatRef(type: DependencyType, ref: DependencyRef, status: DepStatus): string {
  const task = ref.wholeArray === true ? "_*" : ref.arrayTaskId === undefined ? "" : `_${ref.arrayTaskId}`;
  const delay = ref.delayMin === undefined || ref.delayMin === 0 ? "" : `+${ref.delayMin}`;
  return `${type}:${ref.jobId}${task}${delay}(${status === "never" ? "failed" : "unfulfilled"})`;
}

/**
 * The remaining list as squeue %E / scontrol `Dependency=` print it: fulfilled
 * refs dropped, each ref as `type:id[_task|_*][+min](unfulfilled|failed)`,
 * joined by `,` or `?`; `(null)` when nothing remains (also once an OR list is
 * satisfied). Without `status` every ref is unfulfilled.
 */
export function formatDependency(spec: DependencySpec, status?: readonly (readonly DepStatus[])[]): string {
  const statusOf = (i: number, j: number): DepStatus => status?.[i]?.[j] ?? "pending";
  const parts: string[] = [];
  let anySatisfied = false;
  spec.items.forEach((item, i) => {
    if (item.type === "singleton") {
      const st = statusOf(i, 0);
      if (st === "satisfied") anySatisfied = true;
      else parts.push(`singleton(${st === "never" ? "failed" : "unfulfilled"})`);
      return;
    }
    item.jobIds.forEach((ref, j) => {
      const st = statusOf(i, j);
      if (st === "satisfied") anySatisfied = true;
      else parts.push(formatRef(item.type, ref, st));
    });
  });
  if (parts.length === 0 || (spec.anyOf && anySatisfied)) return "(null)";
  return parts.join(spec.anyOf ? "?" : ",");
}

/**
 * What squeue %E and scontrol `Dependency=` show for a job submitted with
 * `text`: the refs still outstanding, resolved as at submit (a plain id naming an
 * array shows as `_*`) and evaluated now; `(null)` once nothing remains (Slurm
 * clears the list when the job becomes eligible). Text that does not parse is
 * shown as given.
 */
export function dependencyDisplay(text: string, self: DepSelf, allJobs: readonly DepJobView[], now: number): string {
  return dependencyNow(text, self, allJobs, now)?.shown ?? text;
}

/** Jobs looked up by id, or by array job id and task id, among `allJobs`. */
const lookupIn = (allJobs: readonly DepJobView[]): DepLookup => (jobId, arrayTaskId) =>
  arrayTaskId === undefined
    ? allJobs.find((j) => j.jobId === jobId)
    : allJobs.find((j) => j.arrayJobId === jobId && j.arrayTaskId === arrayTaskId);

/** The parsed dependency with its refs resolved as at submission (the parsed one when they do not resolve). */
function resolvedSpec(parsed: DependencySpec, lookup: DepLookup, allJobs: readonly DepJobView[]): DependencySpec {
  const resolved = resolveDependency(parsed, lookup, allJobs, -1);
  return resolved.ok ? resolved.value : parsed;
}

/**
 * A held job's Dependency: 22.05 evaluates a job's dependency only when it may be scheduled, so one
 * submitted held shows every ref as given, (unfulfilled), resolved as at submit (oracle: --hold with
 * afterok:<completed job>, afternotok:<completed job> or singleton shows each (unfulfilled); differential seed 9574).
 */
export function dependencyUnevaluated(text: string, allJobs: readonly DepJobView[]): string | undefined {
  const parsed = parseDependency(text);
  if (!parsed.ok) return undefined;
  return formatDependency(resolvedSpec(parsed.value, lookupIn(allJobs), allJobs));
}

/** The display text and the verdict of a dependency as it stands now; undefined when the text does not parse. */
export function dependencyNow(
  text: string,
  self: DepSelf,
  allJobs: readonly DepJobView[],
  now: number,
): { shown: string; result: DepStatus } | undefined {
  if (text === "") return { shown: "", result: "satisfied" };
  const parsed = parseDependency(text);
  if (!parsed.ok) return undefined;
  const lookup = lookupIn(allJobs);
  const spec = resolvedSpec(parsed.value, lookup, allJobs);
  const detail = evaluateDependencyDetail(spec, lookup, self, allJobs, now);
  return { shown: formatDependency(spec, detail.entries), result: detail.result };
}
