/**
 * @module agent/cgroup/read-cgroup-conf
 * Reads the cgroup.conf switches (cgroup-conf.ts) for a spur.conf: cgroup.conf
 * in the same folder when there is one, then the same keys in spur.conf.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Result } from "../../lib/result.ts";
import { cgroupConfPairs, readConstraints, type CgroupConstraints } from "./cgroup-conf.ts";

export function cgroupConfPath(spurConfPath: string): string {
  return join(dirname(spurConfPath), "cgroup.conf");
}

export function loadConstraints(spurConfPath: string, globals: ReadonlyMap<string, string>): Result<CgroupConstraints> {
  const path = cgroupConfPath(spurConfPath);
  const fromFile = existsSync(path) ? cgroupConfPairs(readFileSync(path, "utf8")) : [];
  return readConstraints([...fromFile, ...globals]);
}
