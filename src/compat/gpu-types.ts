/**
 * @module compat/gpu-types
 * GPU types on a node (pure). A node registers its GPUs grouped by type, in
 * index order ("gpu:3g.40gb:1,gpu:1g.10gb:2,gpu:h100:7": index 0 is a 3g.40gb
 * MIG, 1-2 are 1g.10gb, 3-9 whole H100s), so the gres text is the index → type
 * map. A typed request (--gres=gpu:1g.10gb:2, --gpus=h100:4) may only take GPUs
 * of its type; an untyped one takes any, as in Slurm.
 */

/** Type of each GPU index from the node's gres text; undefined when it does not add up to `gpuCount`. */
export function gpuTypesOfGres(gres: string, gpuCount: number): string[] | undefined {
  const types = gpuTypesOfText(gres);
  return types !== undefined && types.length === gpuCount ? types : undefined;
}

/** Type of each GPU index the gres text lists ("gpu:a:1,gpu:b:2" → a,b,b); undefined when a count is malformed. */
export function gpuTypesOfText(gres: string): string[] | undefined {
  const types: string[] = [];
  for (const item of gres.split(",")) {
    const parts = item.trim().replace(/\(.*\)$/, "").split(":");
    if (parts[0] !== "gpu") continue;
    const count = Number(parts[parts.length - 1]);
    if (!Number.isInteger(count) || count < 0) return undefined;
    const type = parts.length > 2 ? parts.slice(1, -1).join(":") : "";
    for (let i = 0; i < count && types.length < GPUS_PER_NODE_MAX; i++) types.push(type);
  }
  return types;
}

/** The one type of the GPUs `held` on a node of these index types; undefined when untyped, unknown or mixed. */
export function heldGpuType(types: readonly string[] | undefined, held: readonly number[]): string | undefined {
  const first = types?.[held[0] ?? -1];
  return first !== undefined && first !== "" && held.every((i) => types?.[i] === first) ? first : undefined;
}

/** Bound on the per-index list (malformed text must not allocate without limit). */
const GPUS_PER_NODE_MAX = 4096;

/** Several GPU types on the node: worth a per-index type list in the node view. */
export function mixedGpuTypes(types: readonly string[] | undefined): boolean {
  return types !== undefined && types.some((t) => t !== types[0]);
}

/** What gpuPool reads of a node view. */
export interface TypedGpus {
  gpuCount: number;
  gpuModel: string;
  freeGpus: number[];
  /** Type of each GPU index when the node has several types; absent = all `gpuModel`. */
  gpuTypes?: string[] | undefined;
}

/** The GPU indices a request of `type` ("" = any) may take: the free ones now, all of them for "ever". */
export function gpuPool(node: TypedGpus, type: string, now: boolean): number[] {
  const pool = now ? node.freeGpus : Array.from({ length: node.gpuCount }, (_, i) => i);
  if (type === "") return pool;
  if (node.gpuTypes === undefined) return node.gpuModel === type ? pool : [];
  return pool.filter((g) => node.gpuTypes![g] === type);
}
