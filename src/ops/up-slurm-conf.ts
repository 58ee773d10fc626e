/**
 * @module ops/up-slurm-conf
 * The I/O shell of `spur up --slurm-conf DIR|slurm.conf [--site-ports]`: imports the site's
 * files (ops/import-slurm), makes the result run on this host (ops/localise-conf) and
 * writes it as STATE_DIR/spur.conf, which `spur up` then starts. Each run re-imports, so
 * the site's files stay the source of truth; the state log in STATE_DIR is kept.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { formatImportReport, importSlurm } from "./import-slurm.ts";
import { readSlurmFiles } from "./import-slurm-cli.ts";
import { localiseConf, nodeNamesOf } from "./localise-conf.ts";

export interface SlurmConfUp {
  /** Path of the spur.conf written. */
  conf: string;
  /** The import report and the local changes, for stderr. */
  report: string;
}

/** What the local cluster's shell provides: a check that no cluster runs in the directory, and free ports. */
export interface UpHost {
  assertNotRunning(dir: string): void;
  freePort(): Promise<number>;
}

/** Import `target` into `stateDir`/spur.conf; throws with Slurm-style wording on a bad file. */
export async function writeSlurmConfForUp(target: string, stateDir: string, sitePorts: boolean, host: UpHost): Promise<SlurmConfUp> {
  const { assertNotRunning, freePort } = host;
  const files = readSlurmFiles(target);
  if (files === undefined) throw new Error(`spur: error: up: no slurm.conf in ${target}`);
  const imported = importSlurm(files);
  if (!imported.ok) throw new Error(`spur: error: up: ${imported.error.message}`);
  const dir = resolve(stateDir);
  assertNotRunning(dir);
  const nodePorts = new Map<string, number>();
  if (!sitePorts) for (const name of nodeNamesOf(imported.value.spurConf)) nodePorts.set(name, await freePort());
  const local = localiseConf({
    spurConf: imported.value.spurConf, stateDir: dir, nodePorts, metricsPort: await freePort(),
    ...(sitePorts ? {} : { controlPort: await freePort() }),
  });
  mkdirSync(dir, { recursive: true });
  const conf = join(dir, "spur.conf");
  writeFileSync(conf, local.spurConf, { mode: 0o644 });
  const changes = local.changes.map((c) => `local: ${c}\n`).join("");
  return { conf, report: `${formatImportReport(imported.value)}${changes}` };
}
