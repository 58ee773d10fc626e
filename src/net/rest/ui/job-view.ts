/**
 * @module rest/ui/job-view
 * One job as the page's job view shows it: what it asked for and holds, its steps with
 * what each used (the step usage the node agents measure and record, as seff and sacct
 * read it), seff's efficiency figures, the usage samples the page server took while the
 * job ran (rest/ui/samples), and its script or why it is not shown. Pure.
 */
import type { Plain } from "../../../lib/plain.ts";
import type { JobInfo } from "../../gen/spur/v1/types_pb.ts";
import { seffFigures } from "../../../compat/format/seff.ts";
import { displayJobId } from "../../../compat/format/job-values.ts";
import type { Sample } from "./samples.ts";

type Job = Plain<JobInfo>;

const STEP_NAMES: Record<number, string> = { [-5]: "batch", [-4]: "extern", [-6]: "interactive" };

export interface JobDetail {
  id: string;
  fields: [string, string][];
  gpus: { node: string; indices: number[] }[];
  steps: { id: string; name: string; state: string; nodes: string; ntasks: number; cpus: number; start: number; end: number; userCpuSec: number; systemCpuSec: number; maxRssKib: number; aveRssKib: number; measured: boolean }[];
  efficiency: { cpuPercent: number; memPercent: number; cpuSec: number; wallSec: number; cpus: number; memKib: number; allocMemKib: number; gpus: number };
  samples: Sample[];
  /** The script, or undefined with `scriptRefused` saying why. */
  script?: string;
  scriptRefused?: string;
}

const time = (t: number): string => (t > 0 ? new Date(t * 1000).toISOString().replace(".000Z", "Z") : "-");

function fieldsOf(job: Job): [string, string][] {
  const f: [string, string][] = [
    ["Name", job.name], ["User", `${job.user} (${job.uid})`], ["Account", job.account], ["Partition", job.partition], ["QOS", job.qos],
    ["State", [job.state, ...job.stateFlags].join(",")], ["Reason", job.reason || "None"], ["Priority", String(job.priority)],
    ["Submitted", time(job.submitTime)], ["Started", time(job.startTime)],
    // a running job's end time is its time limit's end, not an event
    [job.state === "RUNNING" || job.state === "PENDING" ? "Ends by (time limit)" : "Ended", time(job.endTime)],
    ["Time limit", job.timeLimitMin === undefined ? "UNLIMITED" : `${job.timeLimitMin} min`], ["Nodes", job.nodelist || job.reqNodelist || "-"],
    ["CPUs", String(job.numCpus)], ["Tasks", String(job.numTasks)], ["TRES requested", job.tresReq], ["TRES allocated", job.tresAlloc || "-"],
    ["GRES per node", job.tresPerNode || "-"], ["Working directory", job.workDir], ["Output", job.stdOut],
  ];
  if (job.dependency !== "") f.push(["Dependency", job.dependency]);
  return f;
}

const pct = (part: number, whole: number): number => (whole > 0 ? Math.round((1000 * part) / whole) / 10 : 0);

export function jobDetail(job: Job, cluster: string, now: number, samples: Sample[], script: { text: string } | { refused: string }): JobDetail {
  const seff = seffFigures(job, cluster, now);
  const detail: JobDetail = {
    id: displayJobId(job),
    fields: fieldsOf(job),
    gpus: job.alloc.filter((a) => a.gpuIndices.length > 0).map((a) => ({ node: a.node, indices: [...a.gpuIndices] })),
    steps: job.steps.map((s) => ({
      id: `${displayJobId(job)}.${STEP_NAMES[s.stepId] ?? s.stepId}`, name: s.name, state: s.state, nodes: s.nodelist, ntasks: s.ntasks, cpus: s.cpus,
      start: s.startTime, end: s.endTime, userCpuSec: s.usage?.userCpuSec ?? 0, systemCpuSec: s.usage?.systemCpuSec ?? 0,
      maxRssKib: s.usage?.maxRssKib ?? 0, aveRssKib: s.usage?.aveRssKib ?? 0, measured: s.usage !== undefined,
    })),
    efficiency: {
      cpuPercent: pct(seff.cpuSec, seff.wallSec * seff.ncpus), memPercent: pct(seff.memKib, seff.allocMemKib),
      cpuSec: seff.cpuSec, wallSec: seff.wallSec, cpus: seff.ncpus, memKib: seff.memKib, allocMemKib: seff.allocMemKib, gpus: seff.gpus,
    },
    samples,
  };
  if ("text" in script) detail.script = script.text;
  else detail.scriptRefused = script.refused;
  return detail;
}
