/**
 * The pure container pieces: the OCI config.json builder (user, root, mounts, the
 * step-relative cgroup, CDI edits applied), CDI name resolution against specs made
 * by Spur's own generator and from a node's device files, the image/job environment
 * merge, and the runtime's exit status read as Slurm reports it.
 */
import { describe, expect, it } from "vitest";
import { buildOciSpec, mergeImageEnv, type TaskContainer } from "../../../../src/agent/container/oci-spec.ts";
import { kindOfFiles, resolveCdiNames, specFromFiles, splitCdiName } from "../../../../src/agent/container/cdi-edits.ts";
import { runtimeExit } from "../../../../src/agent/container/launch.ts";
import { buildCdiSpec, cdiDeviceNames, validateCdiSpec, type CdiSpec } from "../../../../src/devices/cdi.ts";
import { discoverDevices } from "../../../../src/devices/discover.ts";
import { MI300X, fixtureRoot } from "../../devices/fixtures.ts";

const task = (over: Partial<TaskContainer> = {}): TaskContainer => ({
  rootfs: "/spool/containers/7.batch/rootfs", readonly: true, args: ["/bin/sh", "-c", "true"], env: { PATH: "/usr/bin:/bin", SLURM_JOB_ID: "7" },
  cwd: "/home/alice", uid: 1001, gid: 1001, remapRoot: false, mounts: [], cgroupsPath: "spur-t-7-batch-0", devices: {}, ...over,
});

function amdSpec(): CdiSpec {
  const inv = discoverDevices(fixtureRoot(MI300X));
  if (!inv.ok) throw new Error(inv.error.message);
  const spec = buildCdiSpec(inv.value, "amd");
  if (!spec.ok) throw new Error(spec.error.message);
  return spec.value;
}

describe("buildOciSpec", () => {
  it("runs the job's command as the job's user, read-only root, no new privileges, no capabilities", () => {
    const s = buildOciSpec(task());
    expect(s.process.user).toEqual({ uid: 1001, gid: 1001 });
    expect(s.process.args).toEqual(["/bin/sh", "-c", "true"]);
    expect(s.process.env).toEqual(["PATH=/usr/bin:/bin", "SLURM_JOB_ID=7"]);
    expect(s.process.cwd).toBe("/home/alice");
    expect(s.process.noNewPrivileges).toBe(true);
    expect(s.process.capabilities?.effective).toEqual([]);
    expect(s.root).toEqual({ path: "/spool/containers/7.batch/rootfs", readonly: true });
    expect(buildOciSpec(task({ readonly: false })).root.readonly).toBe(false);
  });

  it("shares the node's PID, network, IPC and UTS namespaces (as enroot), and puts the container below the step's cgroup", () => {
    const s = buildOciSpec(task());
    expect(s.linux.namespaces).toEqual([{ type: "mount" }]);
    expect(s.linux.cgroupsPath).toBe("spur-t-7-batch-0");
    expect(s.linux.uidMappings).toBeUndefined();
    expect(() => buildOciSpec(task({ cgroupsPath: "/abs" }))).toThrow();
  });

  it("--container-remap-root: root inside a user namespace mapped onto the job's user, with its own PID namespace for /proc", () => {
    const s = buildOciSpec(task({ remapRoot: true }));
    expect(s.process.user).toEqual({ uid: 0, gid: 0 });
    expect(s.linux.namespaces.map((n) => n.type)).toEqual(["mount", "pid", "user"]);
    expect(s.linux.uidMappings).toEqual([{ containerID: 0, hostID: 1001, size: 1 }]);
    expect(s.linux.gidMappings).toEqual([{ containerID: 0, hostID: 1001, size: 1 }]);
    expect(s.process.capabilities?.bounding).toContain("CAP_CHOWN");
  });

  it("bind mounts: read-write unless ro, extra flags kept, after the standard file systems", () => {
    const s = buildOciSpec(task({ mounts: [{ source: "/data", destination: "/data", flags: ["ro", "rprivate"] }, { source: "/scratch", destination: "/s", flags: [] }] }));
    expect(s.mounts.map((m) => m.destination)).toEqual(["/proc", "/dev", "/dev/pts", "/dev/shm", "/sys", "/data", "/s"]);
    expect(s.mounts[5]).toEqual({ destination: "/data", type: "bind", source: "/data", options: ["rbind", "ro", "rprivate"] });
    expect(s.mounts[6]?.options).toEqual(["rbind", "rw"]);
  });

  it("applies CDI edits: device nodes created and allowed after deny-all, variables, mounts, hooks, groups", () => {
    const s = buildOciSpec(task({
      devices: {
        deviceNodes: [{ path: "/dev/dri/renderD128", type: "c", major: 226, minor: 128, permissions: "rw" }],
        env: ["HSA_OVERRIDE=1", "SLURM_JOB_ID=overridden"],
        mounts: [{ hostPath: "/usr/lib/libamd.so", containerPath: "/usr/lib/libamd.so", options: ["ro", "bind"] }],
        hooks: [{ hookName: "createContainer", path: "/usr/bin/hook", args: ["hook", "x"] }],
        additionalGids: [44],
      },
    }));
    expect(s.linux.devices).toEqual([{ path: "/dev/dri/renderD128", type: "c", major: 226, minor: 128, fileMode: 0o666, uid: 0, gid: 0 }]);
    expect(s.linux.resources.devices).toEqual([{ allow: false, access: "rwm" }, { allow: true, type: "c", major: 226, minor: 128, access: "rw" }]);
    expect(s.process.env).toContain("HSA_OVERRIDE=1");
    expect(s.process.env).toContain("SLURM_JOB_ID=overridden");
    expect(s.mounts.at(-1)).toEqual({ destination: "/usr/lib/libamd.so", type: "bind", source: "/usr/lib/libamd.so", options: ["ro", "bind"] });
    expect(s.hooks).toEqual({ createContainer: [{ path: "/usr/bin/hook", args: ["hook", "x"] }] });
    expect(s.process.user.additionalGids).toEqual([44]);
  });
});

describe("CDI names", () => {
  it("resolve against the generator's amd.com/gpu spec: spec-wide /dev/kfd once, then each GPU's nodes", () => {
    const r = resolveCdiNames([amdSpec()], cdiDeviceNames("amd", [0, 3]));
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.deviceNodes?.map((d) => d.path)).toEqual(["/dev/kfd", "/dev/dri/card1", "/dev/dri/renderD128", "/dev/dri/card4", "/dev/dri/renderD131"]);
  });

  it("unknown names fail as in CDI; an earlier spec of a kind wins", () => {
    expect(resolveCdiNames([amdSpec()], ["amd.com/gpu=99", "nvidia.com/gpu=0"])).toEqual({
      ok: false, error: { code: "UnresolvableCdiDevices", message: "unresolvable CDI devices amd.com/gpu=99, nvidia.com/gpu=0" },
    });
    const a = specFromFiles("spur.local/gpu", [{ path: "/a", kind: "c", major: 1, minor: 1 }]);
    const b = specFromFiles("spur.local/gpu", [{ path: "/b", kind: "c", major: 1, minor: 2 }]);
    const r = resolveCdiNames([a, b], ["spur.local/gpu=0"]);
    expect(r.ok && r.value.deviceNodes?.[0]?.path).toBe("/a");
  });

  it("a node's GPU files become a valid spec named by index (files that are not devices are skipped)", () => {
    const spec = specFromFiles("spur.local/gpu", [{ path: "/tmp/dev/g0", kind: "c", major: 242, minor: 0 }, undefined, { path: "/tmp/dev/g2", kind: "c", major: 242, minor: 2 }]);
    expect(validateCdiSpec(spec)).toEqual([]);
    expect(spec.devices.map((d) => d.name)).toEqual(["0", "2", "all"]);
    const r = resolveCdiNames([spec], ["spur.local/gpu=2"]);
    expect(r.ok && r.value.deviceNodes).toEqual([{ path: "/tmp/dev/g2", type: "c", major: 242, minor: 2, permissions: "rw" }]);
  });

  it("kind from the files' names; qualified names split", () => {
    expect(kindOfFiles(["/dev/nvidia0", "/dev/nvidia1"])).toBe("nvidia.com/gpu");
    expect(kindOfFiles(["/dev/dri/renderD128"])).toBe("amd.com/gpu");
    expect(kindOfFiles(["/tmp/fakegpu0"])).toBe("spur.local/gpu");
    expect(splitCdiName("amd.com/gpu=GPU-51e3")).toEqual({ kind: "amd.com/gpu", name: "GPU-51e3" });
    expect(splitCdiName("gpu=0")).toBeUndefined();
  });
});

describe("environment and exit status", () => {
  it("the image's variables win, except those named by --container-env", () => {
    const job = { PATH: "/host/bin", HOME: "/home/a", LANG: "C" };
    expect(mergeImageEnv(job, ["PATH=/usr/local/bin:/usr/bin", "LANG=en_US.UTF-8", "CUDA_VERSION=12"], ["LANG"])).toEqual({
      PATH: "/usr/local/bin:/usr/bin", HOME: "/home/a", LANG: "C", CUDA_VERSION: "12",
    });
  });

  it("the runtime's 128+N is the container's death by signal N", () => {
    expect(runtimeExit(137, 0)).toEqual({ exitCode: 0, exitSignal: 9 });
    expect(runtimeExit(3, 0)).toEqual({ exitCode: 3, exitSignal: 0 });
    expect(runtimeExit(0, 15)).toEqual({ exitCode: 0, exitSignal: 15 });
  });
});
