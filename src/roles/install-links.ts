/**
 * @module roles/install-links
 * `spur install-links DIR` (admin/install-links.ts): `spur` and every Slurm-named command
 * (main-names.ts) as symbolic links to this compiled binary, replacing what is there.
 */
import { existsSync, lstatSync, mkdirSync, symlinkSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { LINK_NAMES } from "../main-names.ts";

const isLink = (p: string): boolean => {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
};

export function installLinks(dir: string): number {
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
