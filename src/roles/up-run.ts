/**
 * @module roles/up-run
 * `spur up`'s body (its flags: admin/up.ts): a local cluster in one process tree, or with
 * --netns hosts in network namespaces (netns-cluster.ts); --slurm-conf takes a site's nodes
 * and partitions. Without --detach it runs until SIGINT/SIGTERM, then stops the cluster.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { UpOptions } from "./local-cluster.ts";
import type { UpArgs } from "./admin/up.ts";

const untilSignal = (): Promise<void> =>
  new Promise<void>((r) => {
    for (const sig of ["SIGINT", "SIGTERM"] as const) process.once(sig, () => r());
  });

export async function upMain(a: UpArgs, o: UpOptions): Promise<number> {
  if (a.netns === true) return upNetns(a, o);
  if (a.auth !== undefined && a.auth !== "loopback") throw new Error("spur: error: --auth spur needs --netns (hosts of their own); one host uses auth/loopback");
  if (a.login === true) throw new Error("spur: error: --login needs --netns");
  const cluster = await import("./local-cluster.ts");
  const site = a["slurm-conf"];
  if (site !== undefined) {
    const { writeSlurmConfForUp } = await import("../ops/up-slurm-conf.ts");
    const { assertNotRunning, freePort } = cluster;
    process.stderr.write((await writeSlurmConfForUp(site, o.stateDir, a["site-ports"] === true, { assertNotRunning, freePort })).report);
    o.nodes = 0;
  }
  const { conf, restUrl } = await cluster.up(o);
  const count = o.nodes > 0 ? ` (${o.nodes} nodes)` : "";
  const metricsPort = /^MetricsPort=(\d+)/im.exec(readFileSync(conf, "utf8"))?.[1];
  const metrics = metricsPort === undefined ? "" : `metrics: http://127.0.0.1:${metricsPort}/metrics\n`;
  const rest = restUrl === undefined ? "" : `export SPUR_REST_URL=${restUrl}\n`;
  process.stdout.write(`Spur cluster up in ${resolve(o.stateDir)}${count}\nexport SPUR_CONF=${conf}\n${rest}${metrics}`);
  if (a.detach === true) return 0;
  process.stdout.write("Press Ctrl-C to stop.\n");
  await untilSignal();
  await cluster.down(o.stateDir);
  return 0;
}

/** `spur up --netns`: hosts in network namespaces (netns-cluster.ts). */
async function upNetns(a: UpArgs, o: UpOptions): Promise<number> {
  const auth = a.auth ?? "spur";
  if (auth !== "spur" && auth !== "munge") throw new Error(`spur: error: --netns takes --auth spur or --auth munge (hosts identify their users by credentials), not ${auth}`);
  if (a["slurm-conf"] !== undefined) throw new Error("spur: error: --netns does not take --slurm-conf yet");
  const overlay = a.overlay;
  if (overlay !== undefined && overlay !== "wireguard") throw new Error(`spur: error: --overlay takes wireguard, not ${overlay}`);
  const { upNetns: start, upReport, downNetns } = await import("./netns-cluster.ts");
  const { conf, plan } = await start({ ...o, login: a.login === true, authType: `auth/${auth}`, ...(overlay === undefined ? {} : { overlay }) });
  process.stdout.write(upReport(resolve(o.stateDir), conf, plan, `auth/${auth}`));
  if (a.detach === true) return 0;
  process.stdout.write("Press Ctrl-C to stop.\n");
  await untilSignal();
  await downNetns(o.stateDir);
  return 0;
}
