/**
 * @module agent/cgroup/gres-files
 * Device-cgroup rules for GPU files: the node's GPU files (index order, from
 * gres.conf File= or discovery, see roles/node-gpus-read) become major:minor
 * rules; the device cgroup denies a job every GPU file of its node it was not
 * given (Slurm's ConstrainDevices). `deviceRules` stats the files.
 */
import { statSync } from "node:fs";
import type { DeviceRule } from "./plan.ts";

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
