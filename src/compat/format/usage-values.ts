/**
 * @module format/usage-values
 * sacct/sstat values of a step's measured usage (MaxRSS, AveRSS, MaxVMSize,
 * TotalCPU, UserCPU, SystemCPU, AveCPU, MinCPU ...). Sizes are KiB printed the
 * way sacct's default unit conversion does: reduced by 1024 only while the
 * value divides exactly ("204800K" → "200M", "204812K" stays). A step without
 * a measurement prints blank sizes and zero CPU times; the job line sums its
 * steps' CPU times and leaves per-task values blank, as sacct does.
 */
import type { Plain } from "../../lib/plain.ts";
import type { StepUsage } from "../../net/gen/spur/v1/types_pb.ts";
import { formatCpuTime, formatElapsed } from "../format-time.ts";

type Usage = Plain<StepUsage>;

const UNITS = ["K", "M", "G", "T", "P"] as const;

/** KiB → sacct's text: "0", "13168K", "200M", "1.50G" never (exact reduction only). */
export function formatKib(kib: number): string {
  if (!Number.isFinite(kib) || Math.trunc(kib) === 0) return "0";
  let value = kib;
  let unit = 0;
  while (value > 1024 && Number.isInteger(value) && value % 1024 === 0 && unit < UNITS.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const text = Number.isInteger(value) ? String(value) : value.toFixed(2);
  return `${text}${UNITS[unit]}`;
}

/** A usage-derived value of one step, by sacct/sstat field name; undefined = not a usage field. */
export function stepUsageValue(field: string, usage: Usage | undefined): string | undefined {
  const cpu = (u: Usage) => u.userCpuSec + u.systemCpuSec;
  switch (field) {
    case "TotalCPU":
      return formatCpuTime(usage ? cpu(usage) : 0);
    case "UserCPU":
      return formatCpuTime(usage?.userCpuSec ?? 0);
    case "SystemCPU":
      return formatCpuTime(usage?.systemCpuSec ?? 0);
    default:
      break;
  }
  if (usage === undefined) return "";
  const ntasks = Math.max(1, usage.ntasks);
  switch (field) {
    case "MaxRSS":
      return formatKib(usage.maxRssKib);
    case "MaxRSSNode":
      return usage.maxRssNode;
    // The task rank where the maximum (minimum) was measured; 0 when measured per node only (a batch step's one task).
    case "MaxRSSTask":
      return String(usage.maxRssTask ?? 0);
    case "MaxVMSizeTask":
      return String(usage.maxVmsizeTask ?? 0);
    case "MinCPUTask":
      return String(usage.minCpuTask ?? 0);
    case "AveRSS":
      return formatKib(usage.aveRssKib);
    case "MaxVMSize":
      return formatKib(usage.maxVmsizeKib);
    case "MaxVMSizeNode":
      return usage.maxVmsizeNode;
    case "AveVMSize":
      return formatKib(usage.aveVmsizeKib);
    case "AveCPU":
      return formatElapsed(Math.round(cpu(usage) / ntasks));
    case "MinCPU":
      return formatElapsed(Math.round(usage.minCpuSec));
    case "MinCPUNode":
      return usage.minCpuNode;
    default:
      return undefined;
  }
}

/** The job line's TotalCPU/UserCPU/SystemCPU: the sum over its steps. */
export function jobCpuValue(field: "TotalCPU" | "UserCPU" | "SystemCPU", steps: readonly { usage?: Usage | undefined }[]): string {
  let sec = 0;
  for (const s of steps) {
    if (s.usage === undefined) continue;
    if (field !== "SystemCPU") sec += s.usage.userCpuSec;
    if (field !== "UserCPU") sec += s.usage.systemCpuSec;
  }
  return formatCpuTime(sec);
}

/** Field names this module answers (sacct-fields wires them). */
export const USAGE_FIELDS = [
  "MaxRSS", "MaxRSSNode", "MaxRSSTask", "AveRSS", "MaxVMSize", "MaxVMSizeNode", "MaxVMSizeTask", "AveVMSize", "AveCPU", "MinCPU",
  "MinCPUNode", "MinCPUTask",
] as const;

/**
 * sacct --units: a size as printed ("13168K", "256M", "0") in one unit, as Slurm converts
 * it: whole numbers bare, others with two decimals (oracle, 22.05: 256M → 262144K, 0.25G,
 * 0.00T; 1976K → 1.93M). Text that is not a size (blank, "0") is left alone.
 */
export function sizeInUnit(text: string, unit: string): string {
  const m = /^([0-9]+(?:\.[0-9]+)?)([KMGTP])$/.exec(text);
  const to = UNITS.indexOf(unit as (typeof UNITS)[number]);
  if (m === null || to < 0) return text;
  const kib = Number(m[1]) * 1024 ** UNITS.indexOf(m[2] as (typeof UNITS)[number]);
  const value = kib / 1024 ** to;
  return `${Number.isInteger(value) ? String(value) : value.toFixed(2)}${unit}`;
}

/** The same for the `mem=` item of a TRES list (AllocTRES, ReqTRES). */
export const tresInUnit = (tres: string, unit: string): string =>
  tres.split(",").map((item) => (item.startsWith("mem=") ? `mem=${sizeInUnit(item.slice(4), unit)}` : item)).join(",");
