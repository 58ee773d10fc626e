/**
 * @module roles/local-cluster
 * `spur up` / `spur down`: a whole cluster on this host from embedded defaults —
 * one spurctld and N spurd (n1..nN, one port each, like Slurm's multiple-slurmd),
 * all state under one directory. Daemons are tracked by PID files, never by name.
 */
import { SPUR_UP_CGROUP_CONF } from "../agent/cgroup/cgroup-conf.ts";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { hostname } from "node:os";
import { selfExec } from "./self-exec.ts";
import { startDaemonIn } from "./netns-daemon.ts";
import { controllerPort } from "./cli/port.ts";
import { listJobIds, jobDir, readPid, isAlive, processMatches } from "../agent/spool.ts";
import { localGresConf, localTopologyConf } from "./local-topology.ts";
import { controllerUrls, readConf } from "./conf-file.ts";
import { configureClientTls, fetchTls } from "../net/tls.ts";

export interface UpOptions {
  stateDir: string;
  nodes: number;
  cpusPerNode: number;
  /** Sockets per node (CPUs split evenly; GPUs too, with Cores= in gres.conf); default 1. */
  socketsPerNode?: number;
  /** Threads per core (SMT); CPUs per node must divide into sockets x cores x threads. */
  threadsPerCore?: number;
  memPerNodeMiB: number;
  gpusPerNode: number;
  gpuModel: string;
  /** Declared GPU links for gres.conf (gpu-topology.ts declaredLinks): "xgmi" (fully connected), "pairs", "hives:N", "pcie". */
  gpuTopology?: string;
  /** Nodes per leaf switch in topology.conf; 0 = no topology.conf. */
  nodesPerSwitch?: number;
  /** A sysfs snapshot every spurd discovers its GPUs from (gres.conf AutoDetect=spur) instead of declared ones. */
  devicesRoot?: string;
  controllerPort?: number;
  slurmdTimeoutSec: number;
  /** Replicated controllers (Raft): 1 = a single spurctld as before; 3 or 5 for HA. */
  controllers?: number;
  /** TLS on every listener, with a CA and host certificate made in STATE/tls (spur up --tls). */
  tls?: boolean;
}

/** The low end of the kernel's ephemeral range (ports it hands to outgoing connections). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 0 ? low : 32768;
  } catch {
    return 32768;
  }
}

/** Resolves to the port once a probe socket could listen on it on loopback, to 0 if it could not. */
function probe(port: number): Promise<number> {
  return new Promise((res) => {
    const srv = createServer();
    srv.once("error", () => res(0));
    srv.listen(port, "127.0.0.1", () => {
      const addr = srv.address();
      const got = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => res(got));
    });
  });
}

/** Lowest port freePort draws from: above the well-known services a host may run. */
const DRAWN_PORT_LOW = 10000;

/**
 * A TCP port free on loopback right now, drawn below the ephemeral range: a port the OS
 * picked for a probe (port 0) is an ephemeral one, which any outgoing connection on the
 * host may take between the probe and the daemon's bind (seen under parallel e2e load as a
 * node that never registered). Falls back to the OS's pick where that range is too narrow.
 */
export async function freePort(): Promise<number> {
  const span = ephemeralLow() - DRAWN_PORT_LOW;
  if (span >= 1000) {
    for (let tries = 0; tries < 100; tries++) {
      const port = await probe(DRAWN_PORT_LOW + Math.floor(Math.random() * span));
      if (port !== 0) return port;
    }
  }
  const port = await probe(0);
  if (port === 0) throw new Error("spur: error: no free TCP port on 127.0.0.1");
  return port;
}

/** Distinct free ports: the OS may hand back a port it just gave (each probe socket is closed). */
function distinctPorts(): () => Promise<number> {
  const taken = new Set<number>();
  return async () => {
    for (let tries = 0; tries < 50; tries++) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
    throw new Error("spur: error: could not find distinct free ports");
  };
}

export async function writeLocalConf(o: UpOptions): Promise<string> {
  const dir = resolve(o.stateDir);
  const nextPort = distinctPorts();
  const ctlPort = o.controllerPort ?? (await nextPort());
  const lines = [
    "# Written by `spur up`: a local cluster on this host (slurm.conf syntax).",
    "ClusterName=spur",
    "ControlAddr=127.0.0.1",
    `ControlPort=${ctlPort}`,
    `MetricsPort=${await freePort()}`,
    "AuthType=auth/loopback",
    `StateSaveLocation=${join(dir, "ctld")}`,
    `SlurmdSpoolDir=${join(dir, "spool")}`,
    "DefMemPerCPU=256",
    "MinJobAge=300",
    "KillWait=30",
    `SlurmdTimeout=${o.slurmdTimeoutSec}`,
    `RestPort=${await nextPort()}`,
  ];
  if ((o.controllers ?? 1) > 1) {
    const peers = [`1@127.0.0.1:${ctlPort}:${await freePort()}`];
    for (let id = 2; id <= (o.controllers ?? 1); id++) peers.push(`${id}@127.0.0.1:${await freePort()}:${await freePort()}`);
    const secretFile = join(dir, "cluster-secret");
    mkdirSync(dir, { recursive: true });
    writeFileSync(secretFile, `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    lines.push(`SpurControllers=${peers.join(",")}`, `SpurClusterSecretFile=${secretFile}`);
  }
  if (o.tls === true) {
    const { issueClusterCerts, clusterTlsConfLines } = await import("../ops/tls-cert.ts");
    const tlsDir = join(dir, "tls");
    const err = issueClusterCerts(tlsDir, [hostname()], "825");
    if (err !== undefined) throw new Error(`spur: error: ${err}`);
    lines.push(...clusterTlsConfLines(tlsDir));
  }
  const names: string[] = [];
  const sockets = o.socketsPerNode !== undefined && o.socketsPerNode > 1 && o.cpusPerNode % o.socketsPerNode === 0 ? o.socketsPerNode : 1;
  const threads = o.threadsPerCore !== undefined && o.threadsPerCore > 1 && o.cpusPerNode % (sockets * o.threadsPerCore) === 0 ? o.threadsPerCore : 1;
  for (let i = 1; i <= o.nodes; i++) {
    const port = await nextPort();
    const gres = o.gpusPerNode > 0 ? ` Gres=gpu:${o.gpuModel ? `${o.gpuModel}:` : ""}${o.gpusPerNode}` : "";
    lines.push(
      `NodeName=n${i} NodeAddr=127.0.0.1 Port=${port} CPUs=${o.cpusPerNode} Sockets=${sockets} CoresPerSocket=${o.cpusPerNode / sockets / threads} ThreadsPerCore=${threads} RealMemory=${o.memPerNodeMiB}${gres}`,
    );
    names.push(`n${i}`);
  }
  const all = o.nodes === 1 ? "n1" : `n[1-${o.nodes}]`;
  lines.push(`PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`);
  if (o.gpusPerNode > 0) lines.push(`PartitionName=gpu Nodes=${all} Default=NO MaxTime=INFINITE State=UP`);
  const path = join(dir, "spur.conf");
  // A gres.conf already in the state directory is the admin's (real device files): keep it.
  const gresPath = join(dir, "gres.conf");
  if (existsSync(gresPath)) { /* kept */ }
  else if (o.devicesRoot !== undefined) writeFileSync(gresPath, "# Written by `spur up --devices-root`: GPUs come from discovery.\nAutoDetect=spur\n");
  else if (o.gpusPerNode > 0) writeFileSync(gresPath, localGresConf(names, o.gpusPerNode, o.gpuModel, o.gpuTopology ?? "xgmi", sockets, o.cpusPerNode / threads));
  if ((o.nodesPerSwitch ?? 0) > 0) writeFileSync(join(dir, "topology.conf"), localTopologyConf(o.nodes, o.nodesPerSwitch ?? 0));
  // Slurm constrains nothing without cgroup.conf; the local cluster's jobs get exactly what they asked for (an admin's file is kept).
  if (!existsSync(join(dir, "cgroup.conf"))) writeFileSync(join(dir, "cgroup.conf"), SPUR_UP_CGROUP_CONF);
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function startDaemon(dir: string, name: string, args: string[]): number {
  const [cmd, ...pre] = selfExec();
  return startDaemonIn(dir, name, [cmd ?? process.execPath, ...pre, ...args]);
}

function confNodeNames(conf: string): string[] {
  return [...readFileSync(conf, "utf8").matchAll(/^NodeName=(\S+)/gm)].map((m) => m[1] ?? "");
}

/** Raft ids of the replicated controllers in `conf` (empty: one plain spurctld). */
export function confControllerIds(conf: string): number[] {
  const line = /^SpurControllers=(\S+)/m.exec(readFileSync(conf, "utf8"))?.[1] ?? "";
  return line === "" ? [] : line.split(",").map((p) => Number(p.split("@")[0]));
}

function ctlUrls(conf: string): string[] {
  return controllerUrls(readConf(conf));
}

function ctlUrl(conf: string): string {
  return ctlUrls(conf)[0] ?? "http://127.0.0.1:6817";
}

export function daemonPids(dir: string): { name: string; pid: number }[] {
  const pidDir = join(dir, "pids");
  if (!existsSync(pidDir)) return [];
  const out: { name: string; pid: number }[] = [];
  for (const file of readdirSync(pidDir)) {
    const pid = Number(readFileSync(join(pidDir, file), "utf8").trim());
    if (pid > 0) out.push({ name: file.replace(/\.pid$/, ""), pid });
  }
  return out;
}

/** Throws when daemons of a cluster in `dir` are alive (their PID files name live processes of ours). */
export function assertNotRunning(dir: string): void {
  if (daemonPids(dir).some((d) => processMatches(d.pid, [d.name.replace(/-.*$/, ""), dir]))) throw new Error(`a cluster is already running in ${dir} (spur down --state-dir ${dir})`);
}

/** spurrestd's URL from spur.conf's RestPort (undefined for a conf written before spurrestd existed). */
export function restUrl(conf: string): string | undefined {
  const text = readFileSync(conf, "utf8");
  const port = /^RestPort=(\d+)/m.exec(text)?.[1];
  const scheme = /^RestTlsCert=\S/m.test(text) ? "https" : "http";
  return port === undefined ? undefined : `${scheme}://127.0.0.1:${port}`;
}

/** True once spurrestd answers; false (not fatal: the cluster works without it) after `deadline`. */
async function waitRest(url: string, deadline: number): Promise<boolean> {
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/openapi/v3`, fetchTls(url))).ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}

/** How many times a new cluster is started on freshly drawn ports when one was taken meanwhile. */
const UP_ATTEMPTS = 3;

/**
 * Whether `up` may start again on new ports: a port drawn for a new cluster (freePort) can be
 * taken by another process between the probe and the daemon's bind (seen under parallel e2e
 * load: "Failed to start server. Is port N in use?"). Only for a spur.conf this call wrote with
 * ports it drew itself; a restart keeps its ports, and a port the caller named is theirs.
 */
export function portRaceRetry(error: unknown, o: { wroteConf: boolean; fixedPort: boolean; attempt: number }): boolean {
  return o.wroteConf && !o.fixedPort && o.attempt < UP_ATTEMPTS && /in use|EADDRINUSE/i.test(String(error));
}

/** Start (or restart, keeping state) the local cluster; resolves once every node has registered. */
export async function up(o: UpOptions): Promise<{ conf: string; url: string; restUrl?: string }> {
  for (let attempt = 1; ; attempt++) {
    const wroteConf = !existsSync(join(resolve(o.stateDir), "spur.conf"));
    try {
      return await upOnce(o);
    } catch (error) {
      if (!portRaceRetry(error, { wroteConf, fixedPort: o.controllerPort !== undefined, attempt })) throw error;
      // a cluster that never came up: its conf and the controllers' empty state go, the rest (secret, spool) stays
      rmSync(join(resolve(o.stateDir), "spur.conf"), { force: true });
      rmSync(join(resolve(o.stateDir), "ctld"), { recursive: true, force: true });
      process.stderr.write(`spur: a drawn port was taken meanwhile; starting again on new ports (${String(error).split("\n")[0]})\n`);
    }
  }
}

async function upOnce(o: UpOptions): Promise<{ conf: string; url: string; restUrl?: string }> {
  const dir = resolve(o.stateDir);
  mkdirSync(dir, { recursive: true });
  assertNotRunning(dir);
  const conf = existsSync(join(dir, "spur.conf")) ? join(dir, "spur.conf") : await writeLocalConf(o);
  configureClientTls(readConf(conf).globals);
  const ids = confControllerIds(conf);
  const started: { name: string; pid: number }[] = [];
  const launch = (name: string, args: string[]): void => void started.push({ name, pid: startDaemon(dir, name, args) });
  if (ids.length === 0) launch("spurctld", ["spurctld", "--conf", conf]);
  for (const id of ids) launch(`spurctld-${id}`, ["spurctld", "--id", String(id), "--conf", conf]);
  const discovery = o.devicesRoot !== undefined ? ["--devices-root", resolve(o.devicesRoot)] : [];
  for (const name of confNodeNames(conf)) launch(`spurd-${name}`, ["spurd", "-N", name, "--conf", conf, ...discovery]);
  const rest = restUrl(conf);
  if (rest !== undefined) launch("spurrestd", ["spurrestd", "--conf", conf]);
  const url = ctlUrl(conf);
  try {
    return await waitUp(dir, conf, started, url, rest);
  } catch (error) {
    // Leave nothing half-started behind: the caller gets the error and a state dir it can `up` again.
    await down(dir);
    throw error;
  }
}

/** Resolves once every node has registered (and spurrestd answers); throws when a daemon died or time ran out. */
async function waitUp(dir: string, conf: string, started: { name: string; pid: number }[], url: string, rest: string | undefined): Promise<{ conf: string; url: string; restUrl?: string }> {
  const ctl = controllerPort(ctlUrls(conf));
  const deadline = Date.now() + UP_WAIT_MS;
  // A daemon that cannot bind its port exits at once; say so now rather than after the wait
  // (and not "up" on a restart, where the nodes' states come back from the saved state).
  const deadDaemon = (): string | undefined => {
    const dead = started.find((d) => !running(d.pid));
    return dead === undefined ? undefined : `${dead.name} exited while the cluster was starting: ${logTail(dir, dead.name)}`;
  };
  while (Date.now() < deadline) {
    let ready = false;
    try {
      const { nodes } = await ctl.listNodes();
      ready = nodes.length > 0 && nodes.every((n) => n.state !== "UNKNOWN");
    } catch {
      /* not up yet */
    }
    if (ready) await new Promise((r) => setTimeout(r, 200));
    const dead = deadDaemon();
    if (dead !== undefined) throw new Error(dead);
    if (ready) {
      if (rest === undefined) return { conf, url };
      if (await waitRest(rest, Math.max(deadline, Date.now() + 5000))) return { conf, url, restUrl: rest };
      process.stderr.write(`spur: warning: spurrestd did not answer at ${rest}: see ${join(dir, "log", "spurrestd.log")}\n`);
      return { conf, url };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the cluster did not come up within ${UP_WAIT_MS / 1000} s: see ${join(dir, "log")}`);
}

/** How long `spur up` waits for every node to register (a loaded machine starts daemons slowly). */
const UP_WAIT_MS = 60_000;

/** The last lines of a daemon's log, for an error that must say why without another step. */
function logTail(dir: string, name: string): string {
  const path = join(dir, "log", `${name}.log`);
  try {
    const lines = readFileSync(path, "utf8").trimEnd().split("\n").slice(-5);
    return `${lines.join("\n")}\n(see ${path})`;
  } catch {
    return `see ${path}`;
  }
}

/** Alive and not a zombie: a daemon the caller started (a test worker) stays a zombie until reaped, yet it has exited. */
function running(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Stop every daemon and every job's stepd of the cluster in `dir`. */
export async function down(stateDir: string): Promise<number> {
  const dir = resolve(stateDir);
  const daemons = daemonPids(dir);
  const spool = join(dir, "spool");
  const targets: number[] = [];
  for (const d of daemons) if (processMatches(d.pid, [d.name.replace(/-.*$/, ""), dir])) targets.push(d.pid);
  if (existsSync(spool)) {
    for (const node of readdirSync(spool)) {
      for (const id of listJobIds(join(spool, node))) {
        const jobFolder = jobDir(join(spool, node), id);
        const pid = readPid(jobFolder, "stepd.pid");
        if (pid !== undefined && processMatches(pid, ["stepd", jobFolder])) targets.push(pid);
      }
    }
  }
  for (const pid of targets) {
    try {
      process.kill(pid, "SIGTERM");
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && targets.some(running)) await new Promise((r) => setTimeout(r, 50));
  for (const pid of targets.filter(running)) process.kill(pid, "SIGKILL");
  rmSync(join(dir, "pids"), { recursive: true, force: true });
  return daemons.length;
}
