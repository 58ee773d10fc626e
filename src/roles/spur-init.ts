/**
 * @module roles/spur-init
 * `spur init`: bootstrap the configuration of a replicated controller quorum, offline.
 * Writes spur.conf (ClusterName, SpurControllers with Raft ids, client and Raft ports,
 * SpurClusterSecretFile, state and spool folders) and a random shared secret readable by
 * root only, then prints the command that starts each replica. Node and partition lines
 * are the site's to add (or to take from `spur import-slurm`).
 * With --tls [--tls-hosts H1,H2,...] it also makes the cluster's CA and a certificate per
 * host (controllers, plus the named nodes) in DIR/tls and turns TLS on in spur.conf (net/tls.ts).
 * Failure policy: never overwrites an existing configuration or secret without --force.
 */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { membershipFile } from "./conf-file.ts";
import { DAEMON_ELECTION_TICKS } from "../raft/driver/api.ts";
import { dirname, resolve } from "node:path";
import { clusterTlsConfLines, issueClusterCerts } from "../ops/tls-cert.ts";

export interface InitOptions {
  clusterName: string;
  /** Controller hosts, in Raft id order (id = position + 1). */
  hosts: string[];
  port: number;
  raftPort: number;
  confPath: string;
  secretPath: string;
  stateDir: string;
  spoolDir: string;
  /** spur.conf lines that turn TLS on (empty: plaintext). */
  tlsLines?: string[];
}

export interface InitPlan {
  conf: string;
  commands: string[];
}

/** The configuration text and start commands (pure: no files, no randomness). */
export function planInit(o: InitOptions): InitPlan {
  // On one host every replica needs its own ports; on separate hosts they share them.
  const sameHost = new Set(o.hosts).size < o.hosts.length;
  const peers = o.hosts.map((h, i) => {
    const step = sameHost ? i * 10 : 0;
    return `${i + 1}@${h}:${o.port + step}:${o.raftPort + step}`;
  });
  const conf = [
    `# Written by \`spur init\`: ${o.hosts.length} replicated controllers (Raft). Every controller, node`,
    "# and client reads this same file. Add NodeName= and PartitionName= lines for your nodes.",
    `ClusterName=${o.clusterName}`,
    `SpurControllers=${peers.join(",")}`,
    `SpurClusterSecretFile=${o.secretPath}`,
    `ControlAddr=${o.hosts[0]}`,
    `ControlPort=${o.port}`,
    `StateSaveLocation=${o.stateDir}`,
    `SlurmdSpoolDir=${o.spoolDir}`,
    // separate hosts identify users by credentials their local spurd (login hosts: `spur authd`) vouches for
    ...(sameHost ? ["AuthType=auth/loopback"] : [
      "AuthType=auth/spur",
      "# SpurAuthSocket=/run/spur/auth.sock (the default): where spurd and `spur authd` vouch for local users.",
      "# Login hosts that run no spurd: list them here and run `spur authd` there (docs/multihost.md).",
      "#SpurLoginHosts=login[1-2]",
    ]),
    `# Raft timing: a tick of 50 ms; followers campaign after ${DAEMON_ELECTION_TICKS}-${2 * DAEMON_ELECTION_TICKS} silent ticks (${DAEMON_ELECTION_TICKS * 50}-${2 * DAEMON_ELECTION_TICKS * 50} ms).`,
    "SpurRaftTickMs=50",
    `SpurRaftElectionTicks=${DAEMON_ELECTION_TICKS}`,
    ...(o.tlsLines ?? []),
    "",
  ].join("\n");
  const commands = o.hosts.map((h, i) => `on ${h}: spurctld --id ${i + 1} --conf ${o.confPath}`);
  return { conf, commands };
}

/** `spur init`'s flags, as given (admin/init.ts declares them, with their defaults). */
export interface InitFlags {
  /** Controller hosts, comma-separated, in Raft id order. */
  controllers: string;
  port: string;
  /** Default: port + 1. */
  raftPort?: string | undefined;
  conf: string;
  name: string;
  /** Default: cluster-secret beside the configuration. */
  secretFile?: string | undefined;
  stateDir: string;
  spoolDir: string;
  tls?: boolean | undefined;
  tlsHosts?: string | undefined;
  force?: boolean | undefined;
}

export function initOptions(f: InitFlags): InitOptions {
  const hosts = f.controllers.split(",").map((h) => h.trim()).filter(Boolean);
  if (hosts.length < 1 || hosts.length % 2 === 0) throw new Error(`spur: error: --controllers takes an odd number of hosts (3 or 5), got ${hosts.length}`);
  const port = Number(f.port);
  const raftPort = Number(f.raftPort ?? String(port + 1));
  if (!Number.isInteger(port) || !Number.isInteger(raftPort) || port <= 0 || raftPort <= 0) throw new Error("spur: error: --port and --raft-port take port numbers");
  const confPath = resolve(f.conf);
  return {
    clusterName: f.name,
    hosts,
    port,
    raftPort,
    confPath,
    secretPath: resolve(f.secretFile ?? `${dirname(confPath)}/cluster-secret`),
    stateDir: f.stateDir,
    spoolDir: f.spoolDir,
  };
}

export function initMain(flags: InitFlags): number {
  const o = initOptions(flags);
  const force = flags.force === true;
  for (const path of [o.confPath, o.secretPath]) {
    if (existsSync(path) && !force) {
      process.stderr.write(`spur: error: ${path} exists (use --force to replace it; a new secret locks out running replicas)\n`);
      return 1;
    }
  }
  mkdirSync(dirname(o.confPath), { recursive: true });
  if (flags.tls === true) {
    const tlsDir = `${dirname(o.confPath)}/tls`;
    const extra = (flags.tlsHosts ?? "").split(",").map((h) => h.trim()).filter(Boolean);
    const err = issueClusterCerts(tlsDir, [...new Set([...o.hosts, ...extra])], "825");
    if (err !== undefined) {
      process.stderr.write(`spur: error: ${err}\n`);
      return 1;
    }
    o.tlsLines = ["# TLS on every listener: copy tls/ca.crt and each host's tls/HOST.crt, tls/HOST.key to it.", ...clusterTlsConfLines(tlsDir)];
  }
  const plan = planInit(o);
  mkdirSync(dirname(o.secretPath), { recursive: true });
  writeFileSync(o.secretPath, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
  writeFileSync(o.confPath, plan.conf, { mode: 0o644 });
  // A membership file left by an earlier cluster would override the new SpurControllers=.
  rmSync(membershipFile(o.confPath), { force: true });
  process.stdout.write(
    [
      `wrote ${o.confPath} and ${o.secretPath} (${o.hosts.length} controllers)`,
      `copy both files to every controller and node (the secret stays readable by root only), then start each replica:`,
      ...plan.commands.map((c) => `  ${c}`),
      "then on each node: spurd -N NODENAME --conf " + o.confPath,
      "check with: scontrol ping",
      "to add a controller later: start it with spurctld --id ID --join, then spur controller add ID HOST:PORT:RAFTPORT (docs/ha.md)",
      "",
    ].join("\n"),
  );
  return 0;
}
