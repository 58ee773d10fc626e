/**
 * @module roles/spur
 * The admin tool: `spur up|down` (local cluster), `spur demo` (the README's
 * first command: a cluster, a real job, squeue and sacct), `spur install-links`,
 * `spur version`. Roles themselves are reached as `spur <role>` by main.ts.
 */
import { SPUR_VERSION, buildCommit, buildDate } from "../version.ts";
import type { UpOptions } from "./local-cluster.ts";
import { parseFlagsOrThrow, type Flags, type ValueName } from "../lib/flags.ts";
import { writeOutput } from "./cli/stdio.ts";

// Subcommands load their code (local cluster, node:fs, ...) when they run: `spur version`
// and `spur --help` pay only for this file (start-up, tests/unit/startup).
const fs = () => import("node:fs");
const path = () => import("node:path");
const cluster = () => import("./local-cluster.ts");

const USAGE = `Usage: spur <command> [options]
  up [--detach] [--state-dir DIR] [--nodes N] [--cpus-per-node N] [--mem-per-node MB]
     [--gpus-per-node N] [--gpu-model NAME]   start a local cluster (spurctld + N spurd + spurrestd)
     [--controllers 3]                        ... with 3 (or 5) replicated spurctld (Raft)
     [--netns [--login] [--auth spur|munge]]  ... each controller, node (and a login host) a host of its own:
                                              own network, UTS and mount namespace on a private bridge;
                                              auth/spur (default), or auth/munge with a munged per host;
                                              with --tls a certificate per host (else plaintext on the bridge);
     [--overlay wireguard]                    ... all daemons' traffic over a WireGuard overlay between the hosts
     [--tls]                                  ... with TLS on every listener (CA and host certificate in STATE/tls)
     [--gpu-topology xgmi|pairs|hives:N|pcie] [--nodes-per-switch N]   declared GPU links, switch tree
     [--sockets-per-node N]                   N sockets, GPUs split over them (gres.conf Cores=)
     [--threads-per-core N]                   SMT: N threads per core (Cores= stay core ids)
     [--devices-root DIR]                     GPUs discovered from a sysfs snapshot instead
  up --slurm-conf DIR|FILE [--site-ports] [--state-dir DIR]
                                              the same, with a site's slurm.conf/gres.conf nodes and partitions
  down [--state-dir DIR]                      stop it
  init [--controllers H1,H2,H3] [--port P] [--conf FILE]   write spur.conf + secret for replicated controllers
       [--tls [--tls-hosts NODE,...]]         ... with a cluster CA and per-host certificates (TLS everywhere)
  authd [--conf FILE] [--host NAME]           vouch for this host's users (AuthType=auth/spur; login hosts)
  exec HOST [--user NAME] [--state-dir DIR] -- CMD...   run CMD on a host of \`spur up --netns\`
  controller add ID HOST:PORT:RAFTPORT | remove ID [--force]   add/remove a replicated controller at run time
  demo                                        up, run a job, show squeue and sacct, down
  install-links DIR                           write the Slurm-named links (sbatch, squeue, ...)
  check [DIR|FILES...] [--json]               migration report: what Spur does with each script
  import-slurm DIR|slurm.conf [-o FILE]       convert slurm.conf/gres.conf/topology.conf to spur.conf
  net init|keygen|apply ...                   WireGuard overlay for multi-site clusters (docs/overlay.md)
  systemd-units [--bin-dir DIR]               print systemd units for spurctld, spurd, spurrestd
  cdi generate [--vendor V] [--format F]      CDI specs for this node's GPUs
  tls-cert [--out-dir D] [--host H] [--days N]  self-signed certificate for spurrestd (prints spur.conf lines)
  tls-cert --ca-dir D [--host H1,H2] [--days N]  cluster CA + per-host certificates for every listener (prints spur.conf lines)
  sim [--trace FILE.swf | --synthetic N]       replay a workload through the scheduler (FCFS vs backfill)
  version                                     print the version
  spurctld|spurd|sbatch|squeue|...            run a role by name
`;

const UP_SPEC = {
  values: [
    ["--state-dir"], ["--nodes"], ["--cpus-per-node"], ["--sockets-per-node"], ["--threads-per-core"], ["--mem-per-node"],
    ["--gpus-per-node"], ["--gpu-model"], ["--gpu-topology"], ["--nodes-per-switch"], ["--devices-root"], ["--slurmd-timeout"],
    ["--controllers"], ["--slurm-conf"], ["--auth"], ["--overlay"],
  ],
  booleans: [["--tls"], ["--site-ports"], ["--detach", "-d"], ["--netns"], ["--login"]],
} as const;
type UpFlags = Flags<typeof UP_SPEC>;

/** `spur up`'s flags (also `spur demo`'s, whose help hint names it). */
const upFlags = (argv: string[], helpCommand = "spur up"): UpFlags => parseFlagsOrThrow("spur", argv, UP_SPEC, helpCommand);

export function upOptions(argv: string[], helpCommand = "spur up"): UpOptions {
  const f = upFlags(argv, helpCommand);
  const n = (name: ValueName<typeof UP_SPEC>, dflt: number): number => {
    const v = f.values[name];
    if (v === undefined) return dflt;
    const x = Number(v);
    if (!Number.isInteger(x) || x < 0) throw new Error(`spur: error: ${name} takes a whole number, got "${v}"`);
    return x;
  };
  const devicesRoot = f.values["--devices-root"];
  return {
    stateDir: f.values["--state-dir"] ?? "/tmp/spur",
    nodes: Math.max(1, n("--nodes", 4)),
    cpusPerNode: Math.max(1, n("--cpus-per-node", 4)),
    socketsPerNode: Math.max(1, n("--sockets-per-node", 1)),
    threadsPerCore: Math.max(1, n("--threads-per-core", 1)),
    memPerNodeMiB: Math.max(1, n("--mem-per-node", 4000)),
    gpusPerNode: n("--gpus-per-node", 0),
    gpuModel: f.values["--gpu-model"] ?? "",
    gpuTopology: f.values["--gpu-topology"] ?? "xgmi",
    nodesPerSwitch: n("--nodes-per-switch", 0),
    ...(devicesRoot !== undefined ? { devicesRoot } : {}),
    slurmdTimeoutSec: n("--slurmd-timeout", 30),
    controllers: Math.max(1, n("--controllers", 1)),
    ...(f.on["--tls"] ? { tls: true } : {}),
  };
}

async function cmdUp(argv: string[]): Promise<number> {
  const f = upFlags(argv);
  const o = upOptions(argv);
  if (f.on["--netns"]) return cmdUpNetns(f, o);
  if (f.values["--auth"] !== undefined && f.values["--auth"] !== "loopback") throw new Error("spur: error: --auth spur needs --netns (hosts of their own); one host uses auth/loopback");
  if (f.on["--login"]) throw new Error("spur: error: --login needs --netns");
  const site = f.values["--slurm-conf"];
  if (site !== undefined) {
    const { writeSlurmConfForUp } = await import("../ops/up-slurm-conf.ts");
    const { assertNotRunning, freePort } = await cluster();
    process.stderr.write((await writeSlurmConfForUp(site, o.stateDir, f.on["--site-ports"] === true, { assertNotRunning, freePort })).report);
    o.nodes = 0;
  }
  const { up, down } = await cluster();
  const { readFileSync } = await fs();
  const { resolve } = await path();
  const { conf, restUrl } = await up(o);
  const count = o.nodes > 0 ? ` (${o.nodes} nodes)` : "";
  const metricsPort = /^MetricsPort=(\d+)/im.exec(readFileSync(conf, "utf8"))?.[1];
  const metrics = metricsPort === undefined ? "" : `metrics: http://127.0.0.1:${metricsPort}/metrics\n`;
  const rest = restUrl === undefined ? "" : `export SPUR_REST_URL=${restUrl}\n`;
  process.stdout.write(`Spur cluster up in ${resolve(o.stateDir)}${count}\nexport SPUR_CONF=${conf}\n${rest}${metrics}`);
  if (f.on["--detach"]) return 0;
  process.stdout.write("Press Ctrl-C to stop.\n");
  await new Promise<void>((r) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => r());
  });
  await down(o.stateDir);
  return 0;
}

/** `spur up --netns`: hosts in network namespaces (roles/netns-cluster.ts). */
async function cmdUpNetns(f: UpFlags, o: UpOptions): Promise<number> {
  const auth = f.values["--auth"] ?? "spur";
  if (auth !== "spur" && auth !== "munge") throw new Error(`spur: error: --netns takes --auth spur or --auth munge (hosts identify their users by credentials), not ${auth}`);
  if (f.values["--slurm-conf"] !== undefined) throw new Error("spur: error: --netns does not take --slurm-conf yet");
  const { upNetns, upReport, downNetns } = await import("./netns-cluster.ts");
  const { resolve } = await path();
  const overlay = f.values["--overlay"];
  if (overlay !== undefined && overlay !== "wireguard") throw new Error(`spur: error: --overlay takes wireguard, not ${overlay}`);
  const { conf, plan } = await upNetns({ ...o, login: f.on["--login"] === true, authType: `auth/${auth}`, ...(overlay === undefined ? {} : { overlay }) });
  process.stdout.write(upReport(resolve(o.stateDir), conf, plan, `auth/${auth}`));
  if (f.on["--detach"]) return 0;
  process.stdout.write("Press Ctrl-C to stop.\n");
  await new Promise<void>((r) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => r());
  });
  await downNetns(o.stateDir);
  return 0;
}

async function cmdInstallLinks(argv: string[]): Promise<number> {
  const { existsSync, mkdirSync, symlinkSync, unlinkSync, lstatSync } = await fs();
  const { join, resolve } = await path();
  const { LINK_NAMES } = await import("../main-names.ts");
  const isLink = (p: string): boolean => {
    try {
      return lstatSync(p).isSymbolicLink();
    } catch {
      return false;
    }
  };
  const dir = parseFlagsOrThrow("spur", argv, { operands: 1 }, "spur install-links").operands[0];
  if (!dir) {
    process.stderr.write("spur: error: install-links needs a directory\n");
    return 1;
  }
  if (!Bun.main.startsWith("/$bunfs/")) {
    process.stderr.write("spur: error: install-links links to the compiled binary: build it first (bun run build) and run dist/spur\n");
    return 1;
  }
  mkdirSync(dir, { recursive: true });
  for (const name of ["spur", ...LINK_NAMES]) {
    const link = join(dir, name);
    if (link === process.execPath) continue;
    if (existsSync(link) || isLink(link)) unlinkSync(link);
    symlinkSync(process.execPath, link);
  }
  process.stdout.write(`linked ${LINK_NAMES.length} commands in ${resolve(dir)} to ${process.execPath}\n`);
  return 0;
}

function ops(r: { stdout: string; stderr: string; exitCode: number }): number {
  process.stdout.write(r.stdout && !r.stdout.endsWith("\n") ? `${r.stdout}\n` : r.stdout);
  process.stderr.write(r.stderr);
  return r.exitCode;
}

/** The usage lines of one subcommand (its line and the indented lines that continue it), for `spur CMD --help`. */
export function usageOf(cmd: string): string | undefined {
  const lines = USAGE.split("\n");
  const out: string[] = [];
  let inside = false;
  for (const line of lines.slice(1)) {
    // The last line names the roles (`spur sbatch --help` is sbatch's own help, not this).
    if (/^  \S/.test(line)) inside = !line.includes("run a role by name") && line.slice(2).split(" ")[0] === cmd;
    if (inside) out.push(line);
  }
  return out.length === 0 ? undefined : `Usage: spur ${cmd} [options]\n${out.join("\n")}\n`;
}

export async function main(argv: string[]): Promise<number> {
  const [cmd, ...rest] = argv;
  // `spur up --help` must print help, not start a cluster: every subcommand answers --help/-h here.
  // (what follows `--` is another command's: `spur exec n1 -- sinfo -h`)
  const own = rest.includes("--") ? rest.slice(0, rest.indexOf("--")) : rest;
  if (cmd !== undefined && (own.includes("--help") || own.includes("-h"))) {
    const usage = usageOf(cmd);
    if (usage !== undefined) {
      await writeOutput("stdout", usage);
      return 0;
    }
  }
  try {
    switch (cmd) {
      case "up":
        return await cmdUp(rest);
      case "down": {
        const flags = parseFlagsOrThrow("spur", rest, { values: [["--state-dir"]] }, "spur down");
        const dir = flags.values["--state-dir"] ?? "/tmp/spur";
        const { existsSync } = await fs();
        const { join } = await path();
        // a cluster of namespaced hosts also takes its namespaces and bridge down
        const stopped = existsSync(join(dir, "netns.json")) ? await (await import("./netns-cluster.ts")).downNetns(dir) : await (await cluster()).down(dir);
        process.stdout.write(`stopped ${stopped} daemons\n`);
        return 0;
      }
      case "demo":
        return await (await import("./demo.ts")).runDemo(rest);
      case "init":
        return (await import("./spur-init.ts")).initMain(rest);
      case "authd":
        return await (await import("./authd.ts")).authdMain(rest);
      case "exec":
        return await (await import("./netns-exec.ts")).execMain(rest);
      case "controller":
        return await (await import("./controller-cli.ts")).controllerMain(rest);
      case "install-links":
        return await cmdInstallLinks(rest);
      case "check":
        return ops((await import("../ops/check-cli.ts")).checkMain(rest, Date.now() / 1000));
      case "import-slurm":
        return ops((await import("../ops/import-slurm-cli.ts")).importSlurmMain(rest));
      case "net":
        return ops((await import("../ops/net-cli.ts")).netMain(rest));
      case "systemd-units":
        return ops((await import("../ops/systemd-units.ts")).systemdUnitsMain(rest));
      case "tls-cert":
        return ops((await import("../ops/tls-cert.ts")).tlsCertMain(rest));
      case "sim":
        return ops((await import("./sim-cli.ts")).simMain(rest));
      case "cdi":
        return await (await import("./devices-cli.ts")).cdiMain(rest);
      case "version":
      case "--version":
      case "-V":
        await writeOutput("stdout", `spur ${SPUR_VERSION} (commit ${buildCommit()}, built ${buildDate()})\n`);
        return 0;
      case undefined:
      case "help":
      case "--help":
      case "-h":
        await writeOutput("stdout", USAGE);
        return cmd === undefined ? 1 : 0;
      default:
        process.stderr.write(`spur: error: unknown command "${cmd}"\n${USAGE}`);
        return 1;
    }
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    return 1;
  }
}
