/**
 * @module bench/scale/lib/slurm-scratch
 * A private slurmctld for measurements the shared oracle must not see: its own
 * slurm.conf in a temporary directory (its own port, state, cluster name, MaxJobCount
 * 200000, no accounting, nodes s[1-4] pointed at a port where no slurmd listens, so it
 * never talks to the oracle's daemons), started with `slurmctld -i -f` and stopped by
 * its pid. Jobs are submitted held; nothing runs. Commands reach it through SLURM_CONF.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ScratchSlurm {
  env: NodeJS.ProcessEnv;
  pid: number;
  /** Submit `n` held jobs with `loops` sbatch shell loops in parallel. */
  fill: (n: number, loops?: number) => void;
  stop: () => void;
}

/** A port nothing listens on now (the kernel's pick). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The node and partition lines: 4 nodes by default, or `nodes(port)`'s (they point at `port`, where no slurmd listens). */
function nodeLines(port: number, nodes?: (slurmdPort: number) => string[]): string[] {
  if (nodes !== undefined) return nodes(port);
  return [
    `NodeName=s[1-4] NodeHostname=localhost NodeAddr=127.0.0.1 Port=${port} CPUs=4 RealMemory=4000 State=UNKNOWN`,
    "PartitionName=debug Nodes=s[1-4] Default=YES MaxTime=INFINITE State=UP",
  ];
}

function confText(dir: string, port: number, nodes?: (slurmdPort: number) => string[]): string {
  return [
    `ClusterName=scale${port}`, "SlurmctldHost=localhost", "SlurmUser=root", "AuthType=auth/munge", "CredType=cred/munge",
    `SlurmctldPort=${port}`, `SlurmdPort=${port + 1}`, `StateSaveLocation=${dir}/state`, `SlurmdSpoolDir=${dir}/state/d.%n`,
    `SlurmctldPidFile=${dir}/slurmctld.pid`, `SlurmctldLogFile=${dir}/slurmctld.log`, "SlurmctldDebug=error",
    "MpiDefault=none", "MailProg=/bin/true", "SwitchType=switch/none", "ProctrackType=proctrack/linuxproc", "TaskPlugin=task/none",
    "MaxJobCount=200000", "SchedulerType=sched/backfill", "SelectType=select/cons_tres", "SelectTypeParameters=CR_Core_Memory",
    "DefMemPerCPU=256", "PriorityType=priority/multifactor", "AccountingStorageType=accounting_storage/none",
    "JobAcctGatherType=jobacct_gather/none", "JobCompType=jobcomp/none", "PlugStackConfig=/etc/slurm/plugstack.conf",
    ...nodeLines(port + 2, nodes), "",
  ].join("\n");
}

/**
 * Undefined when Slurm's binaries are not installed or the controller does not come up.
 * `nodes`: NodeName=/PartitionName= lines of its own (given the port no slurmd listens on).
 */
export async function startScratchSlurm(nodes?: (slurmdPort: number) => string[]): Promise<ScratchSlurm | undefined> {
  if (!existsSync("/usr/sbin/slurmctld") || !existsSync("/usr/bin/sbatch")) return undefined;
  const dir = mkdtempSync(join(tmpdir(), "spur-scale-slurm-"));
  mkdirSync(join(dir, "state"));
  const port = await freePort();
  const conf = join(dir, "slurm.conf");
  writeFileSync(conf, confText(dir, port, nodes));
  const env = { ...process.env, SLURM_CONF: conf };
  spawnSync("/usr/sbin/slurmctld", ["-i", "-f", conf], { env, stdio: "ignore" });
  let pid = 0;
  for (let i = 0; i < 100 && pid === 0; i++) {
    const ok = spawnSync("/usr/bin/squeue", ["-h"], { env, stdio: "ignore" }).status === 0;
    if (ok && existsSync(join(dir, "slurmctld.pid"))) pid = Number(readFileSync(join(dir, "slurmctld.pid"), "utf8"));
    else Bun.sleepSync(100);
  }
  const stop = (): void => {
    if (pid > 0) {
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        /* already gone */
      }
      for (let i = 0; i < 50; i++) {
        try {
          process.kill(pid, 0);
          Bun.sleepSync(100);
        } catch {
          break;
        }
      }
    }
    rmSync(dir, { recursive: true, force: true });
  };
  if (pid === 0) {
    stop();
    return undefined;
  }
  const fill = (n: number, loops = 8): void => {
    const script = Array.from({ length: loops }, (_, k) => `(for i in $(seq ${Math.floor(n / loops) + (k < n % loops ? 1 : 0)}); do /usr/bin/sbatch -Q --hold -J scale --wrap=true || exit 1; done) &`).join(" ") + " wait";
    const r = spawnSync("bash", ["-c", script], { env, stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
    if (r.status !== 0) throw new Error(`scratch slurm fill failed: ${r.stderr}`);
  };
  return { env, pid, fill, stop };
}
