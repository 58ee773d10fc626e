/**
 * @module tests/conformance/clusters
 * Brings up the two sides: the real Slurm 22.05 oracle (../shared/oracle/slurm-up.sh,
 * idempotent; skipped when SPUR_ORACLE_UP=1 says CI already did it) and a Spur
 * cluster of the same shape (its own spur.conf: GPUs only on n3/n4, partition
 * gpu = n[3-4], ClusterName=oracle). Spur is stopped by `spur down`, by its PIDs.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SHARED_DIR } from "../shared-dir.ts";
import { cleanEnv, type Side } from "./side.ts";

export const SPUR_BIN = resolve(__dirname, "../../dist/spur");
export const ORACLE_DIR = resolve(SHARED_DIR, "oracle");
export const ORACLE_RUN = process.env.ORACLE_RUN ?? "/tmp/slurm-oracle";

const isRoot = (): boolean => process.getuid?.() === 0;
const has = (cmd: string): boolean => spawnSync("bash", ["-c", `command -v ${cmd}`]).status === 0;

/**
 * Whether a real Slurm can be had here at all: already up (SPUR_ORACLE_UP=1), or
 * root with the packages installed or apt-get to install them, and the script.
 */
export function oracleAvailable(): boolean {
  if (process.env.SPUR_ORACLE_UP === "1") return true;
  if (!isRoot() || !existsSync(join(ORACLE_DIR, "slurm-up.sh"))) return false;
  return has("slurmctld") || has("apt-get");
}

/** Bring the oracle up (unless SPUR_ORACLE_UP=1); returns an error text, or undefined when it is up. */
export function oracleUp(): string | undefined {
  if (process.env.SPUR_ORACLE_UP !== "1") {
    const r = spawnSync("bash", [join(ORACLE_DIR, "slurm-up.sh")], { encoding: "utf8", timeout: 280_000 });
    if (r.status !== 0) return `slurm-up.sh failed (rc ${r.status}): ${(r.stdout ?? "").slice(-800)}${(r.stderr ?? "").slice(-800)}`;
  }
  const ping = spawnSync("/usr/bin/scontrol", ["ping"], { encoding: "utf8", timeout: 20_000 });
  return ping.status === 0 ? undefined : `the oracle does not answer scontrol ping: ${ping.stdout}${ping.stderr}`;
}

export function oracleSide(): Side {
  const work = join(ORACLE_RUN, "jobs", "conformance");
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  return {
    name: "slurm",
    ctx: { workDir: work, stateDir: ORACLE_RUN, confPaths: [join(ORACLE_RUN, "etc", "slurm.conf"), "/etc/slurm/slurm.conf"] },
    env: cleanEnv({ PATH: `/usr/bin:/bin:/usr/sbin:/sbin` }),
    vars: {},
  };
}

async function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once("error", rej);
    srv.listen(0, "127.0.0.1", () => {
      const a = srv.address();
      const port = typeof a === "object" && a !== null ? a.port : 0;
      srv.close(() => res(port));
    });
  });
}

/**
 * spur.conf mirroring the oracle's slurm.conf where Spur reads the key: same
 * cluster name (so SLURM_CLUSTER_NAME and sacct agree without a mask), nodes,
 * GPUs on n3/n4 only, partitions, DefMemPerCPU, MaxJobCount, the scheduler and
 * priority settings (backfill, cons_tres, multifactor with the same weights), Slurm's
 * default MinJobAge/KillWait/SlurmdTimeout.
 */
export async function spurConf(state: string, firstJobId: number): Promise<string> {
  const lines = [
    "# Written by tests/conformance: the oracle's shape (../shared/oracle/slurm-up.sh).",
    "ClusterName=oracle",
    "ControlAddr=127.0.0.1",
    `ControlPort=${await freePort()}`,
    "AuthType=auth/loopback",
    `StateSaveLocation=${join(state, "ctld")}`,
    `SlurmdSpoolDir=${join(state, "spool")}`,
    "DefMemPerCPU=256",
    "MaxJobCount=20000",
    // start where the oracle's next id is, so both sides' ids have as many digits (widths, truncation)
    `FirstJobId=${firstJobId}`,
    "MinJobAge=300",
    "KillWait=30",
    "SlurmdTimeout=300",
    // the oracle's scheduling settings (slurm-up.sh): backfill, cons_tres, multifactor priority
    "SchedulerType=sched/backfill",
    "SelectType=select/cons_tres",
    "SelectTypeParameters=CR_Core_Memory",
    "GresTypes=gpu",
    "PriorityType=priority/multifactor",
    "PriorityWeightAge=1000",
    "PriorityWeightFairshare=10000",
    "PriorityWeightJobSize=1000",
    "PriorityWeightPartition=1000",
  ];
  for (const n of [1, 2, 3, 4]) {
    const gres = n >= 3 ? " Gres=gpu:mi300x:8" : "";
    lines.push(
      `NodeName=n${n} NodeHostname=localhost NodeAddr=127.0.0.1 Port=${await freePort()} CPUs=4 Sockets=1 CoresPerSocket=4 ThreadsPerCore=1 RealMemory=4000${gres}`,
    );
  }
  lines.push("PartitionName=debug Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP");
  lines.push("PartitionName=gpu Nodes=n[3-4] MaxTime=INFINITE State=UP");
  return `${lines.join("\n")}\n`;
}

export interface SpurCluster {
  side: Side;
  down(): void;
}

/** The oracle's next job id (scontrol show config NEXT_JOB_ID), 1 if it cannot be read. */
export function oracleNextJobId(): number {
  const r = spawnSync("/usr/bin/scontrol", ["show", "config"], { encoding: "utf8", timeout: 20_000 });
  const m = /^NEXT_JOB_ID\s*=\s*(\d+)/m.exec(r.stdout ?? "");
  return m ? Number(m[1]) : 1;
}

export async function spurUp(firstJobId = 1): Promise<SpurCluster> {
  const base = mkdtempSync(join(tmpdir(), "spur-conformance-"));
  const state = join(base, "cluster");
  const work = join(base, "work");
  const bin = join(base, "bin");
  mkdirSync(state, { recursive: true });
  mkdirSync(work, { recursive: true });
  const conf = join(state, "spur.conf");
  writeFileSync(conf, await spurConf(state, firstJobId));
  const up = spawnSync(SPUR_BIN, ["up", "--detach", "--state-dir", state], { encoding: "utf8", timeout: 60_000 });
  if (up.status !== 0) throw new Error(`spur up failed: ${up.stdout}${up.stderr}`);
  const links = spawnSync(SPUR_BIN, ["install-links", bin], { encoding: "utf8" });
  if (links.status !== 0) throw new Error(`spur install-links failed: ${links.stderr}`);
  // as slurm-up.sh registers the cluster in slurmdbd: the root account and root's association
  // (what fair share ranks the jobs by: one user, factor 1.0 on both sides)
  const acct = spawnSync(join(bin, "sacctmgr"), ["-i", "add", "cluster", "oracle"], {
    encoding: "utf8", timeout: 30_000, env: { ...process.env, SPUR_CONF: conf },
  });
  // "Nothing new added": spur up registered it already
  if (acct.status !== 0 && !/Nothing new added/.test(acct.stdout + acct.stderr)) {
    spawnSync(SPUR_BIN, ["down", "--state-dir", state], { timeout: 30_000 });
    throw new Error(`sacctmgr add cluster failed: ${acct.stdout}${acct.stderr}`);
  }
  const mirrored = mirrorOracleAssociations(bin, conf);
  if (mirrored !== undefined) {
    spawnSync(SPUR_BIN, ["down", "--state-dir", state], { timeout: 30_000 });
    throw new Error(mirrored);
  }
  const side: Side = {
    name: "spur",
    ctx: { workDir: work, stateDir: state, confPaths: [conf] },
    env: cleanEnv({ PATH: `${bin}:/usr/bin:/bin:/usr/sbin:/sbin`, SPUR_CONF: conf }),
    vars: {},
  };
  return {
    side,
    down() {
      spawnSync(SPUR_BIN, ["down", "--state-dir", state], { timeout: 30_000 });
      if (process.env.SPUR_CONFORMANCE_KEEP !== "1") rmSync(base, { recursive: true, force: true });
    },
  };
}

/**
 * Give Spur the oracle's association tree (accounts, users, shares). Fair tree ranks
 * every user association, so a job's Priority depends on how many users the site has:
 * a fresh oracle has root alone (factor 1.0), but anything that added users to it
 * (another tester, an earlier run on a kept machine) changes root's factor, and the
 * two sides only compute the same priority when they hold the same tree. Returns an
 * error text, or undefined. Rows come in `sacctmgr list assoc` order: parents first.
 */
function mirrorOracleAssociations(bin: string, conf: string): string | undefined {
  const list = spawnSync("/usr/bin/sacctmgr", ["-n", "-P", "list", "assoc", "cluster=oracle", "format=account,parentname,user,fairshare,partition"], {
    encoding: "utf8", timeout: 30_000,
  });
  if (list.status !== 0) return `reading the oracle's associations failed: ${list.stdout}${list.stderr}`;
  const env = { ...process.env, SPUR_CONF: conf };
  for (const line of list.stdout.split("\n").filter((l) => l.trim() !== "")) {
    const [account = "", parent = "", user = "", shares = "1", partition = ""] = line.split("|");
    if (account === "root" && (user === "" || user === "root") && shares === "1") continue; // what add cluster made
    const args = user === ""
      ? ["-i", "add", "account", account, ...(parent ? [`parent=${parent}`] : []), `fairshare=${shares}`, "cluster=oracle"]
      : ["-i", "add", "user", user, `account=${account}`, `fairshare=${shares}`, ...(partition ? [`partition=${partition}`] : []), "cluster=oracle"];
    const r = spawnSync(join(bin, "sacctmgr"), args, { encoding: "utf8", timeout: 30_000, env });
    if (r.status !== 0 && !/Nothing new added/.test(r.stdout + r.stderr)) {
      return `mirroring the oracle's association ${line} failed: sacctmgr ${args.join(" ")}: ${r.stdout}${r.stderr}`;
    }
  }
  return undefined;
}
