/**
 * @module agent/cgroup/gres-files
 * Which device file is GPU index i on this node, from a Slurm-style gres.conf
 * beside spur.conf (`[NodeName=n[1-2]] Name=gpu [Type=mi300x] File=/dev/nvidia[0-7]`):
 * the files of the matching lines, in order, are GPU 0, 1, ... The device
 * cgroup denies a job every GPU file of its node it was not given (Slurm's
 * ConstrainDevices). Parsing is pure; `deviceRules` stats the files.
 */
import { statSync } from "node:fs";
import { expandHostlist } from "../../compat/hostlist.ts";
import type { DeviceRule } from "./plan.ts";

/** The GPU device files of `node`, GPU index order. Lines for other nodes are skipped. */
export function gpuFilesFromGresConf(text: string, node: string): string[] {
  const files: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*$/, "").trim();
    if (line === "") continue;
    const kv = new Map<string, string>();
    for (const m of line.matchAll(/(\w+)=(\S+)/g)) kv.set((m[1] ?? "").toLowerCase(), m[2] ?? "");
    if ((kv.get("name") ?? "").toLowerCase() !== "gpu") continue;
    const nodes = kv.get("nodename");
    if (nodes !== undefined) {
      const list = expandHostlist(nodes);
      if (!list.ok || !list.value.includes(node)) continue;
    }
    const file = kv.get("file");
    if (file === undefined) continue;
    const expanded = expandHostlist(file);
    files.push(...(expanded.ok ? expanded.value : [file]));
  }
  return files;
}

/** Linux dev_t → major, minor (glibc's encoding). */
export function splitDev(rdev: number): { major: number; minor: number } {
  const hi = Math.floor(rdev / 2 ** 32);
  const lo = rdev % 2 ** 32;
  return { major: ((lo >>> 8) & 0xfff) | ((hi & ~0xfff) >>> 0), minor: (lo & 0xff) | ((lo >>> 12) & ~0xff) };
}

/** Device files → cgroup rules (undefined for a file that is missing or not a device). */
export function deviceRules(files: readonly string[]): (DeviceRule | undefined)[] {
  return files.map((file) => {
    try {
      const st = statSync(file);
      if (!st.isCharacterDevice() && !st.isBlockDevice()) return undefined;
      return { kind: st.isCharacterDevice() ? "c" : "b", ...splitDev(st.rdev) };
    } catch {
      return undefined;
    }
  });
}
