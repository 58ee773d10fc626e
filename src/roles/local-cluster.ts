/**
 * @module roles/local-cluster
 * `spur up` / `spur down`: a whole cluster on this host from embedded defaults —
 * one spurctld and N spurd (n1..nN, one port each, like Slurm's multiple-slurmd),
 * all state under one directory. Daemons are tracked by PID files, never by name.
 */
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";
import { selfExec } from "./self-exec.ts";
import { controllerPort } from "./cli/port.ts";
import { listJobIds, jobDir, readPid, isAlive, processMatches } from "../agent/spool.ts";
import { localGresConf, localTopologyConf } from "./local-topology.ts";

export interface UpOptions {
  stateDir: string;
  nodes: number;
  cpusPerNode: number;
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
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export async function writeLocalConf(o: UpOptions): Promise<string> {
  const dir = resolve(o.stateDir);
  const ctlPort = o.controllerPort ?? (await freePort());
  const lines = [
    "# Written by `spur up`: a local cluster on this host (slurm.conf syntax).",
    "ClusterName=spur",
    "ControlAddr=127.0.0.1",
    `ControlPort=${ctlPort}`,
    "AuthType=auth/loopback",
    `StateSaveLocation=${join(dir, "ctld")}`,
    `SlurmdSpoolDir=${join(dir, "spool")}`,
    "DefMemPerCPU=256",
    "MinJobAge=300",
    "KillWait=30",
    `SlurmdTimeout=${o.slurmdTimeoutSec}`,
  ];
  const names: string[] = [];
  for (let i = 1; i <= o.nodes; i++) {
    const port = await freePort();
    const gres = o.gpusPerNode > 0 ? ` Gres=gpu:${o.gpuModel ? `${o.gpuModel}:` : ""}${o.gpusPerNode}` : "";
    lines.push(
      `NodeName=n${i} NodeAddr=127.0.0.1 Port=${port} CPUs=${o.cpusPerNode} Sockets=1 CoresPerSocket=${o.cpusPerNode} ThreadsPerCore=1 RealMemory=${o.memPerNodeMiB}${gres}`,
    );
    names.push(`n${i}`);
  }
  const all = o.nodes === 1 ? "n1" : `n[1-${o.nodes}]`;
  lines.push(`PartitionName=debug Nodes=${all} Default=YES MaxTime=INFINITE State=UP`);
  if (o.gpusPerNode > 0) lines.push(`PartitionName=gpu Nodes=${all} Default=NO MaxTime=INFINITE State=UP`);
  const path = join(dir, "spur.conf");
  if (o.devicesRoot !== undefined) writeFileSync(join(dir, "gres.conf"), "# Written by `spur up --devices-root`: GPUs come from discovery.\nAutoDetect=spur\n");
  else if (o.gpusPerNode > 0) writeFileSync(join(dir, "gres.conf"), localGresConf(names, o.gpusPerNode, o.gpuModel, o.gpuTopology ?? "xgmi"));
  if ((o.nodesPerSwitch ?? 0) > 0) writeFileSync(join(dir, "topology.conf"), localTopologyConf(o.nodes, o.nodesPerSwitch ?? 0));
  writeFileSync(path, `${lines.join("\n")}\n`);
  return path;
}

function startDaemon(dir: string, name: string, args: string[]): number {
  mkdirSync(join(dir, "log"), { recursive: true });
  mkdirSync(join(dir, "pids"), { recursive: true });
  const fd = openSync(join(dir, "log", `${name}.log`), "a");
  const [cmd, ...pre] = selfExec();
  const child = spawn(cmd ?? process.execPath, [...pre, ...args], { detached: true, stdio: ["ignore", fd, fd] });
  closeSync(fd);
  child.unref();
  writeFileSync(join(dir, "pids", `${name}.pid`), String(child.pid ?? 0));
  return child.pid ?? 0;
}

function confNodeNames(conf: string): string[] {
  return [...readFileSync(conf, "utf8").matchAll(/^NodeName=(\S+)/gm)].map((m) => m[1] ?? "");
}

function ctlUrl(conf: string): string {
  const port = /^ControlPort=(\d+)/m.exec(readFileSync(conf, "utf8"))?.[1] ?? "6817";
  return `http://127.0.0.1:${port}`;
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

/** Start (or restart, keeping state) the local cluster; resolves once every node has registered. */
export async function up(o: UpOptions): Promise<{ conf: string; url: string }> {
  const dir = resolve(o.stateDir);
  mkdirSync(dir, { recursive: true });
  if (daemonPids(dir).some((d) => processMatches(d.pid, [d.name.replace(/-.*$/, ""), dir]))) throw new Error(`a cluster is already running in ${dir} (spur down --state-dir ${dir})`);
  const conf = existsSync(join(dir, "spur.conf")) ? join(dir, "spur.conf") : await writeLocalConf(o);
  startDaemon(dir, "spurctld", ["spurctld", "--conf", conf]);
  const discovery = o.devicesRoot !== undefined ? ["--devices-root", resolve(o.devicesRoot)] : [];
  for (const name of confNodeNames(conf)) startDaemon(dir, `spurd-${name}`, ["spurd", "-N", name, "--conf", conf, ...discovery]);
  const url = ctlUrl(conf);
  const ctl = controllerPort(url);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const { nodes } = await ctl.listNodes();
      if (nodes.length > 0 && nodes.every((n) => n.state !== "UNKNOWN")) return { conf, url };
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the cluster did not come up within 30 s: see ${join(dir, "log")}`);
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
  while (Date.now() < deadline && targets.some(isAlive)) await new Promise((r) => setTimeout(r, 50));
  for (const pid of targets.filter(isAlive)) process.kill(pid, "SIGKILL");
  rmSync(join(dir, "pids"), { recursive: true, force: true });
  return daemons.length;
}
