/**
 * @module cli/sacct
 * `sacct`: accounting records of jobs and steps from the controller, printed
 * byte-for-byte like Slurm's sacct (default/-b/-l/--format columns, -p/-P,
 * -n, --helpformat, --json). Pure over the CliPort: argv in, text out.
 * The controller returns finished jobs too (includeFinished) with their steps;
 * selection and the time window are applied here (format/sacct-select).
 */
import { gresTresText, parseGresItems, trackedInTres } from "../compat/gres-generic.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { runsBatchScript } from "../sched/model/het.ts";
import { RpcError } from "../net/ctl-port.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { SACCT_FIELDS } from "../compat/format/sacct-fields.ts";
import { parseSacctArgs, sacctHelp, SACCT_USAGE, type SacctQuery } from "../compat/format/sacct-options.ts";
import { sacctPreselection, selectJobs, selectRows, type SelectContext } from "../compat/format/sacct-select.ts";
import { helpFormat, parseFieldList, renderTable, type Column } from "../compat/format/sacct-table.ts";
import { localMidnight } from "../compat/format/sacct-time.ts";
import { sacctJson } from "../compat/format/json-sacct.ts";
import { resetTimeMemo } from "../compat/format/time-memo.ts";
import { tresText } from "../sched/model/tres.ts";
import { withTimeFormat } from "../compat/format-time.ts";
import { sizeInUnit, tresInUnit } from "../compat/format/usage-values.ts";
import type { SacctRow } from "../compat/format/sacct-row.ts";

type JobRecord = Awaited<ReturnType<CliPort["ctl"]["listJobs"]>>["jobs"][number];

/**
 * A running batch job's script is a step of its own in Slurm's accounting (`<job>.batch`, on the
 * batch host, with the job's CPUs there) from the moment it starts; the controller records it
 * when the script ends, so while it runs the row is made here from the job (x-sacct-running).
 */
function withRunningBatchStep(job: JobRecord): JobRecord {
  if (!runsBatchScript(job) || (job.state !== "RUNNING" && job.state !== "SUSPENDED") || job.steps.some((s) => s.stepId === BATCH_STEP)) return job;
  const share = job.alloc.find((a) => a.node === job.batchHost) ?? job.alloc[0];
  const cpus = share?.cpus ?? 1;
  const batch = {
    jobId: job.jobId, stepId: BATCH_STEP, name: "batch", state: job.state, nodelist: job.batchHost, ntasks: 1, cpus,
    startTime: job.startTime, endTime: 0, exitCode: 0, exitSignal: 0, alloc: share ? [share] : [],
    // the batch host's counted GRES, as far as the job's own TRES tracks them (gres/nvme)
    tres: tresText(cpus, share?.memMib ?? 0, 1, share?.gpuIndices.length ?? 0, false) + gresTresText(parseGresItems(share?.gres ?? ""), trackedInTres(job.tresAlloc)),
  };
  return { ...job, steps: [batch, ...job.steps] };
}

const BATCH_STEP = -5;

const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });

/** Numeric job ids to ask the controller for ("17_2.batch" → 17). */
const requestedIds = (q: SacctQuery): number[] => [...new Set(q.jobIds.map((id) => Number(id.split(/[_.+]/)[0])))];

/** The window sent to the controller: a superset of what selectRows keeps. */
function windowOf(q: SacctQuery, now: number): { windowStart: number; windowEnd: number } {
  let start = q.start ?? 0;
  if (q.start === undefined && q.jobIds.length === 0) start = q.states.length > 0 ? now : localMidnight(now);
  return { windowStart: start, windowEnd: q.end ?? 0 };
}

function staticOutput(q: SacctQuery): CliResult | undefined {
  if (q.mode === "version") return done(`${SLURM_VERSION_LINE}\n`);
  if (q.mode === "help") return done(sacctHelp());
  if (q.mode === "usage") return done(SACCT_USAGE);
  if (q.mode === "helpformat") return done(helpFormat(SACCT_FIELDS.map((f) => f.name)));
  return undefined;
}

/** Run sacct with `argv` (without the program name). */
/** SLURM_TIME_FORMAT applies to every time this command prints (compat/format-time.ts). */
export const sacctMain = (argv: string[], port: CliPort): Promise<CliResult> =>
  withTimeFormat("sacct", port.env, port.now(), () => sacctRun(argv, port));

async function sacctRun(argv: string[], port: CliPort): Promise<CliResult> {
  resetTimeMemo();
  const now = Math.floor(port.now());
  const parsed = parseSacctArgs(argv, port.env, now);
  if (!parsed.ok) return done("", `${parsed.error.message}\n`, parsed.error.exitCode ?? 1);
  const q = parsed.value;
  // Slurm resolves -u while it reads its options: one it cannot is an error, whatever the others
  const known = port.userKnown?.bind(port);
  const unknown = known === undefined ? undefined : q.users.find((u) => !known(u));
  if (unknown !== undefined) return done("", `sacct: error: Invalid user id: ${unknown}\n`, 1);
  const fixed = staticOutput(q);
  if (fixed) return fixed;
  const columns = parseFieldList(q.fieldList);
  if (!columns.ok) return done("", `sacct: error: ${columns.error.message}\n`, 1);
  const ids = requestedIds(q);
  const ctx0: SelectContext = { query: q, invokerUid: port.invoker.uid, now, cluster: "" };
  let resp;
  try {
    resp = await port.ctl.listJobs({
      includeFinished: true,
      includeSteps: true,
      accounting: true,
      ...(ids.length > 0 ? { jobIds: ids } : {}),
      ...windowOf(q, now),
      // the controller leaves out what this query does not select (50k jobs: 23 MB otherwise)
      sacctQuery: JSON.stringify(sacctPreselection(ctx0)),
    });
  } catch (e) {
    const message = e instanceof RpcError || e instanceof Error ? e.message : String(e);
    return done("", `sacct: error: Problem talking to the database: ${message}\n`, 1);
  }
  resp = { ...resp, jobs: resp.jobs.map(withRunningBatchStep) };
  const ctx: SelectContext = { ...ctx0, cluster: resp.clusterName };
  if (q.mode === "json") {
    // a bare --json is the current data_parser (as squeue/sinfo); --json=v0.0.38 is 22.05's text
    const cj = await import("../net/rest/cli-json.ts");
    const v = cj.dataParserVersion(q.jsonVersion);
    if (v === cj.LEGACY_JSON) return done(sacctJson(selectJobs(resp.jobs, ctx), resp.clusterName, now));
    if (!cj.isDataParser(v)) return done("", `sacct: error: ${v}\n`, 1);
    const who = { user: port.invoker.user, group: port.invoker.group, argv, command: "sacct" };
    return done(cj.sacctJsonV4(v, selectJobs(resp.jobs, ctx), resp.clusterName, now, who));
  }
  const rows = selectRows(resp.jobs, ctx);
  const style = { parsable: q.parsable, delimiter: q.delimiter, header: q.header };
  return done(renderTable(q.units === undefined ? columns.value : inUnits(columns.value, q.units), rows, style));
}

/** Size fields sacct --units converts (memory sizes; disk fields keep their own unit). */
const SIZE_FIELDS = new Set(["ReqMem", "MaxRSS", "AveRSS", "MaxVMSize", "AveVMSize"]);
const TRES_FIELDS = new Set(["AllocTRES", "ReqTRES"]);

function inUnits(columns: readonly Column[], unit: string): Column[] {
  const wrap = (c: Column, convert: (text: string) => string): Column => ({ ...c, field: { ...c.field, get: (row: SacctRow) => convert(c.field.get(row)) } });
  return columns.map((c) => {
    if (SIZE_FIELDS.has(c.field.name)) return wrap(c, (t) => sizeInUnit(t, unit));
    if (TRES_FIELDS.has(c.field.name)) return wrap(c, (t) => tresInUnit(t, unit));
    return c;
  });
}
