/**
 * @module agent/container/rootfs
 * Turns a local image into a root file system for one job step, under a scratch
 * directory of spurd's spool: a root directory is overlaid (the image is never
 * written to), an OCI image layout (directory or tar) has its layers unpacked in
 * order with their whiteouts, a root file system tar is extracted, a squashfs
 * file is unpacked with unsquashfs. Registry references cannot be pulled here
 * (no registry client; nodes are often offline) and fail with a clear message.
 * Archives are unpacked as the job's user (into directories it owns), as enroot does
 * unprivileged: an image's symlinks then cannot steer root's writes outside the
 * scratch directory. Failure policy: every problem is returned as text for the job's stderr.
 */
import { spawn } from "node:child_process";
import { chownSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { err, ok, type Result } from "../../lib/result.ts";
import { imageForm } from "../../compat/container-request.ts";
import { setprivPath } from "../run-as.ts";
import { rootEnv } from "../user-launch.ts";

export interface Rootfs {
  path: string;
  /** The image's own variables (OCI config Env) and working directory, where it has them. */
  env: string[];
  cwd: string;
  /** An overlay mount to undo at the end ("" = none). */
  mounted: string;
}

/** Run a command; resolves to "" or its failure (stderr's last lines). */
export function runTool(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve) => {
    let stderr = "";
    const child = spawn(cmd, args, { env: rootEnv(), stdio: ["ignore", "ignore", "pipe"] });
    child.stderr?.on("data", (b: Buffer) => {
      stderr = (stderr + b.toString()).slice(-2000);
    });
    child.once("error", (e: NodeJS.ErrnoException) => resolve(e.code === "ENOENT" ? `${cmd} is not installed` : `${cmd}: ${e.message}`));
    child.once("close", (code) => resolve(code === 0 ? "" : `${cmd} exited with ${code}: ${stderr.trim().split("\n").slice(-3).join(" / ")}`));
  });
}

function capture(cmd: string, args: string[]): Promise<{ out: string; problem: string }> {
  return new Promise((resolve) => {
    let out = "";
    const child = spawn(cmd, args, { env: rootEnv(), stdio: ["ignore", "pipe", "ignore"] });
    child.stdout?.on("data", (b: Buffer) => {
      out += b.toString();
    });
    child.once("error", (e) => resolve({ out: "", problem: `${cmd}: ${e.message}` }));
    child.once("close", (code) => resolve({ out, problem: code === 0 ? "" : `${cmd} exited with ${code}` }));
  });
}

const isSquashfs = (path: string): boolean => /\.(sqsh|squashfs|sqfs)$/.test(path);

/** Who unpacks archives: the job's user (when spurd is root and the job is not). */
export interface Unpacker {
  uid: number;
  gid: number;
}

/** argv run as the unpacking user. */
function asUser(u: Unpacker | undefined, argv: string[]): [string, string[]] {
  const full = u === undefined || u.uid === 0 || (process.getuid?.() ?? 0) !== 0 ? argv : [setprivPath(), `--reuid=${u.uid}`, `--regid=${u.gid}`, "--init-groups", "--", ...argv];
  return [full[0] as string, full.slice(1)];
}

/** A directory the unpacking user owns. */
function ownedDir(path: string, unpacker: Unpacker | undefined): void {
  mkdirSync(path, { recursive: true, mode: 0o755 });
  if (unpacker !== undefined && (process.getuid?.() ?? 0) === 0) chownSync(path, unpacker.uid, unpacker.gid);
}

/** Prepare `image` (already absolute for path forms) under `scratch` (created here); archives are unpacked as `as`. */
export async function prepareRootfs(image: string, scratch: string, as?: Unpacker): Promise<Result<Rootfs>> {
  if (imageForm(image) === "registry") {
    return err("RegistryImage", `cannot import "${image}": pulling from a registry is not supported on this node; ` +
      "give a local image path (a root directory, an OCI image layout directory or tar, a root file system tar, or a squashfs file)");
  }
  if (!existsSync(image)) return err("ImageNotFound", `image ${image} not found on this node`);
  mkdirSync(scratch, { recursive: true, mode: 0o755 });
  const rootfs = join(scratch, "rootfs");
  mkdirSync(rootfs, { mode: 0o755 });
  if (!statSync(image).isDirectory()) ownedDir(rootfs, as);
  if (statSync(image).isDirectory()) {
    if (existsSync(join(image, "oci-layout"))) {
      ownedDir(rootfs, as);
      return unpackLayout(image, rootfs, as);
    }
    return overlay(image, scratch, rootfs);
  }
  if (isSquashfs(image)) {
    // unsquashfs makes its target itself: in a directory of the user's (the scratch directory stays root's).
    const box = join(scratch, "squashfs");
    ownedDir(box, as);
    const target = join(box, "rootfs");
    const problem = await runTool(...asUser(as, ["unsquashfs", "-no-progress", "-quiet", "-d", target, image]));
    if (problem !== "") return err("SquashfsFailed", `cannot unpack squashfs image ${image}: ${problem}${problem.includes("not installed") ? " (Debian: squashfs-tools)" : ""}`);
    return ok({ path: target, env: [], cwd: "", mounted: "" });
  }
  const list = await capture("tar", ["-tf", image]);
  if (list.problem !== "") return err("BadImage", `image ${image} is neither a directory, a tar archive nor a squashfs file`);
  if (list.out.split("\n").some((l) => l.replace(/^\.\//, "") === "oci-layout")) {
    const layout = join(scratch, "layout");
    ownedDir(layout, as);
    const problem = await runTool(...asUser(as, ["tar", "-xf", image, "-C", layout]));
    if (problem !== "") return err("BadImage", `cannot extract image ${image}: ${problem}`);
    return unpackLayout(layout, rootfs, as);
  }
  const problem = await runTool(...asUser(as, ["tar", "-xf", image, "-C", rootfs, "--exclude=dev/*"]));
  if (problem !== "") return err("BadImage", `cannot extract image ${image}: ${problem}`);
  return ok({ path: rootfs, env: [], cwd: "", mounted: "" });
}

/** The image directory as the lower layer of an overlay (writes land in scratch); a copy where overlays are refused. */
async function overlay(image: string, scratch: string, rootfs: string): Promise<Result<Rootfs>> {
  if (!/[,:]/.test(image)) {
    const upper = join(scratch, "upper");
    const work = join(scratch, "work");
    mkdirSync(upper, { mode: 0o755 });
    mkdirSync(work);
    const problem = await runTool("mount", ["-t", "overlay", "overlay", "-o", `lowerdir=${image},upperdir=${upper},workdir=${work}`, rootfs]);
    if (problem === "") return ok({ path: rootfs, env: [], cwd: "", mounted: rootfs });
  }
  const problem = await runTool("cp", ["-a", `${image}/.`, rootfs]);
  if (problem !== "") return err("BadImage", `cannot copy image ${image}: ${problem}`);
  return ok({ path: rootfs, env: [], cwd: "", mounted: "" });
}

interface Descriptor {
  mediaType?: string;
  digest: string;
}

function blobPath(layout: string, d: Descriptor): string {
  const [algorithm, hex] = d.digest.split(":");
  if (algorithm === undefined || hex === undefined || !/^[a-z0-9]+$/.test(algorithm) || !/^[a-f0-9]+$/.test(hex)) throw new Error(`bad digest ${d.digest}`);
  return join(layout, "blobs", algorithm, hex);
}

/** index.json → (nested index →) manifest → config + layers, applied in order. */
async function unpackLayout(layout: string, rootfs: string, as: Unpacker | undefined): Promise<Result<Rootfs>> {
  try {
    let index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8")) as { manifests?: Descriptor[] };
    let manifest: { config?: Descriptor; layers?: Descriptor[] } | undefined;
    for (let depth = 0; depth < 4 && manifest === undefined; depth++) {
      const first = index.manifests?.[0];
      if (first === undefined) return err("BadImage", `OCI layout ${layout} lists no image`);
      const doc = JSON.parse(readFileSync(blobPath(layout, first), "utf8")) as { manifests?: Descriptor[]; layers?: Descriptor[]; config?: Descriptor };
      if (doc.manifests !== undefined) index = doc;
      else manifest = doc;
    }
    if (manifest === undefined) return err("BadImage", `OCI layout ${layout}: no image manifest found`);
    for (const layer of manifest.layers ?? []) {
      const problem = await applyLayer(blobPath(layout, layer), rootfs, as);
      if (problem !== "") return err("BadImage", `OCI layout ${layout}: layer ${layer.digest}: ${problem}`);
    }
    const config = manifest.config === undefined ? {} : (JSON.parse(readFileSync(blobPath(layout, manifest.config), "utf8")) as { config?: { Env?: string[]; WorkingDir?: string } });
    return ok({ path: rootfs, env: config.config?.Env ?? [], cwd: config.config?.WorkingDir ?? "", mounted: "" });
  } catch (error) {
    // Not the parser's message: it may quote the file, which spurd read as root.
    const why = error instanceof SyntaxError ? "malformed JSON" : ((error as NodeJS.ErrnoException).code ?? "bad digest");
    return err("BadImage", `cannot read OCI layout ${layout}: ${why}`);
  }
}

/** One layer: its whiteouts remove what lower layers put there, then its files are extracted. */
async function applyLayer(blob: string, rootfs: string, as: Unpacker | undefined): Promise<string> {
  const list = await capture("tar", ["-tf", blob]);
  if (list.problem !== "") return list.problem;
  const gone: string[] = [];
  for (const entry of list.out.split("\n")) {
    const clean = entry.replace(/^\.\//, "");
    const slash = clean.lastIndexOf("/");
    const dir = slash < 0 ? "" : clean.slice(0, slash);
    const base = clean.slice(slash + 1);
    if (!base.startsWith(".wh.") || clean.split("/").includes("..") || throughSymlink(rootfs, dir)) continue;
    if (base === ".wh..wh..opq") gone.push(...safeList(join(rootfs, dir)).map((name) => join(rootfs, dir, name)));
    else gone.push(join(rootfs, dir, base.slice(4)));
  }
  // Removed by the unpacking user, like the extraction: the tree is theirs, root must not walk it.
  if (gone.length > 0) {
    const problem = await runTool(...asUser(as, ["rm", "-rf", "--one-file-system", "--", ...gone]));
    if (problem !== "") return problem;
  }
  return runTool(...asUser(as, ["tar", "-xf", blob, "-C", rootfs, "--exclude=.wh.*", "--exclude=*/.wh.*", "--exclude=dev/*"]));
}

/** Whether `dir` (relative to the root) passes through a symlink: a whiteout there could reach outside. */
function throughSymlink(rootfs: string, dir: string): boolean {
  const parts = dir.split("/").filter((p) => p !== "");
  for (let i = 1; i <= parts.length; i++) {
    try {
      if (lstatSync(join(rootfs, ...parts.slice(0, i))).isSymbolicLink()) return true;
    } catch {
      return false;
    }
  }
  return false;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** Undo an overlay mount and remove the scratch directory (best effort; returns what stayed). */
export async function releaseRootfs(scratch: string, mounted: string): Promise<string> {
  if (process.env.SPUR_KEEP_CONTAINER_SCRATCH === "1") return ""; // debugging: keep bundles and root file systems
  if (mounted !== "") await runTool("umount", ["-l", mounted]);
  await purgeAsOwners(scratch);
  try {
    rmSync(scratch, { recursive: true, force: true });
    return "";
  } catch (error) {
    return `scratch ${scratch} left: ${(error as Error).message}`;
  }
}

/**
 * Remove, as their owners, the entries below `dir` that are not root's (an unpacked root file system, what a
 * container wrote into an overlay): root's own removal then walks only trees no user can change under it.
 */
async function purgeAsOwners(dir: string): Promise<void> {
  if ((process.getuid?.() ?? 0) !== 0) return;
  const byOwner = new Map<string, string[]>();
  const walk = (d: string, depth: number): void => {
    for (const name of safeList(d)) {
      const path = join(d, name);
      try {
        const st = lstatSync(path);
        const key = `${st.uid}:${st.gid}`;
        if (st.uid !== 0) byOwner.set(key, [...(byOwner.get(key) ?? []), path]);
        else if (st.isDirectory() && depth < 8) walk(path, depth + 1);
      } catch {
        /* gone meanwhile */
      }
    }
  };
  walk(dir, 0);
  for (const [key, paths] of byOwner) {
    const [uid, gid] = key.split(":");
    await runTool(setprivPath(), [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "--", "rm", "-rf", "--one-file-system", "--", ...paths]);
  }
}
