/**
 * @module agent/container/launch
 * A job step in a container, from spurd's plan to the end: `planContainer` (in
 * spurd, at launch) reads the request from the job's environment, picks the
 * runtime and resolves the job's GPUs to CDI edits; `prepareContainer` (in stepd
 * for a batch script, in spurd for srun steps) makes the root file system;
 * `taskCommand` writes one task's bundle and returns the runtime command that the
 * caller starts inside the step's cgroup (the container gets a cgroup of its own below
 * it: a runtime inside the cgroup it manages freezes itself), and reads `oomKills` at the
 * end (cgroup v1 counts them in the victim's own cgroup only); `releaseContainer` deletes the runtime's
 * state and the scratch directory once the step's processes are gone.
 * Failure policy: a planned launch that cannot run carries `problem`, which the
 * caller writes to the job's stderr (`errorLines`) before failing the step.
 */
import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { spawnSync } from "node:child_process";
import { setprivPath } from "../run-as.ts";
import { rootEnv } from "../user-launch.ts";
import type { CdiContainerEdits } from "../../devices/cdi.ts";
import { imageForm, requestFromEnv, type ContainerMount, type ContainerRequest } from "../../compat/container-request.ts";
import { unreadableByUser } from "./access.ts";
import { buildOciSpec, mergeImageEnv } from "./oci-spec.ts";
import { deleteCommand, findRuntime, runCommand } from "./runtime.ts";
import { jobDeviceEdits } from "./devices.ts";
import { prepareRootfs, releaseRootfs, runTool, type Rootfs } from "./rootfs.ts";
import { removeLeftoverCgroups } from "./cgroup-leftovers.ts";

export interface ContainerLaunch {
  request: ContainerRequest;
  /** Why the step cannot run in its container ("" = it can). */
  problem: string;
  runtime: string;
  stateRoot: string;
  /** The step's scratch directory (root file system, bundles). */
  scratch: string;
  /** Runtime container ids are `<idPrefix>-<task index>`. */
  idPrefix: string;
  cdiNames: string[];
  devices: CdiContainerEdits;
  /** The job's working directory on the host, mounted at the same path. */
  workDir: string;
  home: string;
  /** The job's user: the host paths it names must be readable by them (see access.ts). */
  uid: number;
  gid: number;
}

export interface ContainerSite {
  /** spur.conf ContainerRuntime= ("" = auto). */
  runtime: string;
  /** spur.conf CDISpecDirs= (default /etc/cdi, /var/run/cdi). */
  cdiSpecDirs: string[];
  spool: string;
  /** Short tag of this spurd (parallel clusters on one host never share container ids). */
  tag: string;
  /** Device file of each GPU of the node, index order. */
  gpuFiles: readonly string[];
}

export interface StepFacts {
  jobId: number;
  step: string;
  env: Readonly<Record<string, string>>;
  gpuIndices: readonly number[];
  workDir: string;
  uid: number;
  gid: number;
}

/** The container this step asks for (undefined: none), with `problem` set when it cannot run here. */
export function planContainer(site: ContainerSite, step: StepFacts): ContainerLaunch | undefined {
  const parsed = requestFromEnv(step.env);
  if (parsed.ok && parsed.value === undefined) return undefined;
  const request: ContainerRequest = parsed.ok && parsed.value !== undefined ? parsed.value : {
    image: "", bundle: "", mounts: [], workdir: "", keepEnv: [], remapRoot: false, writable: false, mountHome: false,
  };
  const runtime = findRuntime(site.runtime);
  const devices = jobDeviceEdits(site.gpuFiles, step.gpuIndices, site.cdiSpecDirs);
  const asRoot = (process.getuid?.() ?? 0) === 0;
  const problem = !parsed.ok ? parsed.error.message : !asRoot ? "containers need spurd to run as root" : !runtime.ok ? runtime.error.message
    : !devices.edits.ok ? devices.edits.error.message : "";
  const id = `spur-${site.tag}-${step.jobId}-${step.step}`;
  return {
    request, problem, runtime: runtime.ok ? runtime.value : "", stateRoot: join(site.spool, "oci-state"),
    scratch: join(site.spool, "containers", `${step.jobId}.${step.step}`), idPrefix: id,
    cdiNames: devices.names, devices: devices.edits.ok ? devices.edits.value : {},
    workDir: step.workDir, home: step.env.HOME ?? "", uid: step.uid, gid: step.gid,
  };
}

/** The job's stderr lines for a container that could not start (pyxis-style for --container-image). */
export function errorLines(launch: ContainerLaunch, problem: string): string {
  if (launch.request.bundle !== "") return `slurmstepd: error: container: ${problem}\n`;
  return `slurmstepd: error: pyxis: ${problem}\nslurmstepd: error: pyxis: couldn't start container\n`;
}

/** --container=BUNDLE: its root directory and the process defaults of its config.json. */
function bundleImage(bundle: string): { image: string; env: string[]; cwd: string } | string {
  try {
    const config = JSON.parse(readFileSync(join(bundle, "config.json"), "utf8")) as { root?: { path?: string }; process?: { env?: string[]; cwd?: string } };
    const root = config.root?.path ?? "rootfs";
    return { image: isAbsolute(root) ? root : join(bundle, root), env: config.process?.env ?? [], cwd: config.process?.cwd ?? "" };
  } catch (error) {
    return `cannot read OCI bundle ${bundle}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
  }
}

/** Make the step's root file system. */
export async function prepareContainer(launch: ContainerLaunch): Promise<{ ok: true; rootfs: Rootfs } | { ok: false; problem: string }> {
  if (launch.problem !== "") return { ok: false, problem: launch.problem };
  let image = launch.request.image;
  let defaults = { env: [] as string[], cwd: "" };
  const r = launch.request;
  // The work directory and home are bind-mounted too (taskCommand): the user must be able to enter them.
  const own = [...(launch.workDir !== "" && launch.workDir !== "/" ? [launch.workDir] : []), ...(r.mountHome && launch.home.startsWith("/") ? [launch.home] : [])];
  const named = [...(r.bundle !== "" ? [r.bundle, join(r.bundle, "config.json")] : []), ...(imageForm(image) === "path" ? [image] : []), ...r.mounts.map((m) => m.source), ...own];
  // (missing paths are reported below, as not found)
  const denied = await unreadableByUser(launch.uid, launch.gid, named.filter((p) => existsSync(p)));
  if (denied !== "") return { ok: false, problem: `${denied}: Permission denied (for uid ${launch.uid})` };
  if (r.bundle !== "") {
    const b = bundleImage(r.bundle);
    if (typeof b === "string") return { ok: false, problem: b };
    const root = await unreadableByUser(launch.uid, launch.gid, [b.image]);
    if (root !== "") return { ok: false, problem: `${root}: Permission denied (for uid ${launch.uid})` };
    image = b.image;
    defaults = b;
  }
  const prepared = await prepareRootfs(image, launch.scratch, { uid: launch.uid, gid: launch.gid });
  if (!prepared.ok) {
    await releaseRootfs(launch.scratch, "");
    return { ok: false, problem: prepared.error.message };
  }
  const rootfs = prepared.value;
  return { ok: true, rootfs: { ...rootfs, env: [...defaults.env, ...rootfs.env], cwd: rootfs.cwd || defaults.cwd } };
}

export interface TaskFacts {
  index: number;
  args: string[];
  env: Record<string, string>;
  uid: number;
  gid: number;
  /** Extra host files for this task (the batch script). */
  extraMounts?: ContainerMount[];
}

/** OOM kills counted in the containers' own memory cgroups below a v1 step (kept by runc --keep until released). */
export function oomKills(launch: ContainerLaunch, memoryStepDir: string | undefined, tasks: number): number {
  if (memoryStepDir === undefined || memoryStepDir === "") return 0;
  let kills = 0;
  for (let i = 0; i < tasks; i++) {
    try {
      const text = readFileSync(join(memoryStepDir, `${launch.idPrefix}-${i}`, "memory.oom_control"), "utf8");
      kills += Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0);
    } catch {
      /* no such cgroup */
    }
  }
  return kills;
}

/** Write the task's bundle; returns the runtime command line (to start inside the step's cgroup). */
export function taskCommand(launch: ContainerLaunch, rootfs: Rootfs, task: TaskFacts): string[] {
  const bundle = join(launch.scratch, `bundle-${task.index}`);
  mkdirSync(bundle, { recursive: true, mode: 0o755 });
  const r = launch.request;
  const mounts: ContainerMount[] = [];
  if (launch.workDir !== "" && launch.workDir !== "/" && existsSync(launch.workDir)) mounts.push({ source: launch.workDir, destination: launch.workDir, flags: [] });
  if (r.mountHome && launch.home.startsWith("/") && existsSync(launch.home)) mounts.push({ source: launch.home, destination: launch.home, flags: [] });
  mounts.push(...r.mounts.map((m) => ({ ...m, destination: m.destination.startsWith(".") ? join(launch.workDir, m.destination) : m.destination })));
  mounts.push(...(task.extraMounts ?? []));
  const id = `${launch.idPrefix}-${task.index}`;
  const spec = buildOciSpec({
    rootfs: rootfs.path, readonly: !r.writable, args: task.args, env: mergeImageEnv(task.env, rootfs.env, r.keepEnv),
    cwd: r.workdir || launch.workDir || rootfs.cwd || "/", uid: task.uid, gid: task.gid, remapRoot: r.remapRoot,
    mounts, cgroupsPath: id, devices: launch.devices,
  });
  // Every mount target and device node outside /dev (a tmpfs the runtime makes) exists beforehand.
  for (const m of spec.mounts) if (!m.destination.startsWith("/dev/")) makeMountPoint(rootfs.path, m.destination, m.type === "bind" && !isDirectory(m.source ?? ""), task);
  // (a runtime in a user namespace bind-mounts device nodes onto a file it opens read-write)
  for (const d of spec.linux.devices) if (!d.path.startsWith("/dev/")) makeMountPoint(rootfs.path, d.path, true, task, 0o666);
  writeFileSync(join(bundle, "config.json"), JSON.stringify(spec, null, 1));
  mkdirSync(launch.stateRoot, { recursive: true, mode: 0o700 });
  return runCommand(launch.runtime, launch.stateRoot, bundle, id, runtimeLog(launch, task.index));
}

const runtimeLog = (launch: ContainerLaunch, index: number): string => join(launch.scratch, `bundle-${index}`, "runtime.log");

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Create a mount target (directory, or empty file for a file or device) in the root file system
 * from the host: a runtime in a user namespace (--container-remap-root) could not. In a root file
 * system the job's user owns (unpacked as them) it is made as that user: root working in a tree the
 * user can change would follow a symlink swapped in after any check. Root makes it only where every
 * existing directory on the way is root's and writable by no one else.
 */
function makeMountPoint(rootfs: string, destination: string, file: boolean, owner: { uid: number; gid: number }, fileMode = 0o644): void {
  // Only plain paths below the root, through no symlink of the image: the runtime resolves the rest safely.
  if (!destination.startsWith("/") || destination.split("/").includes("..")) return;
  const parts = destination.split("/").filter((p) => p !== "");
  let rootOnly = true;
  for (let i = 0; i < parts.length; i++) {
    try {
      const st = lstatSync(join(rootfs, ...parts.slice(0, i)));
      if (st.isSymbolicLink()) return;
      if (st.uid !== 0 || (st.mode & 0o022) !== 0) rootOnly = false;
    } catch {
      break;
    }
  }
  const target = join(rootfs, destination);
  try {
    lstatSync(target);
    return;
  } catch {
    /* missing: made below */
  }
  const asRoot = (process.getuid?.() ?? 0) === 0;
  if (asRoot && owner.uid !== 0 && ownerOf(rootfs) === owner.uid) {
    const sh = 'if [ "$2" = 1 ]; then mkdir -p -- "${1%/*}" && : >>"$1" && chmod "$3" "$1"; else mkdir -p -- "$1"; fi';
    const ids = [`--reuid=${owner.uid}`, `--regid=${owner.gid}`, "--init-groups", "--"];
    spawnSync(setprivPath(), [...ids, "/bin/sh", "-c", sh, "spur-mountpoint", target, file ? "1" : "0", fileMode.toString(8)], { env: rootEnv(), stdio: "ignore" });
    return;
  }
  if (asRoot && !rootOnly) return; // the runtime reports what it cannot mount
  try {
    mkdirSync(file ? dirname(target) : target, { recursive: true, mode: 0o755 });
    if (file) {
      closeSync(openSync(target, "a", fileMode));
      chmodSync(target, fileMode);
    }
  } catch {
    /* the runtime reports what it cannot mount */
  }
}

function ownerOf(path: string): number {
  try {
    return lstatSync(path).uid;
  } catch {
    return -1;
  }
}

/** Whether `cmd` exists in the root file system (a path, or a name on the image's PATH); symlinks are not followed. */
export function commandInRootfs(rootfs: string, cmd: string, path: string, cwd: string): boolean {
  const exists = (p: string): boolean => {
    try {
      lstatSync(join(rootfs, p));
      return true;
    } catch {
      return false;
    }
  };
  if (cmd === "") return false;
  if (cmd.includes("/")) return exists(cmd.startsWith("/") ? cmd : join(cwd, cmd));
  return path.split(":").some((dir) => dir.startsWith("/") && exists(join(dir, cmd)));
}

/** The runtime exits 128+N when the container's process died of signal N: report the signal. */
export function runtimeExit(exitCode: number, exitSignal: number): { exitCode: number; exitSignal: number } {
  if (exitSignal === 0 && exitCode > 128 && exitCode <= 128 + 64) return { exitCode: 0, exitSignal: exitCode - 128 };
  return { exitCode, exitSignal };
}

/** After the step's processes are gone: the runtime's leftover state, the overlay, the scratch directory. */
export async function releaseContainer(launch: ContainerLaunch, rootfs: Rootfs | undefined, tasks: number): Promise<string> {
  if (launch.runtime !== "") {
    for (let i = 0; i < tasks; i++) {
      const [cmd, ...args] = deleteCommand(launch.runtime, launch.stateRoot, `${launch.idPrefix}-${i}`);
      await runTool(cmd as string, args);
      removeLeftoverCgroups(`${launch.idPrefix}-${i}`);
    }
  }
  return releaseRootfs(launch.scratch, rootfs?.mounted ?? "");
}
