/**
 * @module agent/container/cdi-edits
 * Resolves fully qualified CDI device names ("amd.com/gpu=3") against CDI specs
 * and merges their container edits (the spec-wide edits once per spec, then each
 * device's), as CDI-aware runtimes do; and builds the node's own spec from its
 * GPU device files when no spec file describes them, so that a job's devices are
 * named the same way and resolve to the same files its device cgroup allows.
 * Pure: the specs are read by the caller.
 */
import { err, ok, type Result } from "../../lib/result.ts";
import { assert } from "../../lib/assert.ts";
import type { CdiContainerEdits, CdiDeviceNode, CdiSpec } from "../../devices/cdi.ts";

/** A GPU device file of this node with its device numbers (from stat), index order. */
export interface GpuDeviceFile {
  path: string;
  kind: "c" | "b";
  major: number;
  minor: number;
}

/**
 * The CDI kind of a node's GPU files, from their names (the vendor is not otherwise known to
 * spurd for gres.conf File= devices): NVIDIA's /dev/nvidiaN, AMD's /dev/dri nodes, else Spur's.
 */
export function kindOfFiles(paths: readonly string[]): string {
  if (paths.length > 0 && paths.every((p) => /^\/dev\/nvidia\d+$/.test(p))) return "nvidia.com/gpu";
  if (paths.length > 0 && paths.every((p) => /^\/dev\/dri\/(card|renderD)\d+$/.test(p))) return "amd.com/gpu";
  return "spur.local/gpu";
}

/** A spec naming each GPU file by its index on this node ("0", "1", ...) and "all". */
export function specFromFiles(kind: string, files: readonly (GpuDeviceFile | undefined)[]): CdiSpec {
  const node = (f: GpuDeviceFile): CdiDeviceNode => ({ path: f.path, type: f.kind, major: f.major, minor: f.minor, permissions: "rw" });
  const devices = files.flatMap((f, index) => (f === undefined ? [] : [{ name: String(index), containerEdits: { deviceNodes: [node(f)] } }]));
  const all = files.filter((f): f is GpuDeviceFile => f !== undefined).map(node);
  return { cdiVersion: "0.5.0", kind, devices: [...devices, { name: "all", containerEdits: { deviceNodes: all } }] };
}

/** "vendor.com/class=name" → its kind and name, or undefined when malformed. */
export function splitCdiName(qualified: string): { kind: string; name: string } | undefined {
  const m = /^([A-Za-z0-9][A-Za-z0-9.-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*)=([A-Za-z0-9][A-Za-z0-9_.:-]*)$/.exec(qualified);
  return m === null ? undefined : { kind: m[1] as string, name: m[2] as string };
}

function append(into: CdiContainerEdits, from: CdiContainerEdits | undefined): void {
  if (from === undefined) return;
  if (from.env) into.env = [...(into.env ?? []), ...from.env];
  if (from.deviceNodes) {
    const have = new Set((into.deviceNodes ?? []).map((d) => d.path));
    into.deviceNodes = [...(into.deviceNodes ?? []), ...from.deviceNodes.filter((d) => !have.has(d.path))];
  }
  if (from.mounts) into.mounts = [...(into.mounts ?? []), ...from.mounts];
  if (from.hooks) into.hooks = [...(into.hooks ?? []), ...from.hooks];
  if (from.additionalGids) into.additionalGids = [...new Set([...(into.additionalGids ?? []), ...from.additionalGids])];
}

/**
 * The merged edits of `names` (fully qualified), looked up in `specs` (earlier specs win for a
 * kind, as a spec directory listed first does). Unknown names are an error, as in CDI.
 */
export function resolveCdiNames(specs: readonly CdiSpec[], names: readonly string[]): Result<CdiContainerEdits> {
  const edits: CdiContainerEdits = {};
  const specsUsed = new Set<CdiSpec>();
  const unresolved: string[] = [];
  for (const qualified of names) {
    const parts = splitCdiName(qualified);
    const spec = parts === undefined ? undefined : specs.find((s) => s.kind === parts.kind && s.devices.some((d) => d.name === parts.name));
    const device = spec?.devices.find((d) => d.name === parts?.name);
    if (spec === undefined || device === undefined) {
      unresolved.push(qualified);
      continue;
    }
    if (!specsUsed.has(spec)) {
      specsUsed.add(spec);
      append(edits, spec.containerEdits);
    }
    append(edits, device.containerEdits);
  }
  if (unresolved.length > 0) return err("UnresolvableCdiDevices", `unresolvable CDI devices ${unresolved.join(", ")}`);
  assert(names.length === 0 || specsUsed.size > 0, "resolved names come from some spec");
  return ok(edits);
}
