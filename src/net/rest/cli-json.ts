/**
 * @module rest/cli-json
 * `squeue --json=v0.0.4x` and `sacct --json=v0.0.4x` (the data_parser form of
 * Slurm 23.02 and later): the same serializers and envelope as spurrestd's
 * GET /slurm/<v>/jobs/ and GET /slurmdb/<v>/jobs/, so both parse with the
 * published schemas. `sinfo --json=v0.0.4x` prints `openapi_sinfo_resp`
 * (a component of /openapi/v3; no path serves it, as in slurmrestd). A bare `--json` prints the
 * newest version, as current Slurm does; `--json=v0.0.38` the 22.05 text the goldens record
 * (src/compat/format/json-*.ts).
 */
import type { Job } from "../../compat/format/job-values.ts";
import { jobInfo } from "./serialize-job.ts";
import { dbJobValue } from "./serialize-slurmdb.ts";
import { value } from "./schemas-common.ts";
import { metaFor, NEWEST, VERSIONS, versionNumber, type Version } from "./versions.ts";
import { pruneForVersion } from "./schema.ts";
import { JobInfo, JobInfoResp } from "./schemas-job.ts";
import { prettyJsonChunks } from "../../lib/json-pretty.ts";
import { DbJobsResp } from "./schemas-slurmdb.ts";
import { SinfoResp } from "./schemas-sinfo.ts";
import { sinfoDataValue } from "./serialize-sinfo.ts";
import type { SinfoRecord } from "../../compat/format/sinfo-records.ts";

/** 22.05's openapi v0.0.38 text (src/compat/format/json-*.ts): only when a `--json=v0.0.38` asks for it. */
export const LEGACY_JSON = "v0.0.38";

/**
 * "v0.0.45" or "data_parser/v0.0.45" → the version; a bare `--json` (undefined) → the newest,
 * as Slurm's commands print their current data_parser; "v0.0.38" → LEGACY_JSON; else the error text.
 */
export function dataParserVersion(text: string | undefined): Version | typeof LEGACY_JSON | string {
  if (text === undefined || text === "") return NEWEST;
  const v = text.replace(/^data_parser\//, "");
  if (v === LEGACY_JSON) return LEGACY_JSON;
  return (VERSIONS as readonly string[]).includes(v) ? (v as Version) : `Unable to find data_parser plugin for ${text} (available: ${VERSIONS.join(", ")})`;
}

/** True for the versions the serializers here print (not the legacy text, not an error). */
export const isDataParser = (v: string): v is Version => (VERSIONS as readonly string[]).includes(v);

interface Who {
  user: string;
  group: string;
  argv: readonly string[];
  command: string;
}

function meta(version: Version, api: "slurmctld" | "slurmdbd", cluster: string, who: Who) {
  return { ...metaFor({ version, api, user: who.user, group: who.group, source: "", cluster }), command: [who.command, ...who.argv] };
}

/**
 * `squeue --json=<version>`: JSON.stringify(document, null, 2) and a newline, in chunks written
 * job by job (lib/json-pretty.ts): with 10k jobs the document is ~70 MiB, which whole cost
 * more in stringify, memory and one big write than the jobs themselves.
 */
export function* squeueJsonV4Chunks(version: Version, jobs: readonly Job[], cluster: string, nowSec: number, who: Who): Generator<string> {
  const v = versionNumber(version);
  const envelope = {
    jobs: [] as readonly unknown[], last_backfill: value(0), last_update: value(Math.floor(nowSec)),
    meta: meta(version, "slurmctld", cluster, who), errors: [], warnings: [],
  };
  pruneForVersion(JobInfoResp.node, envelope, v);
  if ("jobs" in envelope) envelope.jobs = jobs; // (its place kept: pruning never drops it today)
  const record = (_key: string, job: unknown): unknown => {
    const info = jobInfo(job as Job, cluster);
    pruneForVersion(JobInfo.node, info, v);
    return info;
  };
  yield* prettyJsonChunks(envelope, record);
  yield "\n";
}

/** The whole `squeue --json=<version>` text (tests, and ports that do not write as they go). */
export const squeueJsonV4 = (version: Version, jobs: readonly Job[], cluster: string, nowSec: number, who: Who): string =>
  [...squeueJsonV4Chunks(version, jobs, cluster, nowSec, who)].join("");

export function sacctJsonV4(version: Version, jobs: readonly Job[], cluster: string, nowSec: number, who: Who): string {
  const doc = { jobs: jobs.map((j) => dbJobValue(j, cluster, nowSec)), meta: meta(version, "slurmdbd", cluster, who), errors: [], warnings: [] };
  pruneForVersion(DbJobsResp.node, doc, versionNumber(version));
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** `records`: the lines sinfo would print, already filtered, grouped and sorted. */
export function sinfoJsonV4(version: Version, records: readonly SinfoRecord[], cluster: string, who: Who): string {
  const doc = { sinfo: records.map((r) => sinfoDataValue(r, cluster)), meta: meta(version, "slurmctld", cluster, who), errors: [], warnings: [] };
  pruneForVersion(SinfoResp.node, doc, versionNumber(version));
  return `${JSON.stringify(doc, null, 2)}\n`;
}
