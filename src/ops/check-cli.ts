/**
 * @module ops/check-cli
 * The thin I/O shell of `spur check [--json] DIR|FILE...`: reads the scripts (a directory
 * is walked recursively, skipping dot-files and binaries), runs the pure check and returns
 * the text to print. Exit 0 when every script runs, 1 when one will not, 2 on a usage or
 * read error (nothing checked).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { checkScripts } from "./check.ts";
import { checkReportJson, formatCheckReport } from "./check-format.ts";

export interface OpsResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

/** The hint after a usage error of `spur CMD` (its flags and usage: roles/admin/CMD.ts). */
export const tryHelp = (cmd: string): string => `Try "spur ${cmd} --help" for more information\n`;

export interface CheckFlags {
  /** Scripts, and directories walked for them. */
  paths: readonly string[];
  /** The report as JSON. */
  json?: boolean | undefined;
}
/** Scripts larger than this are not batch scripts (and would not be read whole by a person either). */
const MAX_SCRIPT_BYTES = 4 * 1024 * 1024;
/** A walk deeper than this is almost surely a link loop or the wrong directory. */
const MAX_DEPTH = 16;

/** Files under `path` (itself when a file), sorted, skipping dot-files. */
export function listScripts(path: string, depth = 0): string[] {
  if (!statSync(path).isDirectory()) return [path];
  if (depth >= MAX_DEPTH) return [];
  const out: string[] = [];
  for (const name of readdirSync(path).sort()) {
    if (name.startsWith(".")) continue;
    const full = join(path, name);
    const st = statSync(full, { throwIfNoEntry: false });
    if (st === undefined) continue;
    if (st.isDirectory()) out.push(...listScripts(full, depth + 1));
    else if (st.isFile() && st.size <= MAX_SCRIPT_BYTES) out.push(full);
  }
  return out;
}

const looksBinary = (buf: Buffer): boolean => buf.subarray(0, 8192).includes(0);

/** `spur check` (flags: roles/admin/check.ts). `now` is epoch seconds. */
export function checkMain(flags: CheckFlags, now: number): OpsResult {
  const json = flags.json === true;
  const paths = flags.paths;
  if (paths.length === 0) return { stdout: "", stderr: `spur: error: check: no scripts given\n${tryHelp("check")}`, exitCode: 2 };
  const files: { path: string; text: string }[] = [];
  try {
    for (const p of paths) {
      for (const file of listScripts(p)) {
        const buf = readFileSync(file);
        if (!looksBinary(buf)) files.push({ path: file, text: buf.toString("utf8") });
      }
    }
  } catch (e) {
    return { stdout: "", stderr: `spur: error: check: ${(e as Error).message}\n`, exitCode: 2 };
  }
  const report = checkScripts(files, { now });
  const stdout = json ? checkReportJson(report) : formatCheckReport(report);
  return { stdout, stderr: "", exitCode: report.summary.fails > 0 ? 1 : 0 };
}
