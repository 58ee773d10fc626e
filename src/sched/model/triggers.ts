/**
 * @module sched/model/triggers
 * strigger's rules over the trigger table, pure: who may set and clear which trigger,
 * what counts as a duplicate, which triggers an edge event (a node going down, up,
 * drained, failing; a reconfigure) pulls, which are due at `now` (a pulled one once its
 * offset has passed; a job's end or time limit, a node idle long enough, read from a
 * small view of the state), and what firing does (the program runs, the trigger is
 * purged unless PERM). Failure policy: a refused set or clear changes nothing and
 * answers Slurm's wording. The facts about jobs and nodes come in through arguments,
 * so this file imports no state type and stays outside the sched import cycle.
 */
import { MAX_TRIGGERS, type TriggerRecord, type TriggerResType, type TriggerTable, type TriggerType } from "./trigger-types.ts";
import { assert } from "../../lib/assert.ts";
import type { SlurmErrorName } from "../../compat/slurm-errors.ts";

export interface TriggerOwner {
  uid: number;
  gid: number;
  user: string;
}

/** What a set asks for (strigger --set, already validated for shape by the client). */
export interface TriggerSpec {
  resType: TriggerResType;
  resId: string;
  types: TriggerType[];
  offsetSec: number;
  perm: boolean;
  program: string;
}

/** A job as the trigger rules need it. */
export interface TriggerJobFacts {
  uid: number;
  finished: boolean;
  /** Epoch seconds: when it ended (finished), else when its time limit is reached (running, with a limit). */
  endTime?: number;
  /** Nodes it holds (a job's --down/--up triggers watch them). */
  nodes: readonly string[];
}

export interface TriggerAnswer {
  error: string;
  errorCode: SlurmErrorName | "";
  id?: number;
}

/** Who may do what: root, the controller's user (SlurmUser) and SpurOperators are privileged. */
export interface TriggerAuthority {
  by: TriggerOwner;
  privileged: boolean;
  /** The controller's own uid: when it is not root, only it may set triggers (it cannot run programs as others). */
  slurmUid: number;
}

const ok = (id?: number): TriggerAnswer => ({ error: "", errorCode: "", ...(id === undefined ? {} : { id }) });
const no = (errorCode: SlurmErrorName, error: string): TriggerAnswer => ({ error, errorCode });
const DENIED = no("AccessDenied", "Access/permission denied");

const sameTrigger = (a: TriggerRecord, s: TriggerSpec, uid: number): boolean =>
  a.resType === s.resType && a.resId === s.resId && a.offsetSec === s.offsetSec && a.uid === uid &&
  a.perm === s.perm && a.program === s.program && a.types.join(",") === s.types.join(",");

/** strigger --set. `job` is the named job's facts (undefined: no such job) for job triggers. */
export function setTrigger(table: TriggerTable, spec: TriggerSpec, who: TriggerAuthority, job: TriggerJobFacts | undefined): TriggerAnswer {
  assert(spec.types.length > 0, "a trigger waits for at least one event");
  if (who.slurmUid !== 0 && who.by.uid !== who.slurmUid) return DENIED;
  if (spec.resType === "job") {
    if (job === undefined) return no("InvalidJobId", "Invalid job id specified");
    if (job.uid !== who.by.uid && !who.privileged) return DENIED;
    if (job.finished) return no("AlreadyDone", "Job/step already completing or completed");
  } else if (!who.privileged) {
    return DENIED;
  }
  if (table.list.some((t) => sameTrigger(t, spec, who.by.uid))) return no("TriggerDuplicate", "Duplicate event trigger");
  if (table.list.length >= MAX_TRIGGERS) return no("TryAgain", "Resource temporarily unavailable");
  const id = table.nextId;
  table.nextId += 1;
  table.list.push({ id, ...spec, types: [...spec.types], uid: who.by.uid, gid: who.by.gid, user: who.by.user });
  assert(table.nextId > id, "trigger ids only grow");
  return ok(id);
}

export interface TriggerSelector {
  id?: number;
  jobId?: number;
  uid?: number;
}

/** strigger --clear: the matching triggers the caller may delete; "No such process" when none match. */
export function clearTriggers(table: TriggerTable, sel: TriggerSelector, who: TriggerAuthority): TriggerAnswer {
  const matches = table.list.filter(
    (t) =>
      (sel.id === undefined || t.id === sel.id) &&
      (sel.jobId === undefined || (t.resType === "job" && t.resId === String(sel.jobId))) &&
      (sel.uid === undefined || t.uid === sel.uid),
  );
  if (matches.length === 0) return no("NoSuchProcess", "No such process");
  const allowed = matches.filter((t) => t.uid === who.by.uid || who.privileged);
  const gone = new Set(allowed.map((t) => t.id));
  table.list = table.list.filter((t) => !gone.has(t.id));
  return allowed.length < matches.length ? DENIED : ok();
}

/** What changed on the nodes in one command (names), for the edge events. */
export interface NodeChanges {
  down: readonly string[];
  up: readonly string[];
  drained: readonly string[];
  fail: readonly string[];
}

const NODE_EDGE_TYPES: readonly ("down" | "up" | "drained" | "fail")[] = ["down", "up", "drained", "fail"];

/** Whether any trigger waits for a node edge (apply skips the before/after diff when none does). */
export const watchesNodes = (table: TriggerTable): boolean =>
  table.list.some((t) => t.pulled === undefined && (t.resType === "node" || t.resType === "job") && t.types.some((ty) => NODE_EDGE_TYPES.includes(ty as "down")));

/**
 * Pull the triggers an edge event concerns: a node trigger on "*" or on one of the nodes, a job
 * trigger whose job holds one. The program's argument is the nodes that changed (those of the
 * trigger's own list, or all of them for "*"), or the job id for a job trigger. `expand` turns a
 * hostlist into names; `compress` names into a hostlist.
 */
export function pullNodeEvents(
  table: TriggerTable, changes: NodeChanges, at: number, jobNodes: (jobId: string) => readonly string[],
  expand: (hostlist: string) => readonly string[], compress: (names: readonly string[]) => string,
): void {
  for (const t of table.list) {
    if (t.pulled !== undefined) continue;
    for (const type of NODE_EDGE_TYPES) {
      if (!t.types.includes(type) || changes[type].length === 0) continue;
      const hit = edgeHit(t, changes[type], jobNodes, expand);
      if (hit.length === 0) continue;
      t.pulled = { at, arg: t.resType === "job" ? t.resId : compress(hit) };
      break;
    }
  }
}

function edgeHit(t: TriggerRecord, changed: readonly string[], jobNodes: (jobId: string) => readonly string[], expand: (h: string) => readonly string[]): string[] {
  if (t.resType === "job") {
    const held = new Set(jobNodes(t.resId));
    return changed.filter((n) => held.has(n));
  }
  if (t.resType !== "node") return [];
  if (t.resId === "*") return [...changed];
  const mine = new Set(expand(t.resId));
  return changed.filter((n) => mine.has(n));
}

/** Pull every reconfig trigger (scontrol reconfigure; a node state change). */
export function pullReconfig(table: TriggerTable, at: number): void {
  for (const t of table.list) if (t.pulled === undefined && t.types.includes("reconfig")) t.pulled = { at, arg: t.resId };
}

/** The state facts the due check reads. */
export interface TriggerView {
  job(jobId: number): TriggerJobFacts | undefined;
  /** Epoch seconds a node has been idle since (no job, in service); undefined when it is busy or down. */
  idleSince(node: string): number | undefined;
  nodeNames(): readonly string[];
  compress(names: readonly string[]): string;
  expand(hostlist: string): readonly string[];
}

export interface DueTrigger {
  id: number;
  /** The last argument the program gets (job id, or the nodes of the event). */
  arg: string;
  /** The event's time (recorded so that a PERM trigger fires once per event). */
  eventAt: number;
}

/** Triggers whose program should run now. Bounded by `max` per call. */
export function dueTriggers(table: TriggerTable, view: TriggerView, now: number, max = 100): DueTrigger[] {
  const due: DueTrigger[] = [];
  for (const t of table.list) {
    if (due.length >= max) break;
    const event = t.pulled ?? levelEvent(t, view, now);
    if (event === undefined || event.at === t.firedFor) continue;
    // a negative offset runs before a job's time limit; before any other event (already past) it runs at once
    const waitSec = t.types.includes("time") ? t.offsetSec : Math.max(0, t.offsetSec);
    if (event.at + waitSec <= now) {
      due.push({ id: t.id, arg: event.arg, eventAt: event.at });
    }
  }
  return due;
}

/** A job's end or time limit, a node idle for the offset: conditions read from the state. */
function levelEvent(t: TriggerRecord, view: TriggerView, now: number): { at: number; arg: string } | undefined {
  if (t.resType === "job") {
    const job = view.job(Number(t.resId));
    if (t.types.includes("fini")) {
      if (job === undefined) return { at: 0, arg: t.resId }; // gone (purged): ended long ago
      if (job.finished) return { at: job.endTime ?? now, arg: t.resId };
    }
    if (t.types.includes("time") && job !== undefined && !job.finished && job.endTime !== undefined) {
      return { at: job.endTime, arg: t.resId };
    }
    return undefined;
  }
  if (t.resType === "node" && t.types.includes("idle")) {
    const names = t.resId === "*" ? view.nodeNames() : view.expand(t.resId);
    const idle = names.flatMap((n) => {
      const since = view.idleSince(n);
      return since !== undefined && since + t.offsetSec <= now ? [{ n, since }] : [];
    });
    // the event time is when the last of them became idle: stable while they stay idle (PERM fires once)
    if (idle.length > 0) return { at: Math.max(...idle.map((i) => i.since)), arg: view.compress(idle.map((i) => i.n)) };
  }
  return undefined;
}

/**
 * The leader fired these: each still present runs its program once; a PERM trigger stays
 * (ready for the next event), any other is purged. Returns the runs to perform.
 */
export function fireTriggers(table: TriggerTable, fired: readonly DueTrigger[]): { trigger: TriggerRecord; arg: string }[] {
  const runs: { trigger: TriggerRecord; arg: string }[] = [];
  const purge = new Set<number>();
  for (const f of fired) {
    const t = table.list.find((x) => x.id === f.id);
    if (t === undefined || t.firedFor === f.eventAt) continue;
    runs.push({ trigger: { ...t, types: [...t.types] }, arg: f.arg });
    if (t.perm) {
      delete t.pulled;
      t.firedFor = f.eventAt;
    } else {
      purge.add(t.id);
    }
  }
  table.list = table.list.filter((t) => !purge.has(t.id));
  return runs;
}

/** One node's flags that the edge events are read from. */
export interface NodeFlags {
  down: boolean;
  drain: boolean;
  busy: boolean;
}

/** The edges between two readings of the nodes; `failed`: nodes an admin set to FAIL in this command. */
export function nodeChanges(before: ReadonlyMap<string, NodeFlags>, after: ReadonlyMap<string, NodeFlags>, failed: readonly string[]): NodeChanges {
  const changes = { down: [] as string[], up: [] as string[], drained: [] as string[], fail: [...failed] };
  for (const [name, b] of before) {
    const a = after.get(name);
    if (a === undefined) continue;
    if (!b.down && a.down) changes.down.push(name);
    if (b.down && !a.down) changes.up.push(name);
    const wasDrained = b.drain && !b.busy;
    if (!wasDrained && a.drain && !a.busy) changes.drained.push(name);
  }
  return changes;
}
