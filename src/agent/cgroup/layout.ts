/**
 * @module agent/cgroup/layout
 * Which cgroup layout this host offers, decided from the text of
 * /proc/self/mountinfo and /proc/self/cgroup (pure: the reader is detect.ts).
 * v1 (or hybrid): one mount per controller; Spur needs memory, cpuset, freezer
 * and cpuacct, and uses devices and pids when mounted. v2: one unified tree
 * whose cgroup.controllers lists what may be enabled. A host whose memory
 * controller is bound to v1 is treated as v1 even when a v2 tree is mounted too
 * (systemd's hybrid mode: the unified tree then has no controllers).
 */

export type Controller = "memory" | "cpuset" | "freezer" | "cpuacct" | "devices" | "pids";

export const V1_REQUIRED: readonly Controller[] = ["memory", "cpuset", "freezer", "cpuacct"];
export const V1_OPTIONAL: readonly Controller[] = ["devices", "pids"];
/** Controllers Spur enables in a v2 tree (cpu is for accounting via cpu.stat, which exists without it). */
export const V2_WANTED = ["cpuset", "memory", "pids"] as const;

export interface LayoutV1 {
  version: "v1";
  /** Controller → its mount point, e.g. memory → /sys/fs/cgroup/memory. */
  mounts: Partial<Record<Controller, string>>;
  /** Controller → the cgroup of this process inside that hierarchy ("/" or "/a/b"). */
  own: Partial<Record<Controller, string>>;
}

export interface LayoutV2 {
  version: "v2";
  mount: string;
  /** This process's cgroup inside the unified tree. */
  own: string;
  /** What the tree's root offers (cgroup.controllers), read by the caller. */
  controllers: string[];
}

export type Layout = LayoutV1 | LayoutV2;

export interface MountEntry {
  mountPoint: string;
  fsType: string;
  superOptions: string[];
}

/** mountinfo lines: "36 35 98:0 / /mnt rw,noatime master:1 - ext3 /dev/root rw,errors=continue". */
export function parseMountinfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split("\n")) {
    const dash = line.indexOf(" - ");
    if (dash < 0) continue;
    const left = line.slice(0, dash).split(" ");
    const right = line.slice(dash + 3).split(" ");
    const mountPoint = unescapeOctal(left[4] ?? "");
    out.push({ mountPoint, fsType: right[0] ?? "", superOptions: (right[2] ?? "").split(",") });
  }
  return out;
}

function unescapeOctal(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_m, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** /proc/self/cgroup lines "4:memory:/a/b" and "0::/x" → controller (or "" for v2) → path. */
export function parseSelfCgroup(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line.trim());
    if (m === null) continue;
    for (const name of (m[1] ?? "").split(",")) out.set(name, m[2] ?? "/");
  }
  return out;
}

export type LayoutResult = { ok: true; layout: Layout } | { ok: false; why: string };

/**
 * The layout from mountinfo and /proc/self/cgroup. `v2Controllers` is the root's
 * cgroup.controllers (the caller reads it only when a cgroup2 mount exists).
 * `force` is spur.conf CgroupPlugin: autodetect, cgroup/v1 or cgroup/v2.
 */
export function chooseLayout(mounts: MountEntry[], self: Map<string, string>, v2Controllers: string[], force = "autodetect"): LayoutResult {
  const v1 = v1Layout(mounts, self);
  const v2Mount = mounts.find((m) => m.fsType === "cgroup2");
  const v2: LayoutV2 | undefined =
    v2Mount === undefined ? undefined : { version: "v2", mount: v2Mount.mountPoint, own: self.get("") ?? "/", controllers: v2Controllers };
  if (force === "cgroup/v1") return v1;
  if (force === "cgroup/v2") return v2 ? { ok: true, layout: v2 } : { ok: false, why: "CgroupPlugin=cgroup/v2 but no cgroup2 file system is mounted" };
  if (v1.ok) return v1;
  if (v2 !== undefined && v2.controllers.includes("memory")) return { ok: true, layout: v2 };
  if (v2 !== undefined) return { ok: false, why: `cgroup v2 at ${v2.mount} offers no memory controller (${v1.why})` };
  return v1;
}

function v1Layout(mounts: MountEntry[], self: Map<string, string>): LayoutResult {
  const layout: LayoutV1 = { version: "v1", mounts: {}, own: {} };
  for (const m of mounts) {
    if (m.fsType !== "cgroup") continue;
    for (const c of [...V1_REQUIRED, ...V1_OPTIONAL]) {
      if (m.superOptions.includes(c) && layout.mounts[c] === undefined) {
        layout.mounts[c] = m.mountPoint;
        layout.own[c] = self.get(c) ?? "/";
      }
    }
  }
  const missing = V1_REQUIRED.filter((c) => layout.mounts[c] === undefined);
  if (missing.length > 0) return { ok: false, why: `no cgroup v1 mount for ${missing.join(", ")}` };
  return { ok: true, layout };
}
