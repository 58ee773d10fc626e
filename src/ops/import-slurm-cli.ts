/**
 * @module ops/import-slurm-cli
 * The thin I/O shell of `spur import-slurm DIR|slurm.conf [-o FILE] [--force]`: reads
 * slurm.conf and, when present beside it, gres.conf, topology.conf and cgroup.conf; writes
 * spur.conf to stdout (or FILE, never over an existing one without --force) and the report
 * of what was not carried over to stderr. Exit 0 on success, 1 on a bad file, 2 on usage.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { tryHelp, type OpsResult } from "./check-cli.ts";
import { formatImportReport, importSlurm, type SlurmConfFiles } from "./import-slurm.ts";

const readIf = (path: string): string | undefined => (existsSync(path) ? readFileSync(path, "utf8") : undefined);

/** slurm.conf (a file, or DIR/slurm.conf) and the gres/topology/cgroup files beside it; undefined when there is none. */
export function readSlurmFiles(target: string): SlurmConfFiles | undefined {
  const isDir = existsSync(target) && statSync(target).isDirectory();
  const dir = isDir ? target : dirname(target);
  const slurmConf = readIf(isDir ? join(dir, "slurm.conf") : target);
  if (slurmConf === undefined) return undefined;
  return {
    dir, slurmConf, gresConf: readIf(join(dir, "gres.conf")), topologyConf: readIf(join(dir, "topology.conf")),
    cgroupConf: readIf(join(dir, "cgroup.conf")),
  };
}

export interface ImportSlurmFlags {
  /** A directory holding slurm.conf, or the file. */
  target?: string | undefined;
  /** Write spur.conf here instead of stdout. */
  output?: string | undefined;
  /** Replace an existing --output file. */
  force?: boolean | undefined;
}

/** `spur import-slurm` (flags: roles/admin/import-slurm.ts). */
export function importSlurmMain(flags: ImportSlurmFlags): OpsResult {
  const out = flags.output;
  const target = flags.target;
  if (target === undefined) return { stdout: "", stderr: `spur: error: import-slurm: give one directory\n${tryHelp("import-slurm")}`, exitCode: 2 };
  const files = readSlurmFiles(target);
  if (files === undefined) return { stdout: "", stderr: `spur: error: import-slurm: no slurm.conf in ${target}\n`, exitCode: 1 };
  const result = importSlurm(files);
  if (!result.ok) return { stdout: "", stderr: `spur: error: import-slurm: ${result.error.message}\n`, exitCode: 1 };
  const report = formatImportReport(result.value);
  if (out === undefined) return { stdout: result.value.spurConf, stderr: report, exitCode: 0 };
  if (existsSync(out) && flags.force !== true) {
    return { stdout: "", stderr: `spur: error: import-slurm: ${out} exists (use --force to replace it)\n`, exitCode: 1 };
  }
  writeFileSync(out, result.value.spurConf, { mode: 0o644 });
  return { stdout: "", stderr: `${report}wrote ${out}\n`, exitCode: 0 };
}
