/**
 * @module raft/snapshot-file
 * A snapshot image kept in a file beside the Raft log instead of a row in it: written and
 * fsynced by the thread that encoded it (the controller's snapshot worker), so the replica's
 * thread only records a reference (storage-sqlite.ts). Writing a 100k-job image into the log's
 * WAL was most of the 75-113 ms a snapshot held the replica's event loop (issue 16); SQLite
 * writes a large blob at about 10 ms a MiB here.
 * Files are named `<log file>.snap-<index>`; one is written under a `.tmp` name, fsynced, then
 * renamed and its directory fsynced, so a name that exists holds a whole, durable image.
 */
import { closeSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";

const TMP = ".tmp";

/** The name of the image at `index` for the log at `logPath` (a name in the log's directory). */
export function snapshotFileName(logPath: string, index: number): string {
  return `${basename(logPath)}.snap-${index}`;
}

/** Write `image` durably as the image at `index`; returns its name (snapshotFileName). */
export function writeSnapshotFile(logPath: string, index: number, image: Uint8Array): string {
  const name = snapshotFileName(logPath, index);
  const dir = dirname(logPath);
  const tmp = join(dir, name + TMP);
  const fd = openSync(tmp, "w", 0o600);
  try {
    for (let off = 0; off < image.length; ) off += writeSync(fd, image, off, image.length - off);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(tmp, { force: true }); // a part written to a full disk would hold its space
    throw error;
  }
  closeSync(fd);
  renameSync(tmp, join(dir, name));
  const dirFd = openSync(dir, "r");
  try {
    fsyncSync(dirFd);
  } finally {
    closeSync(dirFd);
  }
  return name;
}

/**
 * Remove the image files of the log at `logPath` not named in `keep` (those of snapshots
 * superseded or never recorded); `.tmp` files too when `withTmp` (no writer can be running).
 */
export function removeSnapshotFiles(logPath: string, keep: ReadonlySet<string>, withTmp: boolean): void {
  const dir = dirname(logPath);
  const prefix = `${basename(logPath)}.snap-`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const n of names) {
    if (!n.startsWith(prefix) || keep.has(n)) continue;
    if (n.endsWith(TMP) && !withTmp) continue;
    rmSync(join(dir, n), { force: true });
  }
}
