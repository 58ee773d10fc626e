/**
 * @module agent/container/devices
 * The CDI edits of a job's GPUs on this node: the GPU device files (gres.conf File= or
 * discovery, the same files the device cgroup allows) are named `<kind>=<index>`; the names
 * are resolved first against CDI spec files in the node's spec directories (CDISpecDirs=,
 * default /etc/cdi and /var/run/cdi: what `spur cdi generate` or a vendor tool wrote), then
 * against a spec built from the device files themselves. Reads files; the logic is in cdi-edits.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Result } from "../../lib/result.ts";
import type { CdiContainerEdits, CdiSpec } from "../../devices/cdi.ts";
import { validateCdiSpec } from "../../devices/cdi.ts";
import { deviceRules, splitDev } from "../cgroup/gres-files.ts";
import { kindOfFiles, resolveCdiNames, specFromFiles, type GpuDeviceFile } from "./cdi-edits.ts";

export const DEFAULT_CDI_DIRS = ["/etc/cdi", "/var/run/cdi"];

/** JSON spec files of the directories (YAML specs are not read), in directory order then name order. */
export function readSpecDirs(dirs: readonly string[]): CdiSpec[] {
  const specs: CdiSpec[] = [];
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      names = readdirSync(dir).filter((n) => n.endsWith(".json")).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const spec = JSON.parse(readFileSync(join(dir, name), "utf8")) as CdiSpec;
        if (validateCdiSpec(spec).length === 0) specs.push(spec);
      } catch {
        /* unreadable or not JSON: not a spec */
      }
    }
  }
  return specs;
}

/** Device numbers of every node a CDI edit names without them (CDI lets a spec leave them to the runtime). */
function withNumbers(edits: CdiContainerEdits): CdiContainerEdits {
  const nodes = (edits.deviceNodes ?? []).map((d) => {
    if (d.major !== undefined && d.minor !== undefined) return d;
    const st = statSync(d.hostPath ?? d.path);
    return { ...d, type: d.type ?? (st.isBlockDevice() ? "b" : "c"), ...splitDev(st.rdev) };
  });
  return { ...edits, deviceNodes: nodes };
}

export interface JobDevices {
  names: string[];
  edits: Result<CdiContainerEdits>;
}

/** CDI names and merged edits for the GPU indices a job holds on this node. */
export function jobDeviceEdits(gpuFiles: readonly string[], gpuIndices: readonly number[], specDirs: readonly string[]): JobDevices {
  const rules = deviceRules(gpuFiles);
  const files: (GpuDeviceFile | undefined)[] = rules.map((r, i) => (r === undefined ? undefined : { path: gpuFiles[i] as string, ...r }));
  const kind = kindOfFiles(gpuFiles.filter((f) => f !== ""));
  const names = gpuIndices.map((i) => `${kind}=${i}`);
  const edits = resolveCdiNames([...readSpecDirs(specDirs), specFromFiles(kind, files)], names);
  if (!edits.ok) return { names, edits };
  try {
    return { names, edits: { ok: true, value: withNumbers(edits.value) } };
  } catch (error) {
    return { names, edits: { ok: false, error: { code: "CdiDeviceMissing", message: `CDI device node missing: ${(error as Error).message}` } } };
  }
}
