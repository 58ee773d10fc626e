/**
 * @module cli/scontrol-listpids
 * `scontrol listpids [JOBID[.STEPID]] [NODENAME]`, run on a compute node: the processes of
 * the job steps there, from this host's node agents (spurd serves its steps' tasks and the
 * processes they started; agent/list-pids.ts), in Slurm's columns: PID JOBID STEPID LOCALID
 * GLOBALID, "-" for a process that is not a task. Without NODENAME every node agent of this
 * host answers (several with `spur up`'s one-host clusters). Columns, step order (numbered
 * steps, then batch) and messages as 22.05's scontrol prints them (checked on the oracle):
 * '"x" does not look like a jobid', "JobId=7 does not exist on node n1." (no steps there at
 * all), "There are no steps for job 7 on node n1.", "StepId=7.3 does not exist on node n1.".
 */
import type { CliPort } from "../net/ctl-port.ts";
import type { Plain } from "../lib/plain.ts";
import type { PidRow } from "../net/gen/spur/v1/agent_pb.ts";
import { messageOf, outcome, type Outcome } from "./scontrol-jobs.ts";

const BATCH_STEP = -5;
const EXTERN_STEP = -4;

/** Column widths of 22.05's "%-8s %-8s %-8s %-7s %-8s" (the oracle's output). */
const WIDTHS = [8, 8, 8, 7, 8];
const columns = (cells: readonly string[]): string => `${cells.map((c, i) => c.padEnd(WIDTHS[i] ?? 8)).join(" ")}\n`;

export const LISTPIDS_HEADER = columns(["PID", "JOBID", "STEPID", "LOCALID", "GLOBALID"]);

const stepText = (stepId: number): string => (stepId === BATCH_STEP ? "batch" : stepId === EXTERN_STEP ? "extern" : String(stepId));
const idText = (n: number): string => (n < 0 ? "-" : String(n));

/** One row as Slurm prints it (every column padded, the last one too). */
export const formatPidRow = (r: Plain<PidRow>): string =>
  columns([String(r.pid), String(r.jobId), stepText(r.stepId), idText(r.localId), idText(r.globalId)]);

/** Numbered steps first, then the batch step, then extern (the order the oracle printed). */
const stepRank = (stepId: number): number => (stepId >= 0 ? stepId : stepId === BATCH_STEP ? 1e9 : 1e9 + 1);
const sortRows = (rows: Plain<PidRow>[]): Plain<PidRow>[] =>
  rows.map((r, i) => ({ r, i })).sort((a, b) => a.r.jobId - b.r.jobId || stepRank(a.r.stepId) - stepRank(b.r.stepId) || a.i - b.i).map((x) => x.r);

type Wanted = { jobId: number; stepId?: number } | { error: string } | { badStep: string };

function parseWanted(text: string | undefined): Wanted {
  if (text === undefined || text.startsWith("*")) return { jobId: 0 };
  const dot = text.indexOf(".");
  const job = dot < 0 ? text : text.slice(0, dot);
  if (!/^\s*[+-]?\d+\s*$/.test(job)) return { error: `"${job}" does not look like a jobid\n` };
  if (dot < 0) return { jobId: Number(job) };
  const step = text.slice(dot + 1);
  // 22.05 takes a number only ("7.batch" is refused) and then lists nothing, successfully
  return /^\s*\d+\s*$/.test(step) ? { jobId: Number(job), stepId: Number(step) } : { badStep: `"${text}" does not look like a stepid\n` };
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/;

/** `--json[=VERSION]`: OPENAPI_LISTPIDS_INFO_RESP (`pids`) instead of the table; messages stay on stderr. */
export interface JsonAsk {
  asked: string | undefined;
  argv: readonly string[];
}

type Render = (rows: Plain<PidRow>[]) => string;

async function renderer(port: CliPort, json: JsonAsk | undefined): Promise<Render | string> {
  if (json === undefined) return (rows) => LISTPIDS_HEADER + sortRows(rows).map(formatPidRow).join("");
  const { jsonEnvelope } = await import("./scontrol-steps-json.ts");
  const { ListPidsResp, listPidsValue } = await import("../net/rest/cli-steps.ts");
  const { pruneForVersion } = await import("../net/rest/schema.ts");
  const { versionNumber } = await import("../net/rest/versions.ts");
  const env = await jsonEnvelope(port, json.argv, json.asked);
  if (typeof env === "string") return env;
  return (rows) => {
    const pids = sortRows(rows).map((r) => listPidsValue({ ...r, step: stepText(r.stepId) }));
    const doc = { pids, meta: env.meta, errors: [], warnings: [] };
    pruneForVersion(ListPidsResp.node, doc, versionNumber(env.version));
    return `${JSON.stringify(doc, null, 2)}\n`;
  };
}

export async function listPidsCommand(port: CliPort, words: readonly string[], json?: JsonAsk): Promise<Outcome> {
  if (words.length > 3) return outcome("", `too many arguments for keyword:${words[0]}\n`, true);
  const wanted = parseWanted(words[1]);
  if ("error" in wanted) return outcome("", wanted.error, true);
  const render = await renderer(port, json);
  if (typeof render === "string") return outcome("", render, true);
  if ("badStep" in wanted) return outcome(render([]), wanted.badStep, false);
  const ask = port.agentListPids;
  let nodes;
  try {
    nodes = (await port.ctl.listNodes()).nodes;
  } catch (e) {
    return outcome(render([]), `slurm_load_node error: ${messageOf(e)}\n`, true);
  }
  const nodeName = words[2];
  const here = nodes.filter((n) => (nodeName !== undefined ? n.name === nodeName : [n.hostname, n.addr].some((h) => h === port.invoker.hostname || LOOPBACK.test(h))));
  const rows: Plain<PidRow>[] = [];
  const steps = new Set<string>();
  let failure: string | undefined;
  for (const n of here) {
    if (ask === undefined || n.port === 0) continue;
    try {
      const r = await ask(n.addr || n.hostname, n.port, wanted.stepId === undefined ? { jobId: wanted.jobId } : { jobId: wanted.jobId, stepId: wanted.stepId });
      rows.push(...r.rows);
      for (const s of r.steps) steps.add(s);
    } catch (e) {
      failure ??= messageOf(e);
    }
  }
  const text = render(rows);
  if (wanted.jobId === 0) return steps.size > 0 ? outcome(text) : outcome(text, `${failure ?? "No job steps exist on this node."}\n`, true);
  const job = String(wanted.jobId);
  const where = nodeName ?? here[0]?.name ?? port.invoker.hostname;
  if (wanted.stepId !== undefined) {
    const key = `${job}.${stepText(wanted.stepId)}`;
    return steps.has(key) ? outcome(text) : outcome(text, `StepId=${key} does not exist on node ${where}.\n`, true);
  }
  if ([...steps].some((s) => s.startsWith(`${job}.`))) return outcome(text);
  // no step at all on the node, or steps of other jobs only: Slurm says these two differently
  return outcome(text, steps.size === 0 ? `JobId=${job} does not exist on node ${where}.\n` : `There are no steps for job ${job} on node ${where}.\n`, true);
}
