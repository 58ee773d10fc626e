/**
 * @module cli/scontrol-show-step
 * `scontrol show step [<job>[.<step>]]`: one record per step in Slurm's
 * layout (StepId/UserId/StartTime/TimeLimit, State/Partition/NodeList,
 * Nodes/CPUs/Tasks/Name/Network, TRES, ResvPorts, CPUFreqReq/Dist,
 * SrunHost:Pid), from the steps the controller lists with each job.
 */
import type { CliPort } from "../net/ctl-port.ts";
import { formatIsoTime, formatTimeLimitScontrol } from "../compat/format-time.ts";
import type { Job } from "../compat/format/job-values.ts";
import { formatRecord, orNull } from "../compat/format/scontrol-record.ts";
import { messageOf, outcome, type Outcome } from "./scontrol-jobs.ts";

type Step = Job["steps"][number];

const BATCH_STEP = -5;

const stepIdText = (s: Step): string => `${s.jobId}.${s.stepId === BATCH_STEP ? "batch" : s.stepId}`;

const nodeCount = (s: Step): number => (s.alloc.length > 0 ? s.alloc.length : s.nodelist === "" ? 0 : 1);

/** One step as scontrol prints it. */
export function formatStepRecord(job: Job, s: Step, oneLiner: boolean): string {
  const lines = [
    `StepId=${stepIdText(s)} UserId=${job.uid} StartTime=${formatIsoTime(s.startTime)} TimeLimit=${formatTimeLimitScontrol(job.timeLimitMin)}`,
    `State=${s.state} Partition=${job.partition} NodeList=${orNull(s.nodelist)}`,
    `Nodes=${nodeCount(s)} CPUs=${s.cpus} Tasks=${s.ntasks} Name=${s.name} Network=(null)`,
    `TRES=${orNull(s.tres)}`,
    "ResvPorts=(null)",
    `CPUFreqReq=Default Dist=${s.distribution || "Block"}`,
    `SrunHost:Pid=${s.srunHost || "(null)"}:${s.srunPid ?? 0}`,
  ];
  // 22.05 prints the binding as "gpu:closest" (26.x: "gres/gpu:closest")
  if ((s.tresBind ?? "") !== "") lines.push(`TresBind=${(s.tresBind ?? "").replace(/^gres\/gpu:/, "gpu:")}`);
  return formatRecord(lines, oneLiner, "plain");
}

/** "<job>", "<job>.<step>" or "<job>.batch" → the parts; undefined for anything else. */
function parseStepId(text: string): { jobId: number; stepId?: number } | undefined {
  const m = /^(\d+)(?:\.(\d+|batch))?$/.exec(text.trim());
  if (m === null) return undefined;
  const stepId = m[2] === undefined ? undefined : m[2] === "batch" ? BATCH_STEP : Number(m[2]);
  return stepId === undefined ? { jobId: Number(m[1]) } : { jobId: Number(m[1]), stepId };
}

/** `scontrol show step [id]`. */
export async function showSteps(port: CliPort, idText: string | undefined, oneLiner: boolean): Promise<Outcome> {
  const wanted = idText === undefined ? undefined : parseStepId(idText);
  if (idText !== undefined && wanted === undefined) return outcome("", "slurm_get_job_steps error: Invalid job id specified\n", true);
  let jobs: Job[];
  try {
    jobs = (await port.ctl.listJobs({ includeSteps: true, ...(wanted === undefined ? {} : { jobIds: [wanted.jobId] }) })).jobs;
  } catch (e) {
    return outcome("", `slurm_get_job_steps error: ${messageOf(e)}\n`, true);
  }
  const records: string[] = [];
  for (const job of [...jobs].sort((a, b) => a.jobId - b.jobId)) {
    if (wanted !== undefined && job.jobId !== wanted.jobId) continue;
    for (const s of [...job.steps].sort((a, b) => a.stepId - b.stepId)) {
      if (s.state !== "RUNNING") continue; // Slurm lists the steps that are running
      if (wanted?.stepId !== undefined && s.stepId !== wanted.stepId) continue;
      records.push(formatStepRecord(job, s, oneLiner));
    }
  }
  if (records.length > 0) return outcome(records.join(""));
  if (idText === undefined) return outcome("No job steps in the system\n");
  // a job id alone is named with an empty step part, as Slurm's "<job>.<step>" message leaves it
  return outcome(`Job step ${idText.trim()}${wanted?.stepId === undefined ? "." : ""} not found\n`, "", true);
}
