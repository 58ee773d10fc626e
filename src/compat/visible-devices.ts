/**
 * @module compat/visible-devices
 * The one rule for the visible-device variables (CUDA_VISIBLE_DEVICES and its AMD,
 * Intel and OpenCL twins), pure. A task's local list names, position by position,
 * the node-wide GPUs it holds:
 * - a device with a unique id goes by that id (AutoDetect=nvml names a MIG instance by
 *   its MIG UUID, drivers 470.42.01 and later), as Slurm's local list does;
 * - otherwise by its node-wide index, or, where only the allocated GPUs can be opened
 *   (ConstrainDevices, a container), by its position counted from 0.
 * SLURM_JOB_GPUS / SLURM_STEP_GPUS keep the node-wide indices (job-env-rows.ts).
 * The batch environment applies the rule when it is built on the node; a step's list is
 * built by srun from node-wide indices and localised on the node (agent/tasks.ts).
 */

/** Every variable that carries the local device list. */
export const VISIBLE_DEVICE_VARS: readonly string[] = ["CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL"];

/** How the node shows devices to a task: renumbered (constrained) or not, and the devices' unique ids by node-wide index. */
export interface DeviceView {
  constrain: boolean;
  uniqueIds: readonly string[];
}

/** The local list for node-wide indices `globals`, in the order given. */
export function localDeviceList(globals: readonly number[], view: DeviceView): string {
  return globals.map((g, p) => view.uniqueIds[g] || String(view.constrain ? p : g)).join(",");
}

/** Node-wide indices named by a list of indices ("0,3" → [0,3]); undefined when an entry is not an index. */
export function listedIndices(value: string | undefined): number[] | undefined {
  if (value === undefined || value === "") return undefined;
  const items = value.split(",");
  return items.every((i) => /^\d+$/.test(i)) ? items.map(Number) : undefined;
}

/**
 * A step's environment as srun built it (lists of node-wide indices) made local to the node:
 * each visible-device list of the same length as CUDA_VISIBLE_DEVICES's is rewritten by
 * localDeviceList. Lists that are not index lists (a user's own value) are left alone.
 */
export function localizeVisibleDevices(env: Record<string, string>, view: DeviceView): Record<string, string> {
  const globals = listedIndices(env.CUDA_VISIBLE_DEVICES);
  if (globals === undefined) return env;
  const local = localDeviceList(globals, view);
  const out = { ...env };
  for (const name of VISIBLE_DEVICE_VARS) {
    const value = out[name];
    if (value !== undefined && value !== "" && value.split(",").length === globals.length) out[name] = local;
  }
  return out;
}
