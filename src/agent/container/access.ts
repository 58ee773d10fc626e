/**
 * @module agent/container/access
 * spurd prepares images and the runtime mounts paths as root, which would bypass
 * the file permissions that keep a user out of other users' (or root's) files.
 * So every host path a job names (its image, bundle, bind mount sources, home)
 * must first be readable by the job's user, checked as that user (setpriv + test),
 * as pyxis gets for free by running enroot unprivileged.
 */
import { spawn } from "node:child_process";
import { setprivPath } from "../run-as.ts";
import { rootEnv } from "../user-launch.ts";

/** Resolves true when `uid`/`gid` (with their groups) can read `path` (and search it, for a directory). */
function canRead(uid: number, gid: number, path: string): Promise<boolean> {
  const test = ["test", "-r", path, "-a", "(", "!", "-d", path, "-o", "-x", path, ")"];
  const argv = [setprivPath(), `--reuid=${uid}`, `--regid=${gid}`, "--init-groups", "--", ...test];
  return new Promise((resolve) => {
    const child = spawn(argv[0] as string, argv.slice(1), { stdio: "ignore", env: rootEnv() });
    child.once("error", () => resolve(false));
    child.once("exit", (code) => resolve(code === 0));
  });
}

/** The first of `paths` the job's user cannot read, or "" (root jobs and unprivileged spurds read as themselves). */
export async function unreadableByUser(uid: number, gid: number, paths: readonly string[]): Promise<string> {
  if (uid === 0 || (process.getuid?.() ?? 0) !== 0) return "";
  for (const path of paths) if (!(await canRead(uid, gid, path))) return path;
  return "";
}
