/**
 * @module compat/options/gpu-option-checks
 * The checks Slurm 22.05 makes on the per-GPU options once every source of options is read
 * (oracle: found by the differential tester, seeds 22, 24, 44, 82, 180, 187, 262): a per-GPU
 * amount needs something to count GPUs or tasks by. Each failure prints Slurm's reason, then
 * "Invalid generic resource (gres) specification", and exits 1, with or without --test-only
 * (the request never reaches the controller). --cpus-per-gpu alone and --mem-per-gpu=0 pass. GPU
 * requests that name a type beside ones that do not are refused with their own single line.
 */
import type { JobSpec } from "../../net/gen/spur/v1/types_pb.ts";
import type { Plain } from "../../lib/plain.ts";
import { err, ok, type Result } from "../../lib/result.ts";
import { GRES_MESSAGE } from "./spec-syntax.ts";

/** The items of a "[type:]N[,...]" GPU text; a type alone is one GPU of it (oracle 22.05: --gpus-per-task=abc counts as a GPU request). */
function gpuItems(text: string): { type: string; count: number }[] {
  return text.split(",").filter((item) => item !== "").map((item) => {
    const parts = item.split(":");
    const last = parts.pop() ?? "";
    return /^\d+$/.test(last) ? { type: parts.join(":"), count: Number(last) } : { type: item, count: 1 };
  });
}

/** The GPU count of a GPU text (0 when none). */
function gpuCount(text: string): number {
  return gpuItems(text).reduce((sum, g) => sum + g.count, 0);
}

/** Whether the request asks for any GPU (--gpus, --gres=gpu, --gpus-per-node/-socket/-task). */
export function requestsGpus(spec: Plain<JobSpec>): boolean {
  return [spec.gpus, spec.gpusPerNode, spec.gpusPerTask, spec.gpusPerSocket ?? ""].some((t) => gpuCount(t) > 0)
    || spec.gresPerNode.some((g) => g.name === "gpu" && g.count > 0);
}

const fail = (reason: string): Result<never> => err("InvalidGres", `${reason}\n${GRES_MESSAGE}`);

/** Whether each GPU item of the request names a type: both kinds together are refused (oracle). */
function typedKinds(spec: Plain<JobSpec>): Set<boolean> {
  const kinds = new Set<boolean>();
  for (const text of [spec.gpus, spec.gpusPerNode, spec.gpusPerTask, spec.gpusPerSocket ?? ""]) {
    for (const g of gpuItems(text)) kinds.add(g.type !== "");
  }
  for (const g of spec.gresPerNode) if (g.name === "gpu") kinds.add(g.type !== "");
  return kinds;
}

/**
 * The task count sbatch knows before the controller: -n, else --ntasks-per-node times the
 * node count (one node when -N is not given), else an exact -N (oracle 22.05: --gpus-per-task=1
 * with -N 2 or --ntasks-per-node=2 is accepted, with -N 1-2 refused).
 */
function tasksImplied(spec: Plain<JobSpec>): number {
  if (spec.ntasks > 0) return spec.ntasks;
  if (spec.ntasksPerNode > 0) return Math.max(1, spec.nodesMin) * spec.ntasksPerNode;
  return spec.nodesMin > 0 && spec.nodesMin === spec.nodesMax ? spec.nodesMin : 0;
}

/** Slurm's reasons, in the order its checks run. */
export function checkGpuOptions(spec: Plain<JobSpec>): Result<void> {
  // Slurm checks each GPU type on its own first: a per-task count needs --gpus of the same type, or a task count
  // (oracle 22.05: --gpus-per-task=2 --gpus=mi300x:2 and --gpus-per-task=abc --gpus=1 are refused so, --gpus-per-task=mi300x
  // --gpus=mi300x:2 is accepted; differential seed 9940)
  const perJobTypes = new Set(gpuItems(spec.gpus).filter((g) => g.count > 0).map((g) => g.type));
  if (gpuItems(spec.gpusPerTask).some((g) => g.count > 0 && !perJobTypes.has(g.type)) && tasksImplied(spec) === 0) {
    return fail("Failed to validate job spec. --gpus-per-task used without either --gpus or -n/--ntasks is not allowed.");
  }
  // --gpus with --gpus-per-task gives the task count: a whole number of tasks, the one -n (or -N, --ntasks-per-node) gives
  // (oracle 22.05: --gpus=3 --gpus-per-task=2 and --gpus=2 --gpus-per-task=1 -N1 are refused, -n2 with the latter accepted)
  // (each type on its own: --gpus=2 beside --gpus-per-task=mi300x is the type mix below)
  for (const { type, count: perTask } of gpuItems(spec.gpusPerTask)) {
    const perJob = gpuItems(spec.gpus).filter((g) => g.type === type).reduce((n, g) => n + g.count, 0);
    if (perJob === 0 || perTask === 0) continue;
    // (oracle 22.05: --gpus=1 --gpus-per-task=2 is refused with this line, naming the per-node and per-socket counts too)
    if (perJob < perTask) return fail("Failed to ensure --gpus >= --gres=gpu/--gpus-per-node >= --gpus-per-socket");
    if (perJob % perTask !== 0) return fail("Failed to validate job spec, --gpus not multiple of --gpus-per-task");
    const implied = tasksImplied(spec);
    if (implied > 0 && implied !== perJob / perTask) {
      return fail("Failed to validate job spec. Based on --gpus and --gpus-per-task number of requested tasks differ from -n/--ntasks.");
    }
  }
  // a per-socket count is a whole number of tasks' (oracle 22.05: --gpus-per-socket=3 or 1 with --gpus-per-task=2)
  const perSocket = gpuCount(spec.gpusPerSocket ?? "");
  const perTaskCount = gpuCount(spec.gpusPerTask);
  if (perSocket > 0 && perTaskCount > 0 && perSocket % perTaskCount !== 0) {
    return fail("Failed to validate job spec, --gpus-per-socket not multiple of --gpus-per-task.");
  }
  // then the mix: oracle: --gpus=2 with --gpus-per-node=mi300x:1, --gres=gpu:1 with --gpus=mi300x:1, --gpus-per-task=abc -n1
  // with --gpus=1 ... (differential seed 234)
  if (typedKinds(spec).size > 1) return err("InvalidGres", "Invalid GRES specification (with and without type identification)");
  const gpus = requestsGpus(spec);
  if ((spec.memPerGpuMib ?? 0) > 0 && !gpus) {
    return fail(`Requested mem_per_tres=gres:gpu:${spec.memPerGpuMib} but did not request any GPU.`);
  }
  // oracle 22.05: -n 3 --ntasks-per-gpu=2 without GPUs (-N 1 too) is refused; with --gpus it is submitted
  if (spec.ntasksPerGpu > 0 && !gpus && spec.ntasks > 0 && spec.ntasks % spec.ntasksPerGpu !== 0) {
    return fail("Failed to validate job spec, -n/--ntasks has to be a multiple of --ntasks-per-gpu.");
  }
  if (spec.ntasksPerGpu > 0 && !gpus && spec.ntasks === 0 && spec.nodesMin === 0) {
    return fail("gres_job_state_validate: --ntasks-per-tres needs either a GRES GPU specification or a node/ntask specification");
  }
  return ok(undefined);
}

/**
 * --ntasks-per-socket as 22.05 sets it from --gpus-per-socket over --gpus-per-task when it is not given
 * (oracle: --gpus-per-socket=2 --gpus-per-task=1 -n2 shows NtasksPerN:B:S:C=0:0:2:*, with -B 1:4 and 1 each
 * 0:0:1:*; differential seed 10699); undefined when it stays as it is.
 */
export function tasksPerSocketFromGpus(spec: Plain<JobSpec>): number | undefined {
  if ((spec.ntasksPerSocket ?? 0) > 0) return undefined;
  const perSocket = gpuCount(spec.gpusPerSocket ?? "");
  const perTask = gpuCount(spec.gpusPerTask);
  return perSocket > 0 && perTask > 0 && perSocket % perTask === 0 ? perSocket / perTask : undefined;
}
