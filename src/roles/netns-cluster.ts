/**
 * @module roles/netns-cluster
 * `spur up --netns` / `spur down` for it: a cluster of separate hosts on one machine.
 * Each controller, node and the login host gets its own network namespace (ip netns,
 * its own eth0 on a private bridge that has no address on this machine and no route out),
 * UTS namespace (its own hostname, persisted by a bind mount under STATE/hosts/H/uts) and
 * mount namespace (its own /tmp, STATE/hosts/H/tmp; the rest of the file system shared),
 * and runs the same `spur` file there through nsenter(1). The layout and the one spur.conf
 * come from ops/netns-plan.ts; STATE/netns.json records what was made so that `spur down`
 * removes exactly that: the processes, the namespaces, the mounts and the bridge.
 * Failure policy: a step of ip(8) that fails stops `up` with its message (what was made
 * stays recorded for `down`); `down` goes on past what is already gone.
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import { hostTable, netnsConf, overlayInput, planNetns, withOverlay, type NetnsHost, type NetnsPlan } from "../ops/netns-plan.ts";
import type { UpOptions } from "./local-cluster.ts";
import { assertNotRunning, down as downDaemons } from "./local-cluster.ts";
import { selfExec } from "./self-exec.ts";
import { startDaemonIn } from "./netns-daemon.ts";
import { localGresConf } from "./local-topology.ts";

export interface NetnsUpOptions extends UpOptions {
  login: boolean;
  authType: string;
  /** "wireguard": every host's daemons on a WireGuard overlay between the hosts. */
  overlay?: string;
}

/** --overlay wireguard, first start: `spur net init` for the hosts (keys, addresses, configs in STATE/wg). */
async function planOverlay(dir: string, plan: NetnsPlan): Promise<NetnsPlan> {
  const { netInit } = await import("../ops/net-cli.ts");
  const input = join(dir, "wg-plan.json");
  writeFileSync(input, `${JSON.stringify(overlayInput(plan), null, 2)}\n`);
  const made = netInit({ plan: input, out: join(dir, "wg") });
  if (made.exitCode !== 0) throw new Error(made.stderr.trim());
  const planned = JSON.parse(readFileSync(join(dir, "wg", "plan.json"), "utf8")) as { nodes: { name: string; address: string }[] };
  return withOverlay(plan, new Map(planned.nodes.map((n) => [n.name, n.address])));
}

/** Every host's WireGuard interface up in its namespace (kernel module, else wireguard-go), before any daemon binds to it. */
async function bringUpHosts(dir: string, plan: NetnsPlan): Promise<void> {
  const { bringUpOverlay } = await import("../ops/overlay-up.ts");
  for (const h of plan.hosts) {
    if (h.wgIface === undefined) continue;
    const up = bringUpOverlay({ confPath: join(dir, "wg", `${h.name}.conf`), iface: h.wgIface, netns: h.netns });
    if (!up.ok) throw new Error(`spur: error: overlay on ${h.name}: ${up.error.message}`);
  }
}

/** --tls: a cluster CA in STATE/tls and a certificate per host naming its name and address; the spur.conf lines. */
async function netnsTls(dir: string, plan: NetnsPlan): Promise<string[]> {
  const { issueClusterCerts, clusterTlsConfLines } = await import("../ops/tls-cert.ts");
  const tlsDir = join(dir, "tls");
  const sans = Object.fromEntries(plan.hosts.map((h) => [h.name, [`IP:${h.addr}`, ...(h.overlayAddr === undefined ? [] : [`IP:${h.overlayAddr}`])]]));
  const err = issueClusterCerts(tlsDir, plan.hosts.map((h) => h.name), "825", sans);
  if (err !== undefined) throw new Error(`spur: error: ${err}`);
  return clusterTlsConfLines(tlsDir).filter((l) => !l.startsWith("Rest"));
}

const PLAN_FILE = "netns.json";
const MUNGE_RUN_DIR = "/run/munge";

function run(cmd: string, args: string[], allowFail = false): string {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0 && !allowFail) throw new Error(`spur: error: ${cmd} ${args.join(" ")}: ${(r.stderr || r.error?.message || "").trim()}`);
  return r.stdout ?? "";
}

export function readPlan(dir: string): NetnsPlan | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, PLAN_FILE), "utf8")) as NetnsPlan;
  } catch {
    return undefined;
  }
}

export const utsFile = (dir: string, host: string): string => join(dir, "hosts", host, "uts");
const mntFile = (dir: string, host: string): string => join(dir, "hosts", host, "mnt");
const netnsPath = (h: NetnsHost): string => `/run/netns/${h.netns}`;

/** nsenter's arguments that put a command on host `h` (its network and UTS namespaces). */
export function enterArgs(dir: string, h: NetnsHost): string[] {
  return [`--net=${netnsPath(h)}`, `--uts=${utsFile(dir, h.name)}`, `--mount=${mntFile(dir, h.name)}`, "--"];
}

function linkExists(name: string): boolean {
  return spawnSync("ip", ["link", "show", name], { stdio: "ignore" }).status === 0;
}

/** The bridge, and for each host its namespaces, veth and address (what exists already is kept). */
function makeHosts(dir: string, plan: NetnsPlan): void {
  if (!linkExists(plan.bridge)) run("ip", ["link", "add", plan.bridge, "type", "bridge"]);
  // no address here and no IPv6 link-local: this machine is not on the hosts' network
  try {
    writeFileSync(`/proc/sys/net/ipv6/conf/${plan.bridge}/disable_ipv6`, "1");
  } catch {
    /* no IPv6 on this machine */
  }
  run("ip", ["link", "set", plan.bridge, "up"]);
  privateHostsDir(dir);
  for (const h of plan.hosts) {
    if (!existsSync(netnsPath(h))) run("ip", ["netns", "add", h.netns]);
    if (!linkExists(h.veth)) run("ip", ["link", "add", h.veth, "type", "veth", "peer", "name", "eth0", "netns", h.netns]);
    run("ip", ["link", "set", h.veth, "master", plan.bridge, "up"]);
    run("ip", ["-n", h.netns, "addr", "replace", `${h.addr}/24`, "dev", "eth0"]);
    run("ip", ["-n", h.netns, "link", "set", "eth0", "up"]);
    run("ip", ["-n", h.netns, "link", "set", "lo", "up"]);
    const uts = utsFile(dir, h.name);
    mkdirSync(join(dir, "hosts", h.name), { recursive: true });
    if (!isMountPoint(uts)) {
      writeFileSync(uts, "");
      run("unshare", [`--uts=${uts}`, "hostname", h.name]);
    }
    makeOwnTmp(dir, h.name);
  }
}

/**
 * A mount namespace per host whose /tmp is its own (STATE/hosts/H/tmp): hosts share this
 * machine's file system as a site shares a network file system, but a job's /tmp, sbcast's
 * copies and stray files stay on their host. When the state directory itself lies under
 * /tmp it is bound back at its path inside the host's /tmp, so every host still sees it; so is
 * the program the daemons run (a CI clone under /tmp).
 * Persisting a mount namespace needs a private mount above the file (STATE/hosts is bound
 * onto itself and made private first).
 */
function makeOwnTmp(dir: string, host: string): void {
  const mnt = mntFile(dir, host);
  if (isMountPoint(mnt)) return;
  const tmp = join(dir, "hosts", host, "tmp");
  mkdirSync(tmp, { recursive: true, mode: 0o1777 });
  chmodSync(tmp, 0o1777);
  writeFileSync(mnt, "");
  const steps = ["set -e"];
  // what every host must still see under /tmp: the state directory and the program the daemons
  // run (a checkout or binary under /tmp, as in a CI clone), each bound back whole at its top
  // directory inside the host's /tmp
  for (const top of topsUnderTmp([dir, ...selfExec()])) {
    const inner = join(tmp, top.slice("/tmp/".length));
    steps.push(`mkdir -p '${inner}'`, `mount --bind '${top}' '${inner}'`);
  }
  // recursive: the state directory bound inside it comes along
  // and its own /run/munge: with --auth munge each host's munged answers there (munged's default socket)
  const munge = join(dir, "hosts", host, "munge");
  mkdirSync(munge, { recursive: true, mode: 0o755 });
  mkdirSync(MUNGE_RUN_DIR, { recursive: true });
  steps.push(`mount --bind '${munge}' ${MUNGE_RUN_DIR}`);
  steps.push(`mount --rbind '${tmp}' /tmp`);
  run("unshare", [`--mount=${mnt}`, "--propagation", "private", "sh", "-c", steps.join("; ")]);
}

/** The distinct top directories (/tmp/X) of the paths that lie under /tmp. */
export function topsUnderTmp(paths: readonly string[]): string[] {
  const tops = paths.filter((p) => p.startsWith("/tmp/")).map((p) => `/tmp/${p.slice("/tmp/".length).split("/")[0]}`);
  return [...new Set(tops)].filter((t) => t !== "/tmp/");
}

/** STATE/hosts bound onto itself, private: where the hosts' namespace files can be persisted. */
function privateHostsDir(dir: string): void {
  const hosts = join(dir, "hosts");
  mkdirSync(hosts, { recursive: true });
  if (isMountPoint(hosts)) return;
  run("mount", ["--bind", hosts, hosts]);
  run("mount", ["--make-private", hosts]);
}

/** AuthType= of the conf `spur up --netns` wrote. */
function authTypeOf(conf: string): string {
  return (/^AuthType=(\S+)/m.exec(readFileSync(conf, "utf8"))?.[1] ?? "auth/loopback").toLowerCase();
}

function isMountPoint(path: string): boolean {
  return spawnSync("mountpoint", ["-q", path], { stdio: "ignore" }).status === 0;
}

/**
 * --auth munge: one munged per host (Debian's munge), all with the cluster's key
 * (STATE/munge.key), each on its host's own /run/munge; munged forks, its PID file says which
 * process `spur down` stops.
 */
function startMunged(dir: string, h: NetnsHost): void {
  const key = join(dir, "munge.key");
  if (!existsSync(key)) writeFileSync(key, randomBytes(1024), { mode: 0o600 });
  const pidFile = join(dir, "hosts", h.name, "munged.pid");
  run("nsenter", [...enterArgs(dir, h), "munged", `--key-file=${key}`, `--pid-file=${pidFile}`, `--log-file=${join(dir, "log", `munged-${h.name}.log`)}`,
    `--seed-file=${join(dir, "hosts", h.name, "munged.seed")}`, "--num-threads=4"]);
  mkdirSync(join(dir, "pids"), { recursive: true });
  writeFileSync(join(dir, "pids", `munged-${h.name}.pid`), readFileSync(pidFile, "utf8").trim());
}

function daemonArgs(h: NetnsHost, conf: string, replicated: boolean): { name: string; args: string[] } | undefined {
  if (h.role === "controller") {
    const id = h.name.slice(1);
    return replicated ? { name: `spurctld-${id}`, args: ["spurctld", "--id", id, "--conf", conf] } : { name: "spurctld", args: ["spurctld", "--conf", conf] };
  }
  if (h.role === "node") return { name: `spurd-${h.name}`, args: ["spurd", "-N", h.name, "--conf", conf] };
  // a login host: under auth/spur its `spur authd` vouches for its users (under auth/munge, munged does)
  if (authTypeOf(conf) === "auth/spur") return { name: `authd-${h.name}`, args: ["authd", "--conf", conf] };
  return undefined;
}

/** The Slurm-named links (sbatch, srun, ...) in STATE/bin, for jobs and `spur exec` (compiled binary only). */
function installLinks(dir: string): void {
  const [cmd, ...pre] = selfExec();
  if (pre.length > 0 || cmd === undefined) return;
  spawnSync(cmd, ["install-links", join(dir, "bin")], { stdio: "ignore" });
}

/** Run `args` on the login host (or the first controller) as root, with the cluster's conf: its output, or undefined. */
function probe(dir: string, plan: NetnsPlan, conf: string, args: string[]): string | undefined {
  const where = plan.hosts.find((h) => h.role === "login") ?? plan.hosts.find((h) => h.role === "node");
  if (where === undefined) return undefined;
  const r = spawnSync("nsenter", [...enterArgs(dir, where), ...selfExec(), ...args], {
    encoding: "utf8", env: { ...process.env, SPUR_CONF: conf, SPUR_CONTROLLER_WAIT_MS: "1000" }, timeout: 10_000,
  });
  return r.status === 0 ? r.stdout : undefined;
}

/** Start (or restart, keeping state) the cluster of namespaced hosts; resolves once every node is up. */
export async function upNetns(o: NetnsUpOptions): Promise<{ conf: string; plan: NetnsPlan }> {
  const dir = resolve(o.stateDir);
  mkdirSync(dir, { recursive: true });
  assertNotRunning(dir);
  let plan = readPlan(dir) ?? planNetns(dir, o.nodes, o.controllers ?? 1, o.login);
  if (o.overlay === "wireguard" && !plan.hosts.some((h) => h.overlayAddr !== undefined)) plan = await planOverlay(dir, plan);
  writeFileSync(join(dir, PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
  const conf = join(dir, "spur.conf");
  if (!existsSync(conf)) {
    writeFileSync(join(dir, "cluster-secret"), `${randomBytes(32).toString("hex")}\n`, { mode: 0o600 });
    writeFileSync(conf, netnsConf(plan, {
      stateDir: dir, cpusPerNode: o.cpusPerNode, memPerNodeMiB: o.memPerNodeMiB, gpusPerNode: o.gpusPerNode, gpuModel: o.gpuModel,
      slurmdTimeoutSec: o.slurmdTimeoutSec, authType: o.authType, ...(o.tls === true ? { tlsLines: await netnsTls(dir, plan) } : {}),
    }));
    // declared GPUs (as a one-host `spur up` declares them); an admin's gres.conf already there is kept
    const nodes = plan.hosts.filter((h) => h.role === "node").map((h) => h.name);
    if (o.gpusPerNode > 0 && !existsSync(join(dir, "gres.conf"))) writeFileSync(join(dir, "gres.conf"), localGresConf(nodes, o.gpusPerNode, o.gpuModel, o.gpuTopology ?? "xgmi", 1, o.cpusPerNode));
  }
  makeHosts(dir, plan);
  await bringUpHosts(dir, plan);
  installLinks(dir);
  const replicated = plan.hosts.filter((h) => h.role === "controller").length > 1;
  mkdirSync(join(dir, "log"), { recursive: true });
  if (authTypeOf(conf) === "auth/munge") for (const h of plan.hosts) startMunged(dir, h);
  for (const h of plan.hosts) {
    const d = daemonArgs(h, conf, replicated);
    if (d !== undefined) startDaemonIn(dir, d.name, ["nsenter", ...enterArgs(dir, h), ...selfExec(), ...d.args]);
  }
  const nodeCount = plan.hosts.filter((h) => h.role === "node").length;
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const states = probe(dir, plan, conf, ["sinfo", "-h", "-N", "-o", "%T"])?.trim().split("\n").filter((l) => l !== "") ?? [];
    if (states.length === nodeCount && states.every((s) => !s.startsWith("unk") && !s.endsWith("*"))) return { conf, plan };
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`the cluster did not come up within 60 s: see ${join(dir, "log")}`);
}

/** What `spur up --netns` prints: the hosts and how to reach the login host. */
export function upReport(dir: string, conf: string, plan: NetnsPlan, authType: string): string {
  const ctl = plan.hosts.filter((h) => h.role === "controller").length;
  const nodes = plan.hosts.filter((h) => h.role === "node").length;
  const login = plan.hosts.some((h) => h.role === "login") ? ", a login host" : "";
  const on = plan.hosts.some((h) => h.role === "login") ? "login" : "n1";
  return `Spur cluster up in ${dir}: ${ctl} controller${ctl > 1 ? "s" : ""}, ${nodes} node${nodes > 1 ? "s" : ""}${login}, each host in its own network namespace on bridge ${plan.bridge} (${plan.prefix}.0/24), ${authType}\n`
    + hostTable(plan)
    + `export SPUR_CONF=${conf}\n`
    + `# commands run on a host with: spur exec ${on} [--user NAME] --state-dir ${dir} -- squeue\n`;
}

/** Stop every process of the cluster's hosts, then remove its namespaces, mounts and bridge. */
export async function downNetns(stateDir: string): Promise<number> {
  const dir = resolve(stateDir);
  const stopped = await downDaemons(dir);
  const plan = readPlan(dir);
  if (plan === undefined) return stopped;
  for (const h of plan.hosts) {
    // the overlay first: wireguard-go exits by itself (removing its control socket) when its interface goes
    if (h.wgIface !== undefined) {
      run("ip", ["-n", h.netns, "link", "del", h.wgIface], true);
      rmSync(`/var/run/wireguard/${h.wgIface}.sock`, { force: true });
    }
    // what is left in a host's namespace is this cluster's (a job's stray child): it goes with the host
    for (const pid of run("ip", ["netns", "pids", h.netns], true).split("\n").map(Number).filter((p) => p > 1)) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        /* gone */
      }
    }
    run("ip", ["netns", "del", h.netns], true);
    for (const file of [utsFile(dir, h.name), mntFile(dir, h.name)]) {
      run("umount", [file], true);
      rmSync(file, { force: true });
    }
  }
  run("umount", [join(dir, "hosts")], true);
  run("ip", ["link", "del", plan.bridge], true);
  rmSync(join(dir, PLAN_FILE), { force: true });
  return stopped;
}
