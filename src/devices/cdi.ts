/**
 * @module devices/cdi
 * Builds Container Device Interface specs from a DeviceInventory: kind
 * "amd.com/gpu" (per GPU its DRM card and render node, /dev/kfd for any) or
 * "nvidia.com/gpu" (per GPU /dev/nvidiaN, per MIG instance its capability files,
 * the control and UVM nodes for any), named by index, by UUID and "all".
 */
import { err, ok, type Result } from "../lib/result.ts";
import { assert } from "../lib/assert.ts";
import type { DeviceInventory, DeviceNodeRef, GpuVendor } from "./inventory.ts";
import { minimumCdiVersion, validateCdiSpec } from "./cdi-validate.ts";

export { CDI_VERSION_LATEST, CDI_VERSIONS, minimumCdiVersion, parseCdiKind, validateCdiSpec } from "./cdi-validate.ts";

export interface CdiDeviceNode {
  path: string;
  hostPath?: string;
  type?: string;
  major?: number;
  minor?: number;
  fileMode?: number;
  permissions?: string;
  uid?: number;
  gid?: number;
}

export interface CdiMount {
  hostPath: string;
  containerPath: string;
  type?: string;
  options?: string[];
}

export interface CdiHook {
  hookName: string;
  path: string;
  args?: string[];
  env?: string[];
  timeout?: number;
}

export interface CdiContainerEdits {
  env?: string[];
  deviceNodes?: CdiDeviceNode[];
  mounts?: CdiMount[];
  hooks?: CdiHook[];
  additionalGids?: number[];
}

export interface CdiDevice {
  name: string;
  annotations?: Record<string, string>;
  containerEdits: CdiContainerEdits;
}

export interface CdiSpec {
  cdiVersion: string;
  kind: string;
  annotations?: Record<string, string>;
  devices: CdiDevice[];
  containerEdits?: CdiContainerEdits;
}

/** The CDI kind Spur publishes per vendor. */
export const CDI_KINDS: Record<GpuVendor, string> = { amd: "amd.com/gpu", nvidia: "nvidia.com/gpu" };

function cdiNode(ref: DeviceNodeRef): CdiDeviceNode {
  const node: CdiDeviceNode = { path: ref.path, type: "c" };
  if (ref.major !== undefined && ref.major >= 0) node.major = ref.major;
  if (ref.minor !== undefined && ref.minor >= 0) node.minor = ref.minor;
  node.permissions = "rw";
  return node;
}

function uniqueNodes(refs: DeviceNodeRef[]): CdiDeviceNode[] {
  const seen = new Set<string>();
  const nodes: CdiDeviceNode[] = [];
  for (const ref of refs) {
    if (seen.has(ref.path)) continue;
    seen.add(ref.path);
    nodes.push(cdiNode(ref));
  }
  return nodes;
}

interface NamedNodes {
  names: string[];
  nodes: DeviceNodeRef[];
}

/** Per schedulable thing: its CDI names (index first, then UUID) and its device files. */
function namedNodes(inventory: DeviceInventory, vendor: GpuVendor): NamedNodes[] {
  const out: NamedNodes[] = [];
  for (const gpu of inventory.gpus.filter((g) => g.vendor === vendor)) {
    out.push({ names: [String(gpu.index), ...(gpu.uniqueId === "" ? [] : [gpu.uniqueId])], nodes: gpu.deviceNodes });
    if (gpu.partition.mode !== "mig") continue;
    for (const mig of gpu.partition.instances) {
      out.push({ names: [`${gpu.index}:${mig.index}`, ...(mig.uuid === "" ? [] : [mig.uuid])], nodes: [...gpu.deviceNodes, ...mig.deviceNodes] });
    }
  }
  return out;
}

/** One spec for a vendor's GPUs; the result always passes validateCdiSpec. */
export function buildCdiSpec(inventory: DeviceInventory, vendor: GpuVendor): Result<CdiSpec> {
  const items = namedNodes(inventory, vendor);
  if (items.length === 0) return err("NoGpus", `no ${vendor} GPUs to describe`);
  const devices: CdiDevice[] = [];
  for (const item of items) {
    for (const name of item.names) devices.push({ name, containerEdits: { deviceNodes: uniqueNodes(item.nodes) } });
  }
  devices.push({ name: "all", containerEdits: { deviceNodes: uniqueNodes(items.flatMap((i) => i.nodes)) } });
  const spec: CdiSpec = { cdiVersion: "", kind: CDI_KINDS[vendor], devices };
  const shared = inventory.sharedDeviceNodes[vendor];
  if (shared.length > 0) spec.containerEdits = { deviceNodes: uniqueNodes(shared) };
  spec.cdiVersion = minimumCdiVersion(spec as unknown as Record<string, unknown>);
  const problems = validateCdiSpec(spec);
  if (problems.length > 0) return err("BadCdiSpec", `CDI spec for ${vendor}: ${problems.join("; ")}`);
  assert(spec.devices.some((d) => d.name === "all"), "the spec names an all device");
  return ok(spec);
}

/** The spec as JSON text (two-space indent, trailing newline), as written to /etc/cdi or /var/run/cdi. */
export function renderCdiJson(spec: CdiSpec): string {
  return `${JSON.stringify(spec, null, 2)}\n`;
}

/** Fully qualified CDI names for a job's GPUs: cdiDeviceNames("amd", [0, 1]) → ["amd.com/gpu=0", "amd.com/gpu=1"]. */
export function cdiDeviceNames(vendor: GpuVendor, devices: readonly (number | string)[]): string[] {
  return devices.map((d) => `${CDI_KINDS[vendor]}=${String(d)}`);
}

/** Conventional file name for a vendor's generated spec: "spur-amd.com-gpu.json". */
export function cdiSpecFileName(vendor: GpuVendor, format: "json" | "yaml"): string {
  return `spur-${CDI_KINDS[vendor].replace("/", "-")}.${format}`;
}
