/**
 * @module ctld/list-jobs-fast
 * ListJobs on the JSON fast path (what squeue, scontrol and spurrestd call): the answer's body
 * text, through the listing cache (list-cache.ts) so that a repeated identical call costs a
 * concatenation. Three forms:
 * - squeue_view set and renderable here: `squeueText`, squeue's listing rendered from the
 *   state with the client's own code (compat/format/squeue-view.ts), so the job list never
 *   crosses the wire (10k jobs: 0.8 MB of text instead of 4.7 MB of JSON to parse);
 *   A text that prints local times names this controller's time zone (`squeueTextZone`):
 *   squeue uses it only in the same zone, else asks again without the view;
 * - otherwise the jobs (a view version it does not know, `-j N` of a missing job: the client
 *   renders them itself);
 * - `known_list_version` still current: `listUnchanged` and nothing else (spurrestd keeps
 *   what it built from that list).
 * Every form names its list (`listVersion`).
 */
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import { ListJobsRequestSchema } from "../net/gen/spur/v1/controller_pb.ts";
import { toPlain } from "../lib/to-plain.ts";
import { omitDefaults } from "../lib/sparse.ts";
import { emptyJobInfo } from "../sched/model/records.ts";
import { isStandardTimeFormat, localTimeZone } from "../compat/format-time.ts";
import { missingSingleJob, renderSqueueJobs, viewFromWire, type SqueueView } from "../compat/format/squeue-view.ts";
import type { ListCache } from "./list-cache.ts";
import type { Controller } from "./controller.ts";
import { listJobViews, viewsValidUntil } from "./views.ts";
import { jobInfosToWire } from "./wire-map/job.ts";

const JOB_DEFAULTS = emptyJobInfo();

/** This process's time zone: a text that prints local times names it, and squeue uses it only in the same zone. */
const LOCAL_TZ = localTimeZone();

/** The view to render here, or undefined (the jobs are sent instead). */
export function renderableView(text: string): SqueueView | undefined {
  if (text === "") return undefined;
  // A process-wide SLURM_TIME_FORMAT style never applies in the controller; checked all the same.
  return isStandardTimeFormat() ? viewFromWire(text) : undefined;
}

/** The body of ListJobs' answer for a decoded JSON request. */
export function listJobsBody(c: Controller, cache: ListCache, json: unknown, now: number): string {
  const req = toPlain(fromJson(ListJobsRequestSchema, json as JsonValue, { ignoreUnknownFields: true }));
  const view = renderableView(req.squeueView);
  // The cache keys on the request's shape: the version the caller holds is no part of it.
  const shape = { ...req, knownListVersion: "", squeueView: view === undefined ? "" : req.squeueView };
  const key = { request: JSON.stringify(shape), appliedIndex: c.state.appliedIndex, viewsVersion: c.viewsVersion() };
  const got = cache.get(key, now, () => {
    const jobs = listJobViews(c, shape, now);
    const validUntil = viewsValidUntil(c, now, shape.jobIds);
    const text = view === undefined || missingSingleJob(jobs, view.selection.jobs) ? undefined : renderSqueueJobs(jobs, view, Math.floor(now), c.state.config.clusterName);
    if (text !== undefined) {
      // A listing that read the clock (a running job's time) holds for this second only.
      const zone = text.printsLocalTime ? `"squeueTextZone":${JSON.stringify(LOCAL_TZ)},` : "";
      return { text: `${zone}"squeueText":${JSON.stringify(text.text)}`, validUntil: text.readsClock ? Math.min(validUntil, Math.floor(now) + 1) : validUntil };
    }
    return { text: `"jobs":${JSON.stringify(jobInfosToWire(jobs).map((j) => omitDefaults(j, JOB_DEFAULTS)))}`, validUntil };
  });
  const tail = `"listVersion":${JSON.stringify(got.version)},"now":${JSON.stringify(now)},"clusterName":${JSON.stringify(c.state.config.clusterName)}}`;
  if (req.knownListVersion !== "" && req.knownListVersion === got.version) return `{"listUnchanged":true,${tail}`;
  return `{${got.text},${tail}`;
}
