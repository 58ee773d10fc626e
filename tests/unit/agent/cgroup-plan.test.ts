/**
 * The cgroup layout detection and planner against recorded /proc texts and a
 * fake tree: which layout a host offers (v1, hybrid, pure v2), and exactly
 * which directories and files a job step's plan creates and writes.
 */
import { describe, expect, it } from "vitest";
import { mkdtempSync, mkdirSync, readFileSync, existsSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chooseLayout, parseMountinfo, parseSelfCgroup, type Layout } from "../../../src/agent/cgroup/layout.ts";
import { cgroupPath, planStep, type StepLimits } from "../../../src/agent/cgroup/plan.ts";
import { applyPlan, joinCommand, removeTrees, subtree } from "../../../src/agent/cgroup/fs.ts";

const HYBRID = `
25 30 0:22 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
26 25 0:23 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw,nsdelegate
28 25 0:25 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid - cgroup cgroup rw,cpu,cpuacct
29 25 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory
30 25 0:27 / /sys/fs/cgroup/cpuset rw,nosuid - cgroup cgroup rw,cpuset
31 25 0:28 / /sys/fs/cgroup/freezer rw,nosuid - cgroup cgroup rw,freezer
32 25 0:29 / /sys/fs/cgroup/devices rw,nosuid - cgroup cgroup rw,devices
`;
const SELF_V1 = "12:memory:/process_api/abc\n5:cpu,cpuacct:/\n3:cpuset:/\n2:freezer:/\n1:devices:/\n0::/\n";
const PURE_V2 = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";

const limits = (over: Partial<StepLimits> = {}): StepLimits => ({
  tag: "t1", jobId: 7, step: "batch", memBytes: 100 << 20, cpus: "1", hostCpus: "0-1", hostMems: "0",
  denyDevices: [{ kind: "c", major: 242, minor: 1 }], memsw: true, swapBytes: 0, ...over,
});

describe("layout", () => {
  it("parses mountinfo (octal escapes too) and /proc/self/cgroup with co-mounted controllers", () => {
    expect(parseMountinfo("1 2 0:1 / /a\\040b rw - cgroup cg rw,memory")[0]).toEqual({ mountPoint: "/a b", fsType: "cgroup", superOptions: ["rw", "memory"] });
    const self = parseSelfCgroup(SELF_V1);
    expect(self.get("memory")).toBe("/process_api/abc");
    expect(self.get("cpuacct")).toBe("/");
    expect(self.get("")).toBe("/");
  });

  it("prefers v1 on a hybrid host (the unified tree has no controllers there)", () => {
    const r = chooseLayout(parseMountinfo(HYBRID), parseSelfCgroup(SELF_V1), []);
    expect(r.ok && r.layout.version).toBe("v1");
    if (r.ok && r.layout.version === "v1") {
      expect(r.layout.mounts.cpuacct).toBe("/sys/fs/cgroup/cpu,cpuacct");
      expect(r.layout.own.memory).toBe("/process_api/abc");
      expect(r.layout.mounts.pids).toBeUndefined();
    }
  });

  it("takes v2 when only cgroup2 is mounted, and says why when it offers no memory controller", () => {
    const self = parseSelfCgroup("0::/system.slice/spurd.service\n");
    const r = chooseLayout(parseMountinfo(PURE_V2), self, ["cpuset", "cpu", "memory", "pids"]);
    expect(r.ok && r.layout).toEqual({ version: "v2", mount: "/sys/fs/cgroup", own: "/system.slice/spurd.service", controllers: ["cpuset", "cpu", "memory", "pids"] });
    const bare = chooseLayout(parseMountinfo(PURE_V2), self, ["pids"]);
    expect(bare.ok).toBe(false);
    expect(!bare.ok && bare.why).toMatch(/no memory controller/);
    expect(chooseLayout([], self, []).ok).toBe(false);
    const forced = chooseLayout(parseMountinfo(HYBRID), parseSelfCgroup(SELF_V1), [], "cgroup/v2");
    expect(forced.ok && forced.layout.version).toBe("v2");
  });
});

describe("planStep v1", () => {
  const layout = (root: string): Layout => ({
    version: "v1",
    mounts: { memory: `${root}/memory`, cpuset: `${root}/cpuset`, freezer: `${root}/freezer`, cpuacct: `${root}/cpu,cpuacct`, devices: `${root}/devices` },
    own: { memory: "/process_api/abc", cpuset: "/", freezer: "/", cpuacct: "/", devices: "/" },
  });

  it("nests spur_<tag>/job_<id>/step_<name> under spurd's own cgroup in every hierarchy, limits on the job", () => {
    const p = planStep(layout("/cg"), limits());
    expect(p.procs.sort()).toEqual([
      "/cg/cpu,cpuacct/spur_t1/job_7/step_batch/cgroup.procs", "/cg/cpuset/spur_t1/job_7/step_batch/cgroup.procs",
      "/cg/devices/spur_t1/job_7/step_batch/cgroup.procs", "/cg/freezer/spur_t1/job_7/step_batch/cgroup.procs",
      "/cg/memory/process_api/abc/spur_t1/job_7/step_batch/cgroup.procs",
    ]);
    const w = Object.fromEntries(p.writes.map((x) => [x.path.replace("/cg/", ""), x.value]));
    expect(w["memory/process_api/abc/spur_t1/job_7/memory.limit_in_bytes"]).toBe(String(100 << 20));
    expect(w["memory/process_api/abc/spur_t1/job_7/memory.memsw.limit_in_bytes"]).toBe(String(100 << 20));
    expect(w["cpuset/spur_t1/cpuset.cpus"]).toBe("0-1");
    expect(w["cpuset/spur_t1/job_7/cpuset.cpus"]).toBe("1");
    expect(w["cpuset/spur_t1/job_7/step_batch/cpuset.mems"]).toBe("0");
    expect(w["devices/spur_t1/job_7/devices.deny"]).toBe("c 242:1 rw");
    expect(p.kill).toEqual({ kind: "freezer", dir: "/cg/freezer/spur_t1/job_7" });
    expect(p.stepKill.dir).toBe("/cg/freezer/spur_t1/job_7/step_batch");
    expect(p.stats.memoryDir).toBe("/cg/memory/process_api/abc/spur_t1/job_7/step_batch");
    expect(p.gaps).toEqual([]);
    // parents before children, each once
    for (const d of p.mkdirs) {
      const parent = d.slice(0, d.lastIndexOf("/"));
      if (parent.endsWith("spur_t1") || parent.includes("job_")) expect(p.mkdirs.indexOf(parent)).toBeLessThan(p.mkdirs.indexOf(d));
    }
    expect(new Set(p.mkdirs).size).toBe(p.mkdirs.length);
  });

  it("writes no memory limit for 0, no memsw without swap accounting, and says when devices cannot be isolated", () => {
    const noMem = planStep(layout("/cg"), limits({ memBytes: 0 }));
    expect(noMem.writes.some((w) => w.path.includes("memory."))).toBe(false);
    const noSw = planStep(layout("/cg"), limits({ memsw: false }));
    expect(noSw.writes.some((w) => w.path.includes("memsw"))).toBe(false);
    const l = layout("/cg");
    if (l.version === "v1") delete l.mounts.devices;
    expect(planStep(l, limits()).gaps[0]).toMatch(/GPUs not isolated/);
  });

  it("refuses names that could escape the tree", () => {
    expect(() => planStep(layout("/cg"), limits({ tag: "../x" }))).toThrow();
    expect(() => planStep(layout("/cg"), limits({ step: "a/b" }))).toThrow();
  });

  it("applies to a fake tree and removes it again, deepest first", () => {
    const root = mkdtempSync(join(tmpdir(), "cg-fake-"));
    for (const c of ["memory/process_api/abc", "cpuset", "freezer", "cpu,cpuacct", "devices"]) mkdirSync(join(root, c), { recursive: true });
    const p = planStep(layout(root), limits());
    expect(applyPlan(p)).toBe("");
    expect(readFileSync(join(root, "cpuset/spur_t1/job_7/cpuset.cpus"), "utf8")).toBe("1");
    expect(existsSync(join(root, "freezer/spur_t1/job_7/step_batch"))).toBe(true);
    expect(applyPlan(p)).toBe(""); // idempotent: a second step of the same job
    expect(subtree(join(root, "freezer/spur_t1")).at(-1)).toBe(join(root, "freezer/spur_t1"));
    // A real cgroup directory is empty of regular files; the fake one holds what we wrote, so rmdir fails there.
    expect(removeTrees(p.jobDirs).length).toBeGreaterThan(0);
    expect(removeTrees([join(root, "freezer/spur_t1")])).toEqual([]);
  });

  it("reports the first write that fails", () => {
    const root = mkdtempSync(join(tmpdir(), "cg-fake-"));
    writeFileSync(join(root, "memory"), "not a directory");
    const l = layout(root);
    expect(applyPlan(planStep(l, limits()))).toMatch(/^cannot create cgroup/);
  });
});

describe("ConstrainSwapSpace in the plan", () => {
  const v1 = (): Layout => ({ version: "v1", mounts: { memory: "/cg/memory" }, own: { memory: "/" } });
  const v2: Layout = { version: "v2", mount: "/cg", own: "/", controllers: ["memory"] };
  const write = (p: ReturnType<typeof planStep>, name: string) => p.writes.find((w) => w.path.endsWith(`/${name}`))?.value;

  it("without ConstrainCores (cpus \"\"): v2 writes no cpuset, v1 populates the job's cpuset with every host CPU", () => {
    const v2c: Layout = { version: "v2", mount: "/cg", own: "/", controllers: ["cpuset", "memory"] };
    expect(planStep(v2c, limits({ cpus: "" })).writes.some((w) => w.path.endsWith("/cpuset.cpus"))).toBe(false);
    const v1c: Layout = { version: "v1", mounts: { cpuset: "/cg/cpuset" }, own: { cpuset: "/" } };
    expect(planStep(v1c, limits({ cpus: "" })).writes.filter((w) => w.path.endsWith("job_7/cpuset.cpus")).map((w) => w.value)).toEqual(["0-1"]);
  });

  it("limits RAM + swap only when swap is constrained (v1 memsw, v2 memory.swap.max)", () => {
    const { swapBytes: _, ...noSwap } = limits();
    expect(write(planStep(v1(), noSwap), "memory.memsw.limit_in_bytes")).toBeUndefined();
    expect(write(planStep(v2, noSwap), "memory.swap.max")).toBeUndefined();
    expect(write(planStep(v1(), limits({ swapBytes: 50 << 20 })), "memory.memsw.limit_in_bytes")).toBe(String(150 << 20));
    expect(write(planStep(v2, limits({ swapBytes: 50 << 20 })), "memory.swap.max")).toBe(String(50 << 20));
    expect(write(planStep(v2, limits({ swapBytes: 50 << 20 })), "memory.max")).toBe(String(100 << 20));
  });
});

describe("planStep v2", () => {
  const v2: Layout = { version: "v2", mount: "/sys/fs/cgroup", own: "/system.slice/spurd.service", controllers: ["cpuset", "cpu", "io", "memory", "pids"] };

  it("enables controllers down to the job, limits on the job, processes in the step leaf", () => {
    const p = planStep(v2, limits({ memsw: false }));
    const base = "/sys/fs/cgroup/system.slice/spurd.service";
    expect(p.mkdirs).toEqual([`${base}/spur_t1`, `${base}/spur_t1/job_7`, `${base}/spur_t1/job_7/step_batch`]);
    expect(p.writes).toEqual([
      { path: `${base}/cgroup.subtree_control`, value: "+cpuset +memory +pids" },
      { path: `${base}/spur_t1/cgroup.subtree_control`, value: "+cpuset +memory +pids" },
      { path: `${base}/spur_t1/job_7/cgroup.subtree_control`, value: "+cpuset +memory +pids" },
      { path: `${base}/spur_t1/job_7/cpuset.cpus`, value: "1" },
      { path: `${base}/spur_t1/job_7/cpuset.mems`, value: "0" },
      { path: `${base}/spur_t1/job_7/memory.max`, value: String(100 << 20) },
      { path: `${base}/spur_t1/job_7/memory.swap.max`, value: "0" },
    ]);
    expect(p.procs).toEqual([`${base}/spur_t1/job_7/step_batch/cgroup.procs`]);
    expect(p.kill).toEqual({ kind: "cgroup.kill", dir: `${base}/spur_t1/job_7` });
    expect(p.gaps).toEqual([]);
    expect(p.deviceFilter).toEqual({ dir: `${base}/spur_t1/job_7`, deny: [{ kind: "c", major: 242, minor: 1 }] });
  });

  it("tracks only (no limits) when the tree delegates no controllers", () => {
    const p = planStep({ ...v2, controllers: [] }, limits({ denyDevices: [] }));
    expect(p.writes).toEqual([]);
    expect(p.procs).toHaveLength(1);
  });

  it("applies to a fake v2 tree: subtree_control down to the job, limits on the job", () => {
    const root = mkdtempSync(join(tmpdir(), "cg2-fake-"));
    mkdirSync(join(root, "system.slice/spurd.service"), { recursive: true });
    const p = planStep({ ...v2, mount: root }, limits({ memsw: false, denyDevices: [] }));
    expect(applyPlan(p)).toBe("");
    const job = join(root, "system.slice/spurd.service/spur_t1/job_7");
    expect(readFileSync(join(job, "memory.max"), "utf8")).toBe(String(100 << 20));
    expect(readFileSync(join(job, "cgroup.subtree_control"), "utf8")).toBe("+cpuset +memory +pids");
    expect(existsSync(join(job, "step_batch"))).toBe(true);
    expect(p.stats).toEqual({ version: "v2", memoryDir: join(job, "step_batch"), cpuDir: join(job, "step_batch"), jobMemoryDir: job });
  });

  it("joins paths with single slashes", () => {
    expect(cgroupPath("/sys/fs/cgroup", "/", "spur_x")).toBe("/sys/fs/cgroup/spur_x");
    expect(cgroupPath("/sys/fs/cgroup/", "/a/b/", "c")).toBe("/sys/fs/cgroup/a/b/c");
  });
});

describe("joinCommand", () => {
  it("joins every hierarchy before exec, and runs argv untouched without cgroups", () => {
    expect(joinCommand([], ["a", "b"])).toEqual(["a", "b"]);
    const cmd = joinCommand(["/x/cgroup.procs", "/y it's/cgroup.procs"], ["setpriv", "--", "script"]);
    expect(cmd.slice(0, 2)).toEqual(["/bin/sh", "-c"]);
    expect(cmd[2]).toContain("echo $$ > '/x/cgroup.procs' && echo $$ > '/y it'\\''s/cgroup.procs'");
    expect(cmd.slice(3)).toEqual(["spur-task", "setpriv", "--", "script"]);
  });
});
