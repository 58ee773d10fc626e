/**
 * @module agent/container/cgroup-leftovers
 * The runtime creates the container's cgroup (a name relative to its own cgroup)
 * in every hierarchy. In the hierarchies the job's plan covers that is below the
 * step and goes with it; in the others (blkio, name=systemd, ...) it sits below
 * spurd's own cgroup, and the runtime leaves it behind when it exits before the
 * container's last process (an OOM kill of its first one, a cancel). This removes
 * such a directory in every hierarchy once the step's processes are gone.
 */
import { readFileSync, rmdirSync } from "node:fs";
import { join } from "node:path";

interface Hierarchy {
  mountPoint: string;
  /** Our own cgroup in it, relative to the mount's root. */
  own: string;
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

/** Every cgroup mount of this process's mount namespace with our own cgroup in it. */
export function ownHierarchies(cgroupText = read("/proc/self/cgroup"), mountinfo = read("/proc/self/mountinfo")): Hierarchy[] {
  const ownBy = new Map<string, string>();
  for (const line of cgroupText.split("\n")) {
    const m = /^\d+:([^:]*):(.*)$/.exec(line);
    if (m === null) continue;
    for (const c of (m[1] as string).split(",")) ownBy.set(c, m[2] as string);
  }
  const out: Hierarchy[] = [];
  for (const line of mountinfo.split("\n")) {
    const [left, right] = line.split(" - ");
    if (left === undefined || right === undefined) continue;
    const fields = left.split(" ");
    const [fstype, , superOptions] = right.split(" ");
    const root = fields[3] ?? "/";
    const mountPoint = fields[4] ?? "";
    let own: string | undefined;
    if (fstype === "cgroup2") own = ownBy.get("");
    else if (fstype === "cgroup") own = (superOptions ?? "").split(",").map((o) => ownBy.get(o)).find((p) => p !== undefined);
    if (own === undefined || mountPoint === "") continue;
    const relative = root !== "/" && own.startsWith(root) ? own.slice(root.length) : own;
    out.push({ mountPoint, own: relative });
  }
  return out;
}

/** Remove the empty directory `name` below our own cgroup in every hierarchy (best effort). */
export function removeLeftoverCgroups(name: string): void {
  if (!/^[A-Za-z0-9_.-]+$/.test(name) || name === "." || name === "..") return;
  for (const h of ownHierarchies()) {
    try {
      rmdirSync(join(h.mountPoint, h.own, name));
    } catch {
      /* absent, or not ours to remove */
    }
  }
}
