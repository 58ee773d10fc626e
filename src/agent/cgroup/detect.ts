/**
 * @module agent/cgroup/detect
 * Reads the host's cgroup layout once at spurd start (thin I/O around
 * layout.ts) and checks that this process may create cgroups there. The answer
 * says in one line what spurd will do ("cgroup/v1", "cgroup/v2", or "none
 * (why)": jobs then run without containment, Slurm's proctrack/linuxproc
 * fallback), and carries what the planner needs (host CPUs and memory nodes,
 * swap accounting).
 */
import { accessSync, constants, existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { chooseLayout, parseMountinfo, parseSelfCgroup, type Layout } from "./layout.ts";
import { cgroupPath, rootName } from "./plan.ts";
import { parseCpuList } from "../../lib/cpu-list.ts";

export interface CgroupSupport {
  /** undefined: no containment on this host (see `summary`). */
  layout: Layout | undefined;
  /** "cgroup/v1", "cgroup/v2" or "none (why)": for logs, `spurd --discover`, scontrol show node. */
  summary: string;
  hostCpus: number[];
  hostMems: string;
  memsw: boolean;
  tag: string;
}

function read(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return "";
  }
}

function none(why: string, tag: string): CgroupSupport {
  return { layout: undefined, summary: `none (${why})`, hostCpus: parseCpuList(read("/sys/devices/system/cpu/online")), hostMems: "0", memsw: false, tag };
}

/**
 * Detect the layout and make spurd's root cgroup(s) `spur_<tag>`. `plugin` is
 * spur.conf CgroupPlugin (autodetect | cgroup/v1 | cgroup/v2 | disabled).
 */
export function detectCgroups(tag: string, plugin = "autodetect", create = true): CgroupSupport {
  if (plugin === "disabled") return none("CgroupPlugin=disabled", tag);
  const mounts = parseMountinfo(read("/proc/self/mountinfo"));
  const self = parseSelfCgroup(read("/proc/self/cgroup"));
  const v2 = mounts.find((m) => m.fsType === "cgroup2");
  const v2Controllers = v2 ? read(`${cgroupPath(v2.mountPoint, self.get("") ?? "/")}/cgroup.controllers`).trim().split(/\s+/).filter(Boolean) : [];
  const chosen = chooseLayout(mounts, self, v2Controllers, plugin);
  if (!chosen.ok) return none(chosen.why, tag);
  const layout = chosen.layout;
  const problem = create ? makeRoots(layout, tag) : checkWritable(layout);
  if (problem !== "") return none(problem, tag);
  if (layout.version === "v1") {
    const cpuset = cgroupPath(layout.mounts.cpuset ?? "", layout.own.cpuset ?? "/");
    const memory = cgroupPath(layout.mounts.memory ?? "", layout.own.memory ?? "/");
    return {
      layout, summary: "cgroup/v1", tag,
      hostCpus: parseCpuList(read(`${cpuset}/cpuset.effective_cpus`) || read(`${cpuset}/cpuset.cpus`)),
      hostMems: (read(`${cpuset}/cpuset.effective_mems`) || read(`${cpuset}/cpuset.mems`)).trim() || "0",
      memsw: existsSync(`${memory}/memory.memsw.limit_in_bytes`),
    };
  }
  const base = cgroupPath(layout.mount, layout.own);
  const cpus = read(`${base}/cpuset.cpus.effective`) || read("/sys/devices/system/cpu/online");
  const gaps = ["memory", "cpuset"].filter((c) => !layout.controllers.includes(c));
  return {
    layout, tag, memsw: false,
    summary: gaps.length === 0 ? "cgroup/v2" : `cgroup/v2 (without ${gaps.join(", ")})`,
    hostCpus: parseCpuList(cpus), hostMems: read(`${base}/cpuset.mems.effective`).trim() || "0",
  };
}

function checkWritable(layout: Layout): string {
  const dirs = layout.version === "v1" ? Object.entries(layout.mounts).map(([c, m]) => cgroupPath(m, layout.own[c as "memory"] ?? "/")) : [cgroupPath(layout.mount, layout.own)];
  for (const dir of dirs) {
    try {
      accessSync(dir, constants.W_OK);
    } catch {
      return `${dir} is not writable by uid ${process.getuid?.() ?? "?"}`;
    }
  }
  return "";
}

/** Create spur_<tag> in every hierarchy; on v2 also enable the controllers below spurd's cgroup. */
function makeRoots(layout: Layout, tag: string): string {
  const roots =
    layout.version === "v1"
      ? Object.entries(layout.mounts).map(([c, m]) => cgroupPath(m, layout.own[c as "memory"] ?? "/", rootName(tag)))
      : [cgroupPath(layout.mount, layout.own, rootName(tag))];
  for (const dir of new Set(roots)) {
    try {
      mkdirSync(dir, { recursive: true });
    } catch (error) {
      return `cannot create ${dir}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`;
    }
  }
  if (layout.version === "v2") {
    const base = cgroupPath(layout.mount, layout.own);
    const enable = ["cpuset", "memory", "pids"].filter((c) => layout.controllers.includes(c));
    try {
      if (enable.length > 0) writeFileSync(`${base}/cgroup.subtree_control`, enable.map((c) => `+${c}`).join(" "));
    } catch {
      // A non-root cgroup with processes in it cannot delegate controllers (v2's no-internal-process rule).
      layout.controllers = [];
    }
  }
  return "";
}

/** Remove spurd's spur_<tag> roots if nothing is left in them (at shutdown). */
export function removeSpurRoots(support: CgroupSupport): void {
  const layout = support.layout;
  if (layout === undefined) return;
  const roots =
    layout.version === "v1"
      ? Object.entries(layout.mounts).map(([c, m]) => cgroupPath(m, layout.own[c as "memory"] ?? "/", rootName(support.tag)))
      : [cgroupPath(layout.mount, layout.own, rootName(support.tag))];
  for (const dir of new Set(roots)) {
    try {
      rmdirSync(dir);
    } catch {
      /* jobs still running under a detached stepd, or already gone */
    }
  }
}
