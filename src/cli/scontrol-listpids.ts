/**
 * @module cli/scontrol-listpids
 * `scontrol listpids [JOBID[.STEPID]] [NODENAME]`, run on a compute node: the processes of
 * the job steps there, from this host's node agents (spurd serves its steps' tasks and the
 * processes they started; agent/list-pids.ts), in Slurm's columns: PID JOBID STEPID LOCALID
 * GLOBALID, "-" for a process that is not a task. Without NODENAME every node agent of this
 * host answers (several with `spur up`'s one-host clusters). Messages as Slurm's scontrol:
 * '"x" does not look like a jobid', "Job 7 does not exist on this node.", ...
 */
import type { CliPort } from "./io.ts";
import type { Plain } from "../lib/plain.ts";
import type { PidRow } from "../net/gen/spur/v1/agent_pb.ts";
import { messageOf, outcome, type Outcome } from "../compat/format/scontrol-jobs.ts";

const BATCH_STEP = -5;
const EXTERN_STEP = -4;

export const LISTPIDS_HEADER = `${"PID".padEnd(8)} ${"JOBID".padEnd(8)} ${"STEPID".padEnd(6)} ${"LOCALID".padEnd(7)} ${"GLOBALID".padEnd(8)}\n`;

const stepText = (stepId: number): string => (stepId === BATCH_STEP ? "batch" : stepId === EXTERN_STEP ? "extern" : String(stepId));
const idText = (n: number): string => (n < 0 ? "-" : String(n));

/** One row as Slurm prints it (every column padded, the last one too). */
export const formatPidRow = (r: Plain<PidRow>): string =>
  `${String(r.pid).padEnd(8)} ${String(r.jobId).padEnd(8)} ${stepText(r.stepId).padEnd(6)} ${idText(r.localId).padEnd(7)} ${idText(r.globalId).padEnd(8)}\n`;

type Wanted = { jobId: number; stepId?: number } | { error: string };

function parseWanted(text: string | undefined): Wanted {
  if (text === undefined || text.startsWith("*")) return { jobId: 0 };
  const dot = text.indexOf(".");
  const job = dot < 0 ? text : text.slice(0, dot);
  if (!/^\s*[+-]?\d+\s*$/.test(job)) return { error: `"${job}" does not look like a jobid\n` };
  if (dot < 0) return { jobId: Number(job) };
  const step = text.slice(dot + 1);
  const stepId = step === "batch" ? BATCH_STEP : step === "extern" ? EXTERN_STEP : /^\d+$/.test(step) ? Number(step) : undefined;
  return stepId === undefined ? { error: `"${step}" does not look like a stepid\n` } : { jobId: Number(job), stepId };
}

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|::1)$/;

export async function listPidsCommand(port: CliPort, words: readonly string[]): Promise<Outcome> {
  if (words.length > 3) return outcome("", `too many arguments for keyword:${words[0]}\n`, true);
  const wanted = parseWanted(words[1]);
  if ("error" in wanted) return outcome("", wanted.error, true);
  const ask = port.agentListPids;
  let nodes;
  try {
    nodes = (await port.ctl.listNodes()).nodes;
  } catch (e) {
    return outcome(LISTPIDS_HEADER, `slurm_load_node error: ${messageOf(e)}\n`, true);
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
  const text = LISTPIDS_HEADER + rows.map(formatPidRow).join("");
  if (wanted.jobId === 0) return steps.size > 0 ? outcome(text) : outcome(text, `${failure ?? "No job steps exist on this node."}\n`, true);
  const job = String(wanted.jobId);
  if (wanted.stepId !== undefined) {
    const key = `${job}.${stepText(wanted.stepId)}`;
    return steps.has(key) ? outcome(text) : outcome(text, `Job step ${key} does not exist on this node.\n`, true);
  }
  return [...steps].some((s) => s.startsWith(`${job}.`)) ? outcome(text) : outcome(text, `Job ${job} does not exist on this node.\n`, true);
}
