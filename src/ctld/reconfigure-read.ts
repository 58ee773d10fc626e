/**
 * @module ctld/reconfigure-read
 * What `scontrol reconfigure` replicates: the leader reads spur.conf (and topology.conf
 * beside it, where Slurm looks for it) once, builds the configuration the way a starting
 * controller does (sched/model/state.ts), and puts the result into the "reconfigure"
 * command, so replicas never read their own copies. A file that does not parse is an
 * error for the caller, and nothing is proposed.
 */
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseConf } from "../compat/conf/slurm-conf.ts";
import { parseTopologyConf } from "../compat/conf/topology-conf.ts";
import { createState } from "../sched/model/state.ts";
import { NODE_CONFIG_FIELDS, type ReconfigureChange } from "../sched/model/apply-reconfigure.ts";
import type { ControllerConfig } from "../sched/model/types.ts";
import { err, ok, type Result } from "../lib/result.ts";

export type ConfigReading = Omit<ReconfigureChange<ControllerConfig>, "by">;

/** The configuration texts, as read from disk (split out so that tests can give texts). */
export function readConfigFiles(confPath: string): Result<{ conf: string; topology?: string }> {
  let conf: string;
  try {
    conf = readFileSync(confPath, "utf8");
  } catch {
    return err("BadConfig", `cannot read configuration file ${confPath}`);
  }
  const topologyPath = join(dirname(confPath), "topology.conf");
  return ok(existsSync(topologyPath) ? { conf, topology: readFileSync(topologyPath, "utf8") } : { conf });
}

/** The command's content from the texts of spur.conf and topology.conf. */
export function configReading(texts: { conf: string; topology?: string }): Result<ConfigReading> {
  const parsed = parseConf(texts.conf);
  if (!parsed.ok) return parsed;
  if (texts.topology !== undefined) {
    const t = parseTopologyConf(texts.topology);
    if (!t.ok) return t;
  }
  const built = createState(parsed.value);
  if (!built.ok) return built;
  const s = built.value;
  const nodes = [...s.nodes.values()].map((n) => {
    const row: Record<string, string | number> = { name: n.info.name };
    for (const key of NODE_CONFIG_FIELDS) row[key] = n.info[key] ?? "";
    return row as ConfigReading["nodes"][number];
  });
  return ok({
    config: s.config, nodes, partitions: s.partitions, licenses: [...(s.licenses ?? new Map<string, number>())], globals: [...parsed.value.globals],
    ...(texts.topology === undefined ? {} : { topology: texts.topology }),
  });
}
