/**
 * @module roles/conf-file
 * Finds and reads spur.conf: --conf, then $SPUR_CONF, then $SLURM_CONF, then
 * /etc/spur/spur.conf. Also how a client finds the controller's address.
 */
import { readFileSync } from "node:fs";
import { parseConf, type ParsedConf } from "../compat/conf/slurm-conf.ts";
import { setClientTlsLoader } from "../net/tls.ts";
import { confPath, controllerUrlsOf, membershipFile, parseMembershipText, type ControllerPeer } from "./conf-urls.ts";

export * from "./conf-urls.ts";

export function readConf(path: string): ParsedConf {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(`cannot read configuration file ${path} (set SPUR_CONF or pass --conf)`);
  }
  const parsed = parseConf(text);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

/** ClusterName from the configuration ("spur" when unset or unreadable), as the controller has it. */
export function clusterNameOf(path: string): string {
  try {
    return readConf(path).globals.get("clustername") ?? "spur";
  } catch {
    return "spur";
  }
}

// A client that never configured TLS itself (a CLI) learns it from spur.conf on first use.
setClientTlsLoader(() => {
  try {
    return readConf(confPath()).globals;
  } catch {
    return undefined;
  }
});

/**
 * Every controller a client may try, in order (one for a single controller). With
 * `confFile`, the membership file beside it replaces spur.conf's SpurControllers= list.
 */
export function controllerUrls(conf: ParsedConf, confFile?: string): string[] {
  let text: string | undefined;
  try {
    text = confFile === undefined ? undefined : readFileSync(membershipFile(confFile), "utf8");
  } catch {
    text = undefined;
  }
  return controllerUrlsOf(conf, text);
}


/** The membership file's controllers and the Raft index they are as of (none: empty, index 0). */
export function readMembershipFile(confFile: string): { peers: ControllerPeer[]; index: number } {
  try {
    return parseMembershipText(readFileSync(membershipFile(confFile), "utf8"));
  } catch {
    return { peers: [], index: 0 };
  }
}

/** The cluster secret when spur.conf names one (SpurClusterSecretFile=), else undefined. */
export function optionalClusterSecret(conf: ParsedConf, confFile: string): string | undefined {
  return conf.globals.get("spurclustersecretfile") === undefined ? undefined : clusterSecret(conf, confFile);
}

/** The secret controllers share (SpurClusterSecretFile=, a file only root/SlurmUser reads). */
export function clusterSecret(conf: ParsedConf, confFile: string): string {
  const file = conf.globals.get("spurclustersecretfile");
  if (file === undefined) throw new Error(`${confFile}: replicated controllers (SpurControllers=, or several SlurmctldHost= lines) need SpurClusterSecretFile= (see spur init)`);
  try {
    return readFileSync(file, "utf8").trim();
  } catch {
    throw new Error(`cannot read the cluster secret ${file}`);
  }
}
