/**
 * @module agent/container/oci-spec
 * The pure builder of an OCI runtime spec (a bundle's config.json) for one task of
 * a job: its root file system, the command with the job's environment, the job's
 * user (or root mapped onto the user in a user namespace with --container-remap-root),
 * bind mounts, a cgroup path relative to the runtime's own cgroup (the runtime is
 * started inside the job step's cgroup, so the container lives and dies within the
 * job's limits), and the CDI edits of the job's GPUs: device nodes created and
 * allowed, variables, mounts, hooks. Like enroot, no PID, network, IPC or UTS
 * namespace: the task sees the node as a plain job does (MPI, hostname, signals).
 */
import { assert } from "../../lib/assert.ts";
import type { CdiContainerEdits } from "../../devices/cdi.ts";
import type { ContainerMount } from "../../compat/container-request.ts";

export interface OciMount {
  destination: string;
  type?: string;
  source?: string;
  options?: string[];
}

export interface OciDevice {
  path: string;
  type: string;
  major: number;
  minor: number;
  fileMode?: number;
  uid?: number;
  gid?: number;
}

export interface OciDeviceRule {
  allow: boolean;
  type?: string;
  major?: number;
  minor?: number;
  access?: string;
}

export interface OciHook {
  path: string;
  args?: string[];
  env?: string[];
  timeout?: number;
}

export interface OciSpec {
  ociVersion: string;
  process: {
    terminal: boolean;
    user: { uid: number; gid: number; additionalGids?: number[] };
    args: string[];
    env: string[];
    cwd: string;
    capabilities?: Record<"bounding" | "effective" | "permitted", string[]>;
    noNewPrivileges: boolean;
  };
  root: { path: string; readonly: boolean };
  hostname?: string;
  mounts: OciMount[];
  hooks?: Record<string, OciHook[]>;
  linux: {
    namespaces: { type: string }[];
    uidMappings?: { containerID: number; hostID: number; size: number }[];
    gidMappings?: { containerID: number; hostID: number; size: number }[];
    devices: OciDevice[];
    resources: { devices: OciDeviceRule[] };
    cgroupsPath: string;
    maskedPaths: string[];
    readonlyPaths: string[];
  };
}

export interface TaskContainer {
  /** The prepared root file system (absolute). */
  rootfs: string;
  readonly: boolean;
  args: string[];
  /** The task's environment (job variables), already merged with the image's. */
  env: Record<string, string>;
  cwd: string;
  uid: number;
  gid: number;
  remapRoot: boolean;
  /** Bind mounts, sources absolute on the host. */
  mounts: ContainerMount[];
  /** Relative to the runtime's own cgroup (the step's): the container's own cgroup below it. */
  cgroupsPath: string;
  /** Merged CDI edits of the job's devices; device nodes carry their numbers. */
  devices: CdiContainerEdits;
}

/** Capabilities of a root process in the container (Docker's default set, smaller). */
const ROOT_CAPS = [
  "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL", "CAP_SETGID", "CAP_SETUID", "CAP_SETFCAP",
  "CAP_NET_BIND_SERVICE", "CAP_AUDIT_WRITE",
];

function baseMounts(ownPidNs: boolean): OciMount[] {
  return [
    // Without a PID namespace of its own the container shows the node's processes, as enroot does.
    { destination: "/proc", type: "proc", source: "proc", options: ownPidNs ? [] : ["nosuid", "noexec", "nodev"] },
    { destination: "/dev", type: "tmpfs", source: "tmpfs", options: ["nosuid", "strictatime", "mode=755", "size=65536k"] },
    { destination: "/dev/pts", type: "devpts", source: "devpts", options: ["nosuid", "noexec", "newinstance", "ptmxmode=0666", "mode=0620"] },
    { destination: "/dev/shm", type: "tmpfs", source: "shm", options: ["nosuid", "noexec", "nodev", "mode=1777", "size=65536k"] },
    // The host's /sys, read-only (a fresh sysfs needs a network namespace of the container's own).
    { destination: "/sys", type: "bind", source: "/sys", options: ["rbind", "nosuid", "noexec", "nodev", "ro"] },
  ];
}

function bindMount(m: ContainerMount): OciMount {
  const ro = m.flags.includes("ro");
  const rest = m.flags.filter((f) => f !== "ro" && f !== "rw" && f !== "bind" && f !== "rbind");
  return { destination: m.destination, type: "bind", source: m.source, options: ["rbind", ro ? "ro" : "rw", ...rest] };
}

function cdiParts(edits: CdiContainerEdits): Pick<OciSpec["linux"], "devices"> & { rules: OciDeviceRule[]; mounts: OciMount[]; hooks: Record<string, OciHook[]> } {
  const devices: OciDevice[] = [];
  const rules: OciDeviceRule[] = [];
  for (const d of edits.deviceNodes ?? []) {
    assert(d.major !== undefined && d.minor !== undefined, `device ${d.path} has its numbers`);
    const type = d.type ?? "c";
    devices.push({ path: d.path, type, major: d.major, minor: d.minor, fileMode: d.fileMode ?? 0o666, uid: d.uid ?? 0, gid: d.gid ?? 0 });
    rules.push({ allow: true, type, major: d.major, minor: d.minor, access: d.permissions ?? "rwm" });
  }
  const mounts = (edits.mounts ?? []).map((m) => ({ destination: m.containerPath, type: m.type ?? "bind", source: m.hostPath, options: m.options ?? ["rbind", "ro"] }));
  const hooks: Record<string, OciHook[]> = {};
  for (const h of edits.hooks ?? []) {
    const hook: OciHook = { path: h.path, ...(h.args ? { args: h.args } : {}), ...(h.env ? { env: h.env } : {}), ...(h.timeout ? { timeout: h.timeout } : {}) };
    hooks[h.hookName] = [...(hooks[h.hookName] ?? []), hook];
  }
  return { devices, rules, mounts, hooks };
}

/** config.json for one task. */
export function buildOciSpec(t: TaskContainer): OciSpec {
  assert(t.rootfs.startsWith("/"), "rootfs is absolute");
  assert(t.args.length > 0, "a container runs a command");
  assert(t.cgroupsPath !== "" && !t.cgroupsPath.startsWith("/"), "cgroup path is relative to the runtime's (the step's) cgroup");
  const cdi = cdiParts(t.devices);
  const asRoot = t.remapRoot || t.uid === 0;
  // Root mapped onto the job's user needs its own PID namespace to mount /proc.
  const userNs = t.remapRoot && t.uid !== 0;
  const env = { ...t.env };
  for (const line of t.devices.env ?? []) {
    const eq = line.indexOf("=");
    if (eq > 0) env[line.slice(0, eq)] = line.slice(eq + 1);
  }
  const user = userNs ? { uid: 0, gid: 0 } : { uid: t.uid, gid: t.gid };
  const gids = t.devices.additionalGids ?? [];
  const caps = asRoot ? ROOT_CAPS : [];
  const spec: OciSpec = {
    ociVersion: "1.0.2",
    process: {
      terminal: false,
      user: gids.length > 0 ? { ...user, additionalGids: [...gids] } : user,
      args: [...t.args],
      env: Object.entries(env).map(([k, v]) => `${k}=${v}`),
      cwd: t.cwd,
      capabilities: { bounding: caps, effective: caps, permitted: caps },
      noNewPrivileges: true,
    },
    root: { path: t.rootfs, readonly: t.readonly },
    mounts: [...baseMounts(userNs), ...cdi.mounts, ...t.mounts.map(bindMount)],
    linux: {
      namespaces: userNs ? [{ type: "mount" }, { type: "pid" }, { type: "user" }] : [{ type: "mount" }],
      devices: cdi.devices,
      // Only the default devices and the job's own GPUs; the job's cgroup above denies the others too.
      resources: { devices: [{ allow: false, access: "rwm" }, ...cdi.rules] },
      cgroupsPath: t.cgroupsPath,
      maskedPaths: ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/sys/firmware"],
      readonlyPaths: ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus"],
    },
  };
  if (userNs) {
    spec.linux.uidMappings = [{ containerID: 0, hostID: t.uid, size: 1 }];
    spec.linux.gidMappings = [{ containerID: 0, hostID: t.gid, size: 1 }];
  }
  if (Object.keys(cdi.hooks).length > 0) spec.hooks = cdi.hooks;
  assert(spec.linux.resources.devices[0]?.allow === false, "device access starts from deny-all");
  return spec;
}

/**
 * The task's environment inside the image: the job's variables, then the image's own (its
 * PATH, ...) except those named by --container-env, which keep the job's value (pyxis).
 */
export function mergeImageEnv(job: Record<string, string>, image: readonly string[], keep: readonly string[]): Record<string, string> {
  const out = { ...job };
  for (const line of image) {
    const eq = line.indexOf("=");
    if (eq <= 0) continue;
    const name = line.slice(0, eq);
    if (keep.includes(name) && job[name] !== undefined) continue;
    out[name] = line.slice(eq + 1);
  }
  return out;
}
