/**
 * @module compat/gpu-unique-ids
 * The visible-device variables for GPUs that have a unique id (pure). Slurm
 * puts a device's unique id in the local list instead of its index when the
 * device has one: with AutoDetect=nvml a MIG instance's id is its MIG UUID
 * (drivers 470.42.01 and later; "MIG-<GPU UUID>/<gi>/<ci>" before), so
 * CUDA_VISIBLE_DEVICES=MIG-… while SLURM_JOB_GPUS / SLURM_STEP_GPUS keep the
 * node-wide indices. Whole GPUs keep their index (or its renumbered position).
 */

/** Every variable that carries the local device list. */
export const VISIBLE_DEVICE_VARS: readonly string[] = ["CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ZE_AFFINITY_MASK", "GPU_DEVICE_ORDINAL"];

/**
 * `env` with each visible-device list's entries replaced by the unique id of the GPU at that
 * position; `globalIndices[p]` is the node-wide index of the list's p-th entry. Lists of another
 * length are left alone (they were not built from these GPUs).
 */
export function withGpuUniqueIds(env: Record<string, string>, globalIndices: readonly number[], uniqueIds: readonly string[]): Record<string, string> {
  if (!globalIndices.some((g) => (uniqueIds[g] ?? "") !== "")) return env;
  const out = { ...env };
  for (const name of VISIBLE_DEVICE_VARS) {
    const value = out[name];
    if (value === undefined || value === "") continue;
    const items = value.split(",");
    if (items.length !== globalIndices.length) continue;
    out[name] = items.map((item, p) => uniqueIds[globalIndices[p]!] || item).join(",");
  }
  return out;
}

/** Node-wide indices named by a list of indices ("0,3" → [0,3]); undefined when an entry is not an index. */
export function listedIndices(value: string | undefined): number[] | undefined {
  if (value === undefined || value === "") return undefined;
  const items = value.split(",");
  return items.every((i) => /^\d+$/.test(i)) ? items.map(Number) : undefined;
}

/** ConstrainDevices: index entries renumbered by position from 0; unique ids stay (as Slurm's local list). */
export function renumberVisible(env: Record<string, string>): Record<string, string> {
  const out = { ...env };
  for (const name of VISIBLE_DEVICE_VARS) {
    const v = out[name];
    if (v !== undefined && v !== "") out[name] = v.split(",").map((item, i) => (/^\d+$/.test(item) ? String(i) : item)).join(",");
  }
  return out;
}
