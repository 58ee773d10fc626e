/**
 * @module sched/plan/licenses
 * Licenses as a cluster-wide resource in time. A pass builds one `LicensePool`:
 * running jobs hold their licenses until their (rounded) end, as the node timeline
 * holds their CPUs; every start the pass decides and every backfill reservation it
 * plans holds them over its own window. A job may start only if its licenses stay
 * free for its whole time limit, so backfill never delays a reservation through a
 * license (the EASY rule, as for nodes). `licensesInUse` is what `scontrol show
 * licenses` reports and what apply() re-checks a start against.
 */
import type { ClusterState, JobRecord } from "../model/types.ts";
import { licenseItemsOf, parseLicenseRequest, type LicenseItem, type LicenseRequest } from "../../compat/licenses.ts";

interface Hold {
  start: number;
  end: number;
  count: number;
}

/** Jobs that hold their licenses: running, or suspended (Slurm keeps them until the job ends). */
const holdsLicenses = (job: JobRecord): boolean => job.info.state === "RUNNING" || job.info.state === "SUSPENDED";

/** License name → count held by running and suspended jobs. */
export function licensesInUse(state: ClusterState): Map<string, number> {
  const used = new Map<string, number>();
  if (state.licenses === undefined) return used;
  for (const job of state.jobs.values()) {
    if (!holdsLicenses(job) || !job.info.licensesAlloc) continue;
    for (const item of licenseItemsOf(job.info.licensesAlloc)) used.set(item.name, (used.get(item.name) ?? 0) + item.count);
  }
  return used;
}

/** The job's request against the configured totals; undefined when it asks for none (or its text no longer parses). */
export function jobLicenseRequest(state: ClusterState, job: JobRecord): LicenseRequest | undefined {
  if (!job.spec.licenses) return undefined;
  const r = parseLicenseRequest(job.spec.licenses, state.licenses ?? new Map());
  return r.ok ? r.value : undefined;
}

/** Whether `items` fit beside what is in use now (apply()'s re-check of a start). */
export function licensesFitNow(state: ClusterState, items: readonly LicenseItem[]): boolean {
  const used = licensesInUse(state);
  return items.every((i) => (used.get(i.name) ?? 0) + i.count <= (state.licenses?.get(i.name) ?? 0));
}

export class LicensePool {
  private readonly holds = new Map<string, Hold[]>();

  constructor(private readonly totals: ReadonlyMap<string, number>) {}

  /** A pool for one pass: running jobs hold their licenses from `now` until `endOf(job)`. */
  /** `active`: the state's running and suspended jobs where the caller has them (the only ones holding licenses), else all are looked at. */
  static of(state: ClusterState, now: number, endOf: (job: JobRecord) => number, active?: readonly JobRecord[]): LicensePool {
    const pool = new LicensePool(state.licenses ?? new Map());
    if (state.licenses === undefined) return pool;
    for (const job of active ?? state.jobs.values()) {
      if (!holdsLicenses(job) || !job.info.licensesAlloc) continue;
      pool.hold(licenseItemsOf(job.info.licensesAlloc), now, endOf(job));
    }
    return pool;
  }

  hold(items: readonly LicenseItem[], start: number, end: number): void {
    for (const i of items) {
      const list = this.holds.get(i.name) ?? [];
      list.push({ start, end, count: i.count });
      this.holds.set(i.name, list);
    }
  }

  /** Whether every item stays free over [start, end): the peak use in that window plus the count fits the total. */
  fits(items: readonly LicenseItem[], start: number, end: number): boolean {
    return items.every((i) => this.peak(i.name, start, end) + i.count <= (this.totals.get(i.name) ?? 0));
  }

  /** The items a job would take over [start, end): all of them (`a,b`), or the first alternative that fits (`a|b`). */
  choose(req: LicenseRequest, start: number, end: number): LicenseItem[] | undefined {
    if (!req.anyOf) return this.fits(req.items, start, end) ? req.items : undefined;
    const one = req.items.find((i) => this.fits([i], start, end));
    return one === undefined ? undefined : [one];
  }

  /** Peak count held at any instant of [start, end): use only rises at a hold's start, so those instants and `start` suffice. */
  private peak(name: string, start: number, end: number): number {
    const list = this.holds.get(name);
    if (list === undefined) return 0;
    let peak = 0;
    const points = [start, ...list.map((h) => h.start).filter((s) => s > start && s < end)];
    for (const t of points) {
      let used = 0;
      for (const h of list) if (h.start <= t && t < h.end) used += h.count;
      peak = Math.max(peak, used);
    }
    return peak;
  }
}
