/**
 * @module format/squeue-view
 * squeue's job listing (header and lines) from a job list and a "view": the format, the sort,
 * the filters and the flags that shape it. One function renders it for both sides: squeue
 * itself (cli/squeue.ts, from the jobs the controller sent) and the controller (ctld/service.ts,
 * from its state, for the usual request shapes), so the two texts are the same bytes by
 * construction (tests/unit/squeue-sinfo/squeue-view.test.ts also compares them on generated
 * queues). The view travels as JSON in ListJobsRequest.squeue_view; `SQUEUE_VIEW_VERSION`
 * changes whenever its meaning does, and a controller that does not know a view's version
 * answers with the jobs instead (the client then renders them itself).
 */
import { lineRenderer, parseLetterFormat, parseNameFormat, type ParsedFormat, renderLine } from "./format-spec.ts";
import type { Job, JobRow } from "./job-values.ts";
import { ALL_FORMAT } from "./squeue-fields.ts";
import { jobColumn, jobLetter, jobName } from "./squeue-fields-long.ts";
import {
  combinePendingArrayTasks, expandArrayRecord, type JobIdSel, type JobSelection, selectJob, singleJobLoadOrder,
} from "./squeue-select.ts";
import { parseJobSort, type SortItem, sortJobs } from "./squeue-sort.ts";
import { localTimesPrinted } from "./time-memo.ts";

export const SQUEUE_VIEW_VERSION = 1;

export const DEFAULT_FORMAT = "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R";
export const LONG_FORMAT = "%.18i %.9P %.8j %.8u %.8T %.10M %.9l %.6D %R";
export const DEFAULT_SORT = "P,t,-p";

/** What shapes the job listing (not the steps listing, not --json). Absent filters select everything. */
export interface SqueueView {
  v: number;
  /** The -o (letter) format as resolved: -o, SQUEUE_FORMAT, -l's or the default. Unused when `formatLong` is set. */
  format: string;
  /** -O (field names), when given without -o. */
  formatLong?: string;
  /** -S as given; absent: DEFAULT_SORT. */
  sort?: string;
  noHeader: boolean;
  /** -r: one line per array task. */
  array: boolean;
  /** -P: one line per partition of a multi-partition job. */
  priority: boolean;
  selection: JobSelection;
}

/** The -o/-O format of a view; `invalid` holds the unknown fields (the client reports them). */
export function viewFormat(view: Pick<SqueueView, "format" | "formatLong">): ParsedFormat {
  if (view.formatLong !== undefined) return parseNameFormat(view.formatLong, jobName);
  return parseLetterFormat(view.format, jobLetter, { allFormat: ALL_FORMAT });
}

/** True when the view's sort parses (a bad -S is an error the client prints itself). */
export const viewSortValid = (view: Pick<SqueueView, "sort">): boolean => parseJobSort(view.sort ?? DEFAULT_SORT).ok;

/** -P: one record per partition of a multi-partition job (all tiers equal here). */
function sortItems(jobs: readonly Job[], view: SqueueView): SortItem[] {
  if (!view.priority) return jobs.map((job) => ({ job, partPrio: 0 }));
  const wanted = view.selection.partitions;
  return jobs.flatMap((job) =>
    job.partition
      .split(",")
      // empty entries are skipped, repeated ones kept (oracle 22.05: -p gpu,,debug is 2 rows, -p gpu,gpu 2 rows of gpu)
      .filter((part) => part !== "" && (wanted === undefined || wanted.includes(part)))
      .map((partition) => ({ job: { ...job, partition }, partPrio: 1 })),
  );
}

/** Sort letters whose keys read the clock (time left, time used, expected start). */
const CLOCK_SORT_KEYS = /[LMS]/;

/** A single `-j N`: its id (the controller's load order differs then, and a missing job is an error). */
export const singleJobOf = (jobs: readonly JobIdSel[] | undefined): JobIdSel | undefined => (jobs?.length === 1 ? jobs[0] : undefined);

/** A single `-j N` asks the controller for job N, which fails when it does not exist. */
export function missingSingleJob(jobs: readonly Job[], selected: readonly JobIdSel[] | undefined): boolean {
  const one = singleJobOf(selected);
  if (one === undefined) return false;
  return !jobs.some((j) => j.jobId === one.jobId || (j.arrayJobId !== 0 && j.arrayJobId === one.jobId));
}

export interface Rendered {
  text: string;
  /** The text read the clock (a running job's time, a clock-based sort): it holds for this second only. */
  readsClock: boolean;
  /** The text holds a local time (%S, %V, ...): it is the client's only in the renderer's time zone. */
  printsLocalTime: boolean;
}

/**
 * The header (unless -h) and one line per record, as squeue prints them; undefined when the
 * view's sort does not parse. `now`: whole seconds.
 */
export function renderSqueueJobs(jobs: readonly Job[], view: SqueueView, now: number, cluster: string): Rendered | undefined {
  const sortKeys = parseJobSort(view.sort ?? DEFAULT_SORT);
  if (!sortKeys.ok) return undefined;
  const items = viewFormat(view).items;
  const timesBefore = localTimesPrinted();
  const one = singleJobOf(view.selection.jobs);
  const base = one === undefined ? jobs : singleJobLoadOrder(jobs, one.jobId);
  const picked: Job[] = [];
  for (const j of base) {
    const kept = selectJob(j, view.selection);
    if (kept !== undefined) picked.push(kept);
  }
  const combined = view.array ? picked : combinePendingArrayTasks(picked);
  const header = view.noHeader ? "" : renderLine(items, jobColumn, undefined);
  const render = lineRenderer(items, jobColumn);
  // Whether any column read the clock: a getter on the row notes it (columns read `now` only for running jobs).
  let readsClock = CLOCK_SORT_KEYS.test(view.sort ?? DEFAULT_SORT);
  const lines: string[] = [];
  for (const item of sortJobs(sortItems(combined, view), sortKeys.value, now)) {
    const records = view.array ? expandArrayRecord(item.job) : [item.job];
    for (const job of records) {
      const row: JobRow = {
        job,
        get now() {
          readsClock = true;
          return now;
        },
        cluster,
      };
      lines.push(render(row));
    }
  }
  return { text: header + lines.join(""), readsClock, printsLocalTime: localTimesPrinted() !== timesBefore };
}

/** A view as it travels (JSON), and back; undefined for a text that is not a view of this version. */
export const viewToWire = (view: SqueueView): string => JSON.stringify(view);

export function viewFromWire(text: string): SqueueView | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  const view = v as Partial<SqueueView>;
  if (view.v !== SQUEUE_VIEW_VERSION || typeof view.format !== "string") return undefined;
  if (typeof view.selection !== "object" || view.selection === null) return undefined;
  if (view.formatLong !== undefined && typeof view.formatLong !== "string") return undefined;
  if (view.sort !== undefined && typeof view.sort !== "string") return undefined;
  return { ...(view as SqueueView), noHeader: view.noHeader === true, array: view.array === true, priority: view.priority === true };
}
