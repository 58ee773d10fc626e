/**
 * @module cli/scontrol-steps-json
 * `scontrol --json show steps [J[.S]]`: the running steps `scontrol show step` would print,
 * as data_parser's openapi_step_info_msg (net/rest/cli-steps.ts) with meta.command
 * echoing the invocation. An unknown id or no controller is the envelope's `errors` entry
 * and exit status 1, as Slurm's scontrol answers in this mode.
 */
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import type { Job } from "../compat/format/job-values.ts";
import { StepInfoResp, stepInfoValue } from "../net/rest/cli-steps.ts";
import { dataParserVersion, isDataParser } from "../net/rest/cli-json.ts";
import { VERSIONS, metaFor, versionNumber, type Version } from "../net/rest/versions.ts";
import { pruneForVersion } from "../net/rest/schema.ts";
import { value } from "../net/rest/schemas-common.ts";

const BATCH_STEP = -5;

function parseStepId(text: string): { jobId: number; stepId?: number } | undefined {
  const m = /^(\d+)(?:\.(\d+|batch))?$/.exec(text.trim());
  if (m === null) return undefined;
  return m[2] === undefined ? { jobId: Number(m[1]) } : { jobId: Number(m[1]), stepId: m[2] === "batch" ? BATCH_STEP : Number(m[2]) };
}

async function clusterName(port: CliPort): Promise<string> {
  try {
    return (await port.ctl.getConfig()).entries.ClusterName ?? "";
  } catch {
    return "";
  }
}

/** --json[=VERSION] of an scontrol command: the data_parser version and the envelope's meta, or the refusal text. */
export async function jsonEnvelope(port: CliPort, argv: readonly string[], asked: string | undefined): Promise<{ version: Version; meta: Record<string, unknown> } | string> {
  const version = dataParserVersion(asked);
  if (!isDataParser(version)) return `scontrol: error: Unable to find data_parser plugin for ${asked} (available: ${VERSIONS.join(", ")})\n`;
  const cluster = await clusterName(port);
  return { version, meta: { ...metaFor({ version, api: "slurmctld", user: port.invoker.user, group: port.invoker.group, source: "", cluster }), command: ["scontrol", ...argv] } };
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message.replace(/^\[[a-z_]+\] /, "") : String(e));

/** The document and exit status for `show steps [idText]` under --json[=asked]. */
export async function stepsJson(port: CliPort, idText: string | undefined, argv: readonly string[], asked: string | undefined): Promise<CliResult> {
  const version = dataParserVersion(asked);
  if (!isDataParser(version)) {
    return { stdout: "", stderr: `scontrol: error: Unable to find data_parser plugin for ${asked} (available: ${VERSIONS.join(", ")})\n`, exitCode: 1 };
  }
  const cluster = await clusterName(port);
  const nowSec = Math.floor(port.now());
  const meta = { ...metaFor({ version, api: "slurmctld", user: port.invoker.user, group: port.invoker.group, source: "", cluster }), command: ["scontrol", ...argv] };
  const fail = (description: string, error: string, errno: number): CliResult => {
    const doc = { steps: [], last_update: value(nowSec), meta, errors: [{ description, error_number: errno, error, source: "slurm_get_job_steps" }], warnings: [] };
    return { stdout: `${JSON.stringify(doc, null, 2)}\n`, stderr: "", exitCode: 1 };
  };
  const wanted = idText === undefined ? undefined : parseStepId(idText);
  if (idText !== undefined && wanted === undefined) return fail(`Invalid job id: ${idText}`, "Invalid job id specified", 2017);
  let jobs: Job[];
  try {
    jobs = (await port.ctl.listJobs({ includeSteps: true, ...(wanted === undefined ? {} : { jobIds: [wanted.jobId] }) })).jobs;
  } catch (e) {
    return fail(messageOf(e), messageOf(e), 1);
  }
  const steps = [];
  for (const job of [...jobs].sort((a, b) => a.jobId - b.jobId)) {
    if (wanted !== undefined && job.jobId !== wanted.jobId) continue;
    for (const s of [...job.steps].sort((a, b) => a.stepId - b.stepId)) {
      if (s.state !== "RUNNING") continue;
      if (wanted?.stepId !== undefined && s.stepId !== wanted.stepId) continue;
      steps.push(stepInfoValue(job, s, cluster, nowSec));
    }
  }
  if (wanted !== undefined && !jobs.some((j) => j.jobId === wanted.jobId)) return fail(`Job ${wanted.jobId} not found`, "Invalid job id specified", 2017);
  const doc = { steps, last_update: value(nowSec), meta, errors: [], warnings: [] };
  pruneForVersion(StepInfoResp.node, doc, versionNumber(version));
  return { stdout: `${JSON.stringify(doc, null, 2)}\n`, stderr: "", exitCode: 0 };
}
