/**
 * @module rest/job-desc
 * slurmrestd's `job_desc_msg` → Spur's job request. Each field becomes the
 * sbatch option with the same meaning and goes through sbatch's own pipeline
 * (src/compat/options), so a REST job and `sbatch` with the same options get
 * the same JobSpec, the same checks and the same error texts. Paths are
 * checked first: absolute working directory, no ".." components, no NUL.
 * Also the job_desc_msg → `scontrol update` fields mapping for POST /job/{id}.
 */
import type { Plain } from "../../lib/plain.ts";
import type { JobSpec } from "../gen/spur/v1/types_pb.ts";
import type { Infer } from "./schema.ts";
import type { NoVal } from "./schemas-common.ts";
import type { JobDescMsg } from "./schemas-job.ts";
import { parseArgs } from "../../compat/options/parse-args.ts";
import { sbatchRequest } from "../../compat/options/sbatch-flow.ts";
import { RestError } from "./errors.ts";

export type JobDesc = Infer<typeof JobDescMsg>;

export interface SubmitInput {
  desc: JobDesc;
  script: string;
  nowSec: number;
  /** Working directory when the request names none (the user's home). */
  defaultCwd: string;
  hostname: string;
}

/** Reject paths that could escape where the user pointed ("..", NUL) or are relative where they must not be. */
export function checkPath(field: string, path: string, mustBeAbsolute: boolean): void {
  if (path.includes("\0")) throw new RestError("InvalidJobDesc", `${field}: NUL byte in path`, "job_desc_msg");
  if (mustBeAbsolute && !path.startsWith("/")) throw new RestError("InvalidJobDesc", `${field} must be an absolute path`, "job_desc_msg");
  if (path.split("/").includes("..")) throw new RestError("InvalidJobDesc", `${field}: ".." is not allowed in paths`, "job_desc_msg");
}

const numberOf = (v: NoVal | undefined): number | "infinite" | undefined =>
  v === undefined ? undefined : v.infinite ? "infinite" : v.set ? v.number : undefined;

function gresOption(kind: "node" | "job" | "task", tres: string): string {
  // "gres/gpu:1,gres/nvme:1" (one prefix per item) → "gpu:1,nvme:1"
  const g = tres.replace(/(^|,)gres[/:]/g, "$1");
  if (kind === "node") return `--gres=${g}`;
  const count = g.replace(/^gpu:/, "");
  return kind === "job" ? `--gpus=${count}` : `--gpus-per-task=${count}`;
}

/** The sbatch command line equivalent to `d` (without the script). */
export function jobDescArgv(d: JobDesc, nowSec: number): string[] {
  const a: string[] = [];
  const opt = (name: string, v: string | number | undefined) => {
    if (v !== undefined && v !== "") a.push(`--${name}=${v}`);
  };
  opt("job-name", d.name); opt("account", d.account); opt("partition", d.partition); opt("qos", d.qos);
  opt("array", d.array); opt("comment", d.comment); opt("constraint", d.constraints); opt("dependency", d.dependency);
  opt("licenses", d.licenses); opt("mail-user", d.mail_user); opt("reservation", d.reservation); opt("wckey", d.wckey);
  opt("cpus-per-task", d.cpus_per_task); opt("ntasks", d.tasks); opt("ntasks-per-node", d.tasks_per_node);
  opt("threads-per-core", d.threads_per_core); opt("output", d.standard_output); opt("error", d.standard_error);
  opt("input", d.standard_input); opt("nice", d.nice);
  if (d.nodes !== undefined) opt("nodes", d.nodes);
  else if (d.minimum_nodes !== undefined) opt("nodes", d.maximum_nodes !== undefined ? `${d.minimum_nodes}-${d.maximum_nodes}` : d.minimum_nodes);
  const time = numberOf(d.time_limit);
  opt("time", time === "infinite" ? "UNLIMITED" : time);
  const timeMin = numberOf(d.time_minimum);
  if (typeof timeMin === "number") opt("time-min", timeMin);
  const memNode = numberOf(d.memory_per_node);
  if (typeof memNode === "number") opt("mem", memNode);
  const memCpu = numberOf(d.memory_per_cpu);
  if (typeof memCpu === "number") opt("mem-per-cpu", memCpu);
  const prio = numberOf(d.priority);
  if (typeof prio === "number") opt("priority", prio);
  const begin = numberOf(d.begin_time);
  if (typeof begin === "number" && begin > nowSec) opt("begin", `now+${Math.ceil(begin - nowSec)}`);
  if (d.required_nodes !== undefined && d.required_nodes.length > 0) opt("nodelist", d.required_nodes.join(","));
  if (d.excluded_nodes !== undefined && d.excluded_nodes.length > 0) opt("exclude", d.excluded_nodes.join(","));
  if (d.mail_type !== undefined && d.mail_type.length > 0) opt("mail-type", d.mail_type.join(","));
  if (d.open_mode?.[0] !== undefined) opt("open-mode", d.open_mode[0].toLowerCase());
  if (d.tres_per_node) a.push(gresOption("node", d.tres_per_node));
  if (d.tres_per_job) a.push(gresOption("job", d.tres_per_job));
  if (d.tres_per_task) a.push(gresOption("task", d.tres_per_task));
  if (d.shared?.includes("none")) a.push("--exclusive");
  if (d.shared?.includes("oversubscribe")) a.push("--oversubscribe");
  if (d.hold === true) a.push("--hold");
  if (d.requeue === true) a.push("--requeue");
  if (d.requeue === false) a.push("--no-requeue");
  return a;
}

function environmentOf(d: JobDesc): Record<string, string> {
  const env: Record<string, string> = {};
  for (const kv of d.environment ?? []) {
    const eq = kv.indexOf("=");
    if (eq <= 0) throw new RestError("InvalidJobDesc", `environment entry "${kv.slice(0, 64)}" is not NAME=value`, "job_desc_msg");
    env[kv.slice(0, eq)] = kv.slice(eq + 1);
  }
  return env;
}

/** The JobSpec (and sbatch's warnings) for a REST submission; throws RestError on bad input. */
export function jobSpecFromDesc(input: SubmitInput): { spec: Plain<JobSpec>; warnings: string[] } {
  const d = input.desc;
  const cwd = d.current_working_directory ?? input.defaultCwd;
  checkPath("current_working_directory", cwd, true);
  for (const f of ["standard_output", "standard_error", "standard_input"] as const) {
    const p = d[f];
    if (p !== undefined) checkPath(f, p, false);
  }
  if (input.script.trim() === "") throw new RestError("InvalidJobDesc", "Batch job script is empty or missing", "job_desc_msg", "Batch script is empty", 2009);
  const argv = [...jobDescArgv(d, input.nowSec), `--chdir=${cwd}`];
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) {
    const text = parsed.error.message.split("\n")[0] ?? "";
    throw new RestError("InvalidJobDesc", text, "job_desc_msg", text);
  }
  const ctx = { cmd: "sbatch" as const, argv, env: environmentOf(d), invoker: { cwd, hostname: input.hostname }, now: input.nowSec };
  const built = sbatchRequest(ctx, parsed.value.options, { text: input.script, from: "file", path: "slurmrestd", args: d.argv ?? [] });
  if (!built.ok) throw new RestError("InvalidJobDesc", built.error.message, "job_desc_msg", built.error.message);
  return { spec: built.value.spec, warnings: built.value.warnings };
}

/** job_desc_msg fields of POST /job/{id} → scontrol update fields (+ hold/release). */
export function updateFieldsFromDesc(d: JobDesc): { fields: Record<string, string>; action?: "hold" | "release" } {
  const f: Record<string, string> = {};
  const set = (k: string, v: string | number | undefined) => {
    if (v !== undefined) f[k] = String(v);
  };
  const time = numberOf(d.time_limit);
  set("TimeLimit", time === "infinite" ? "UNLIMITED" : time);
  set("JobName", d.name); set("Partition", d.partition); set("Comment", d.comment); set("Nice", d.nice);
  set("Account", d.account); set("QOS", d.qos); set("Dependency", d.dependency); set("Features", d.constraints);
  set("NumTasks", d.tasks); set("NumNodes", d.nodes);
  const prio = numberOf(d.priority);
  if (typeof prio === "number") set("Priority", prio);
  if (d.required_nodes !== undefined) set("ReqNodeList", d.required_nodes.join(","));
  if (d.excluded_nodes !== undefined) set("ExcNodeList", d.excluded_nodes.join(","));
  const known = new Set(["time_limit", "name", "partition", "comment", "nice", "account", "qos", "dependency", "constraints", "tasks", "nodes", "priority", "required_nodes", "excluded_nodes", "hold"]);
  const unsupported = Object.keys(d).filter((k) => !known.has(k));
  if (unsupported.length > 0) throw new RestError("InvalidJobDesc", `fields that cannot be updated: ${unsupported.join(", ")}`, "job_desc_msg");
  return d.hold === undefined ? { fields: f } : { fields: f, action: d.hold ? "hold" : "release" };
}
