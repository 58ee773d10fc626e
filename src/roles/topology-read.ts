/**
 * @module roles/topology-read
 * Reads topology.conf from the directory of spur.conf (where Slurm looks for
 * it) for the controller. No file means a flat network; a malformed one is fatal
 * at start, as in Slurm, rather than silently placing jobs without it.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseTopologyConf, type NetworkTopology } from "../compat/conf/topology-conf.ts";

export function readTopology(confPath: string): NetworkTopology | undefined {
  const path = join(dirname(confPath), "topology.conf");
  if (!existsSync(path)) return undefined;
  const parsed = parseTopologyConf(readFileSync(path, "utf8"));
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
