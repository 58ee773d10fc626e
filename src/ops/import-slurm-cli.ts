/**
 * @module ops/import-slurm-cli
 * The thin I/O shell of `spur import-slurm DIR|slurm.conf [-o FILE] [--force]`: reads
 * slurm.conf and, when present beside it, gres.conf, topology.conf and cgroup.conf; writes
 * spur.conf to stdout (or FILE, never over an existing one without --force) and the report
 * of what was not carried over to stderr. Exit 0 on success, 1 on a bad file, 2 on usage.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { parseFlags } from "../lib/flags.ts";
import { refusedFlags, type OpsResult } from "./check-cli.ts";
import { formatImportReport, importSlurm, type SlurmConfFiles } from "./import-slurm.ts";

const USAGE = "Usage: spur import-slurm DIR|slurm.conf [-o FILE] [--force]\n";

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

/** `spur import-slurm` from its arguments (after the verb). */
export function importSlurmMain(argv: readonly string[]): OpsResult {
  // Operands are counted below, for import-slurm's own message and exit code.
  const parsed = parseFlags(argv, { values: [["--output", "-o"]], booleans: [["--force"], ["--help", "-h"]], operands: Number.POSITIVE_INFINITY });
  if (!parsed.ok) return refusedFlags(parsed.error, "spur import-slurm");
  const flags = parsed.value;
  if (flags.on["--help"]) return { stdout: USAGE, stderr: "", exitCode: 0 };
  const out = flags.values["--output"];
  const operands = flags.operands;
  const target = operands[0];
  if (target === undefined || operands.length > 1) return { stdout: "", stderr: `spur: error: import-slurm: give one directory\n${USAGE}`, exitCode: 2 };
  const files = readSlurmFiles(target);
  if (files === undefined) return { stdout: "", stderr: `spur: error: import-slurm: no slurm.conf in ${target}\n`, exitCode: 1 };
  const result = importSlurm(files);
  if (!result.ok) return { stdout: "", stderr: `spur: error: import-slurm: ${result.error.message}\n`, exitCode: 1 };
  const report = formatImportReport(result.value);
  if (out === undefined) return { stdout: result.value.spurConf, stderr: report, exitCode: 0 };
  if (existsSync(out) && !flags.on["--force"]) {
    return { stdout: "", stderr: `spur: error: import-slurm: ${out} exists (use --force to replace it)\n`, exitCode: 1 };
  }
  writeFileSync(out, result.value.spurConf, { mode: 0o644 });
  return { stdout: "", stderr: `${report}wrote ${out}\n`, exitCode: 0 };
}
