/**
 * @module cli/sstat
 * `sstat -j JOB[.STEP][,...]`: the usage so far of running steps, asked from
 * the node agents that run them (as Slurm's sstat asks slurmstepd), printed
 * with sacct's field table: default fields, -o/--format, -p/-P, -n, -a
 * (every running step when none is named; otherwise the lowest numbered srun
 * step, so a job with only its batch script shows nothing unless `.batch` or
 * -a is given, as in Slurm), -e/--helpformat. The agent call is injected.
 */
import { credentialHeaders } from "../net/auth/client-cred.ts";
import { nodeAudience } from "../net/auth/types.ts";
import type { CliPort, CliResult } from "../net/ctl-port.ts";
import { RpcError } from "../net/ctl-port.ts";
import type { Plain } from "../lib/plain.ts";
import type { StepInfo, StepUsage } from "../net/gen/spur/v1/types_pb.ts";
import { SLURM_VERSION_LINE } from "../compat/format/openapi-json.ts";
import { helpFormat, parseFieldList, renderTable } from "../compat/format/sacct-table.ts";
import { mergeUsage } from "../sched/model/apply-usage.ts";
import type { SacctRow } from "../compat/format/sacct-row.ts";
import { fetchTls, rpcUrl } from "../net/tls.ts";

type Step = Plain<StepInfo>;

/** Asks one node agent for the running steps of a job (stepId -1 = all). */
export type AgentStats = (addr: string, port: number, jobId: number, stepId: number, node?: string) => Promise<Step[]>;

export const SSTAT_DEFAULT_FIELDS = [
  "JobID,MaxVMSize,MaxVMSizeNode,MaxVMSizeTask,AveVMSize,MaxRSS,MaxRSSNode,MaxRSSTask,AveRSS,MaxPages,MaxPagesNode",
  "MaxPagesTask,AvePages,MinCPU,MinCPUNode,MinCPUTask,AveCPU,NTasks,AveCPUFreq,ReqCPUFreqMin,ReqCPUFreqMax,ReqCPUFreqGov",
  "ConsumedEnergy,MaxDiskRead,MaxDiskReadNode,MaxDiskReadTask,AveDiskRead,MaxDiskWrite,MaxDiskWriteNode,MaxDiskWriteTask",
  "AveDiskWrite,TRESUsageInAve,TRESUsageInMax,TRESUsageInMaxNode,TRESUsageInMaxTask,TRESUsageInMin,TRESUsageInMinNode",
  "TRESUsageInMinTask,TRESUsageInTot,TRESUsageOutAve,TRESUsageOutMax,TRESUsageOutMaxNode,TRESUsageOutMaxTask",
  "TRESUsageOutMin,TRESUsageOutMinNode,TRESUsageOutMinTask,TRESUsageOutTot",
].join(",");

/** The fields sstat knows (a subset of sacct's), for -e. */
const SSTAT_FIELDS = `AveCPU AveCPUFreq AveDiskRead AveDiskWrite AvePages AveRSS AveVMSize ConsumedEnergy ConsumedEnergyRaw JobID
MaxDiskRead MaxDiskReadNode MaxDiskReadTask MaxDiskWrite MaxDiskWriteNode MaxDiskWriteTask MaxPages MaxPagesNode MaxPagesTask
MaxRSS MaxRSSNode MaxRSSTask MaxVMSize MaxVMSizeNode MaxVMSizeTask MinCPU MinCPUNode MinCPUTask Nodelist NTasks Pids ReqCPUFreq
ReqCPUFreqMin ReqCPUFreqMax ReqCPUFreqGov TRESUsageInAve TRESUsageInMax TRESUsageInMaxNode TRESUsageInMaxTask TRESUsageInMin
TRESUsageInMinNode TRESUsageInMinTask TRESUsageInTot TRESUsageOutAve TRESUsageOutMax TRESUsageOutMaxNode TRESUsageOutMaxTask
TRESUsageOutMin TRESUsageOutMinNode TRESUsageOutMinTask TRESUsageOutTot`.split(/\s+/);

const STEP_WORDS: Readonly<Record<string, number>> = { batch: -5, extern: -4, interactive: -6 };

interface SstatQuery {
  targets: { jobId: number; stepId: number | undefined }[];
  fields: string;
  parsable: 0 | 1 | 2;
  header: boolean;
  allSteps: boolean;
  mode: "list" | "help" | "helpformat" | "version";
}

const USAGE = "Usage: sstat [options] -j <job(.stepid)>\n\tUse --help for help\n";
const done = (stdout: string, stderr = "", exitCode = 0): CliResult => ({ stdout, stderr, exitCode });
const fail = (message: string): CliResult => done("", `sstat: error: ${message}\n`, 1);

function parseTargets(text: string): SstatQuery["targets"] | string {
  const out: SstatQuery["targets"] = [];
  for (const item of text.split(",").filter(Boolean)) {
    const m = /^(\d+)(?:\.(\d+|batch|extern|interactive))?$/.exec(item.trim());
    if (m === null) return `Invalid job id: ${item}`;
    const step = m[2];
    out.push({ jobId: Number(m[1]), stepId: step === undefined ? undefined : (STEP_WORDS[step] ?? Number(step)) });
  }
  return out;
}

export function parseSstatArgs(argv: readonly string[]): SstatQuery | string {
  const q: SstatQuery = { targets: [], fields: SSTAT_DEFAULT_FIELDS, parsable: 0, header: true, allSteps: false, mode: "list" };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    const eq = arg.indexOf("=");
    const [name, inline] = arg.startsWith("--") && eq > 0 ? [arg.slice(0, eq), arg.slice(eq + 1)] : [arg, undefined];
    const value = (): string => inline ?? argv[++i] ?? "";
    if (name === "-j" || name === "--jobs") {
      const t = parseTargets(value());
      if (typeof t === "string") return t;
      q.targets.push(...t);
    } else if (/^-j\d/.test(name)) {
      const t = parseTargets(name.slice(2));
      if (typeof t === "string") return t;
      q.targets.push(...t);
    } else if (name === "-o" || name === "--format" || name === "--fields") q.fields = value();
    else if (name === "-p" || name === "--parsable") q.parsable = 1;
    else if (name === "-P" || name === "--parsable2") q.parsable = 2;
    else if (name === "-n" || name === "--noheader") q.header = false;
    else if (name === "-a" || name === "--allsteps") q.allSteps = true;
    else if (name === "-e" || name === "--helpformat") q.mode = "helpformat";
    else if (name === "-h" || name === "--help" || name === "--usage") q.mode = "help";
    else if (name === "-V" || name === "--version") q.mode = "version";
    else if (name === "-i" || name === "--pidformat") q.fields = "JobID,Nodelist,Pids";
    else if (name === "--noconvert" || name === "-v" || name === "--verbose") continue;
    else if (/^\d/.test(name)) {
      const t = parseTargets(name);
      if (typeof t === "string") return t;
      q.targets.push(...t);
    } else return `unrecognized option '${name}'`;
  }
  return q;
}

/** Run sstat with `argv` (without the program name). */
export async function sstatMain(argv: string[], port: CliPort, agents: AgentStats = httpAgentStats): Promise<CliResult> {
  const q = parseSstatArgs(argv);
  if (typeof q === "string") return done("", `sstat: ${q}\n${USAGE}`, 1);
  if (q.mode === "version") return done(`${SLURM_VERSION_LINE}\n`);
  if (q.mode === "help") return done(USAGE);
  if (q.mode === "helpformat") return done(helpFormat(SSTAT_FIELDS));
  if (q.targets.length === 0) return fail("Please specify a job or step to stat (-j JOB[.STEP])");
  const columns = parseFieldList(q.fields);
  if (!columns.ok) return fail(columns.error.message);
  let jobs;
  let nodes;
  try {
    jobs = (await port.ctl.listJobs({ jobIds: [...new Set(q.targets.map((t) => t.jobId))], includeSteps: true })).jobs;
    nodes = (await port.ctl.listNodes()).nodes;
  } catch (e) {
    return fail(e instanceof RpcError || e instanceof Error ? e.message : String(e));
  }
  const rows: SacctRow[] = [];
  let stderr = "";
  for (const t of q.targets) {
    const job = jobs.find((j) => j.jobId === t.jobId);
    if (job === undefined) {
      stderr += `sstat: error: couldn't get steps for job ${t.jobId}\n`;
      continue;
    }
    const hosts = job.state === "RUNNING" ? job.alloc.map((a) => nodes.find((n) => n.name === a.node)).filter((n) => n !== undefined) : [];
    const found = (await Promise.all(hosts.map((n) => agents(n.addr || "127.0.0.1", n.port, t.jobId, t.stepId ?? -1, n.name).catch(() => [])))).flat();
    const chosen = chooseSteps(mergeByStep(found), t.stepId, q.allSteps);
    const missing = notRunning(job.state, t, chosen.length);
    if (missing !== "") stderr += `sstat: error: ${missing}\n`;
    for (const step of chosen) {
      const known = job.steps.find((s) => s.stepId === step.stepId);
      rows.push({ job, step: { ...(known ?? step), usage: step.usage, nodelist: known?.nodelist ?? step.nodelist }, now: port.now(), cluster: "" });
    }
  }
  return done(renderTable(columns.value, rows, { parsable: q.parsable, delimiter: "|", header: q.header }), stderr, 0);
}

const STEP_NAMES = new Map(Object.entries(STEP_WORDS).map(([word, id]) => [id, word]));

/**
 * What 22.05's sstat says when a known job has nothing to show (stderr, exit 0): a named step that
 * is not running, "not found running"; a job not running at all, "No steps running"; a running job
 * with no step but its batch script, nothing.
 */
function notRunning(state: string, t: SstatQuery["targets"][number], shown: number): string {
  if (shown > 0) return "";
  if (t.stepId !== undefined) return `StepId=${t.jobId}.${STEP_NAMES.get(t.stepId) ?? t.stepId} not found running.`;
  return state === "RUNNING" ? "" : `No steps running for job ${t.jobId}`;
}

/** One record per step, the nodes' usages merged. */
function mergeByStep(steps: readonly Step[]): Step[] {
  const byId = new Map<number, Step>();
  for (const s of steps) {
    const have = byId.get(s.stepId);
    const usage = withDefaults(s.usage);
    if (have === undefined) byId.set(s.stepId, { ...s, usage });
    else byId.set(s.stepId, { ...have, usage: mergeUsage(withDefaults(have.usage), usage), ntasks: have.ntasks + s.ntasks });
  }
  return [...byId.values()].sort((a, b) => order(a.stepId) - order(b.stepId));
}

const order = (id: number): number => (id < 0 ? id - 10 : id);

function chooseSteps(steps: Step[], stepId: number | undefined, all: boolean): Step[] {
  if (stepId !== undefined) return steps.filter((s) => s.stepId === stepId);
  if (all) return steps;
  const numbered = steps.filter((s) => s.stepId >= 0);
  return numbered.slice(0, 1);
}

/** Proto3 JSON leaves zero fields out. */
function withDefaults(u: Partial<Plain<StepUsage>> | undefined): Plain<StepUsage> {
  return {
    maxRssKib: 0, maxRssNode: "", aveRssKib: 0, maxVmsizeKib: 0, maxVmsizeNode: "", aveVmsizeKib: 0, userCpuSec: 0,
    systemCpuSec: 0, minCpuSec: 0, minCpuNode: "", ntasks: 0, maxPages: 0, ...u,
  };
}

/** The agent's StepStats over Connect's JSON form (plain fetch: no protobuf runtime in the CLI). */
async function httpAgentStats(addr: string, port: number, jobId: number, stepId: number, node = ""): Promise<Step[]> {
  const base = rpcUrl(addr, port);
  // a cluster of several hosts wants to know who asks (AuthType=auth/spur or auth/munge)
  const cred = await credentialHeaders(nodeAudience(node));
  const res = await fetch(`${base}/spur.v1.Agent/StepStats`, {
    ...fetchTls(base),
    method: "POST",
    headers: { "content-type": "application/json", ...cred },
    body: JSON.stringify({ jobId, stepId }),
    signal: AbortSignal.timeout(5000),
  });
  if (!res.ok) throw new RpcError("unavailable", `agent ${addr}:${port} answered ${res.status}`);
  const body = (await res.json()) as { steps?: Partial<Step>[] };
  return (body.steps ?? []).map((s) => ({
    jobId: s.jobId ?? jobId, stepId: s.stepId ?? 0, name: s.name ?? "", state: s.state ?? "RUNNING", nodelist: s.nodelist ?? "",
    ntasks: s.ntasks ?? 0, cpus: s.cpus ?? 0, startTime: s.startTime ?? 0, endTime: s.endTime ?? 0, exitCode: s.exitCode ?? 0,
    exitSignal: s.exitSignal ?? 0, alloc: [], tres: s.tres ?? "", usage: withDefaults(s.usage),
  }));
}
