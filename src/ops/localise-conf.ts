/**
 * @module ops/localise-conf
 * `spur up --slurm-conf DIR`: the spur.conf that `spur import-slurm` wrote from a site's
 * files, made runnable as a test partition on THIS host beside the site's own Slurm:
 * every daemon on loopback, state and spool under the `spur up` state directory, and
 * (unless the site's ports are asked for) free ports instead of the site's, so that a
 * running slurmctld/slurmd is never in the way. Nodes, partitions, GRES, weights and
 * every other imported setting are left exactly as imported. Pure: ports come in.
 */

export interface LocaliseInput {
  /** spur.conf text as importSlurm() writes it (one node per NodeName line). */
  spurConf: string;
  stateDir: string;
  /** Port for spurctld; undefined keeps ControlPort from the site. */
  controlPort?: number;
  /** Port for the controller's metrics endpoint (MetricsPort=); undefined leaves it as imported. */
  metricsPort?: number;
  /** Port per node name; a node not in the map keeps its site port. */
  nodePorts?: ReadonlyMap<string, number>;
}

export interface LocaliseResult {
  spurConf: string;
  /** One line per change, for the operator ("ControlPort 6817 -> 40123"). */
  changes: string[];
}

const LOOPBACK = "127.0.0.1";

/** Replace `Key=value` (case-insensitive key, unquoted value) in one line, or append it. */
function setKey(line: string, key: string, value: string, changes: string[], what: string): string {
  const re = new RegExp(`(^|\\s)${key}=(\\S*)`, "i");
  const m = re.exec(line);
  if (m === null) {
    changes.push(`${what}: ${key}=${value} (added)`);
    return `${line} ${key}=${value}`;
  }
  if (m[2] === value) return line;
  changes.push(`${what}: ${key} ${m[2]} -> ${value}`);
  return line.replace(re, `$1${key}=${value}`);
}

/** Globals written once: replaced where they are, added after ClusterName when missing. */
function setGlobal(lines: string[], key: string, value: string, changes: string[]): void {
  const i = lines.findIndex((l) => new RegExp(`^${key}=`, "i").test(l));
  if (i >= 0) {
    lines[i] = setKey(lines[i] ?? "", key, value, changes, "global");
    return;
  }
  const after = lines.findIndex((l) => /^ClusterName=/i.test(l));
  lines.splice(after + 1, 0, `${key}=${value}`);
  changes.push(`global: ${key}=${value} (added)`);
}

/** The site's spur.conf → one that `spur up` runs on this host (see the module comment). */
export function localiseConf(input: LocaliseInput): LocaliseResult {
  const changes: string[] = [];
  const lines = input.spurConf.split("\n");
  const dir = input.stateDir.replace(/\/+$/, "");
  setGlobal(lines, "ControlAddr", LOOPBACK, changes);
  if (input.controlPort !== undefined) setGlobal(lines, "ControlPort", String(input.controlPort), changes);
  if (input.metricsPort !== undefined) setGlobal(lines, "MetricsPort", String(input.metricsPort), changes);
  setGlobal(lines, "StateSaveLocation", `${dir}/ctld`, changes);
  setGlobal(lines, "SlurmdSpoolDir", `${dir}/spool`, changes);
  for (let i = 0; i < lines.length; i++) {
    const m = /^NodeName=(\S+)/i.exec(lines[i] ?? "");
    if (m === null) continue;
    const name = m[1] ?? "";
    let line = setKey(lines[i] ?? "", "NodeAddr", LOOPBACK, changes, name);
    const port = input.nodePorts?.get(name);
    if (port !== undefined) line = setKey(line, "Port", String(port), changes, name);
    lines[i] = line;
  }
  return { spurConf: lines.join("\n"), changes };
}

/** Node names of the one-node-per-line spur.conf import writes. */
export function nodeNamesOf(spurConf: string): string[] {
  return [...spurConf.matchAll(/^NodeName=(\S+)/gim)].map((m) => m[1] ?? "");
}
