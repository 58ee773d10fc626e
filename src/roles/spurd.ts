/**
 * @module roles/spurd
 * The node agent daemon. `spurd -N NAME` runs as node NAME from spur.conf (its
 * CPUs, memory, GPUs and port come from the NodeName line; real discovery is
 * the devices issue), serves the Agent RPC, and registers with the controller.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { hostname, arch, release } from "node:os";
import { flag } from "./argv.ts";
import { confPath, controllerUrl, readConf } from "./conf-file.ts";
import { createLogger } from "./logger.ts";
import { createState } from "../sched/model/state.ts";
import { createAgent } from "../agent/agent.ts";
import { createContainment } from "../agent/containment.ts";
import { removeSpurRoots } from "../agent/cgroup/detect.ts";
import { agentRoutes } from "../agent/service.ts";
import { startRpcServer } from "../net/rpc-server.ts";
import { selfExec } from "./self-exec.ts";
import { SPUR_VERSION } from "../version.ts";


export async function main(argv: string[]): Promise<number> {
  if (argv.includes("--discover")) return (await import("./devices-cli.ts")).discoverMain(argv);
  const path = confPath(flag(argv, "--conf", "-f"));
  const conf = readConf(path);
  const name = flag(argv, "-N", "--node") ?? hostname();
  const logger = createLogger("spurd").withTag(name);
  const built = createState(conf);
  if (!built.ok) throw new Error(built.error.message);
  const configured = built.value.nodes.get(name);
  if (configured === undefined) {
    process.stderr.write(`spurd: fatal: node ${name} is not in ${path}\n`);
    return 1;
  }
  const spoolRoot = flag(argv, "--spool") ?? conf.globals.get("slurmdspooldir") ?? "/var/spool/spur/d";
  const spool = join(spoolRoot.replace("%n", name), name);
  mkdirSync(spool, { recursive: true });
  const containment = createContainment({
    spool, nodeName: name, nodeCpus: configured.info.cpus, confPath: path, logger,
    plugin: conf.globals.get("cgroupplugin") ?? "autodetect",
  });
  // Before serving: cgroups of steps and jobs that ended while no spurd was watching.
  await containment.sweep();
  const node = {
    ...configured.info, hostname: hostname(), arch: arch(), os: `Linux ${release()}`, version: SPUR_VERSION,
    bootTime: Date.now() / 1000, partitions: [], cgroup: containment.support.summary,
  };
  const agent = createAgent({
    node, spool, controllerUrl: controllerUrl(conf), confPath: path, logger, selfExec: selfExec(), containment,
    sampleSec: acctFrequencySec(conf.globals.get("jobacctgatherfrequency")),
    scripts: {
      prolog: conf.globals.get("prolog") ?? "", epilog: conf.globals.get("epilog") ?? "",
      taskProlog: conf.globals.get("taskprolog") ?? "", taskEpilog: conf.globals.get("taskepilog") ?? "",
      timeoutSec: Number(conf.globals.get("prologepilogtimeout") ?? 0) || 0,
    },
  });
  const server = await startRpcServer(agentRoutes(agent, name, containment.support.summary), { host: node.addr || "127.0.0.1", port: node.port });
  logger.info({ message: "listening", node: name, port: server.port, spool });
  const stop = agent.start();
  await new Promise<void>((resolve) => {
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => resolve());
  });
  stop();
  await server.close();
  await containment.sweep(); // srun steps die with their streams; batch jobs keep running under stepd
  removeSpurRoots(containment.support); // only when empty: jobs of a detached stepd keep theirs
  return 0;
}

/** JobAcctGatherFrequency "task=N" or "N" → seconds between samples; Spur's default is 2 (Slurm's 30 is too coarse for short jobs). */
function acctFrequencySec(text: string | undefined): number {
  const m = /(?:^|,)(?:task=)?(\d+)(?:,|$)/.exec(text ?? "");
  const sec = Number(m?.[1] ?? 2);
  return sec > 0 ? sec : 2;
}
