/**
 * Container options from the command line and #SBATCH to the job's environment
 * (Slurm's SPANK forwarding names) and back to a request on the node; pyxis's
 * mount syntax; image forms; the runtime choice and leftover-cgroup lookup.
 */
import { describe, expect, it } from "vitest";
import { parseArgs } from "../../../../src/compat/options/parse-args.ts";
import { sbatchRequest } from "../../../../src/compat/options/sbatch-flow.ts";
import { wrapScript } from "../../../../src/compat/options/script-directives.ts";
import { tableFor } from "../../../../src/compat/options/table.ts";
import { containerEnvOf, imageForm, parseMounts, requestFromEnv, spankKey } from "../../../../src/compat/container-request.ts";
import { findRuntime } from "../../../../src/agent/container/runtime.ts";
import { ownHierarchies } from "../../../../src/agent/container/cgroup-leftovers.ts";

const INVOKER = { cwd: "/home/alice/proj", hostname: "login1" };

function env(argv: string[], script = wrapScript("true")): Record<string, string> {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const r = sbatchRequest({ cmd: "sbatch", argv, env: {}, invoker: INVOKER, now: 0 }, parsed.value.options, { text: script, from: "wrap", args: [] });
  if (!r.ok) throw new Error(r.error.message);
  return containerEnvOf(r.value.spec.env);
}

function error(argv: string[]): string {
  const parsed = parseArgs("sbatch", argv);
  if (!parsed.ok) return parsed.error.message;
  const r = sbatchRequest({ cmd: "sbatch", argv, env: {}, invoker: INVOKER, now: 0 }, parsed.value.options, { text: wrapScript("true"), from: "wrap", args: [] });
  return r.ok ? "" : r.error.message;
}

describe("container options", () => {
  it("sbatch, srun and salloc all accept pyxis's options (one table)", () => {
    for (const cmd of ["sbatch", "srun", "salloc"] as const) {
      expect(tableFor(cmd).byName.get("container-image")?.support, cmd).toBe("ok");
      expect(tableFor(cmd).byName.get("container")?.support, cmd).toBe("ok");
    }
  });

  it("travel in the job's environment, paths made absolute against the submit directory", () => {
    expect(env(["--container-image=./img", "--container-mounts=./data:/data:ro+rprivate,/scratch:/s", "--container-writable", "--container-workdir=/w"])).toEqual({
      [spankKey("container-image")]: "/home/alice/proj/img",
      [spankKey("container-mounts")]: "/home/alice/proj/data:/data:ro+rprivate,/scratch:/s",
      [spankKey("container-writable")]: "1",
      [spankKey("container-workdir")]: "/w",
    });
    expect(env(["--container-image=ubuntu:22.04"])[spankKey("container-image")]).toBe("ubuntu:22.04");
    expect(env(["--container=bundle"])).toEqual({ SLURM_CONTAINER: "/home/alice/proj/bundle" });
  });

  it("#SBATCH lines set them too; the command line and the last of a pair win", () => {
    const script = "#!/bin/sh\n#SBATCH --container-image=/img/a\n#SBATCH --container-writable\ntrue\n";
    expect(env(["--container-readonly"], script)).toEqual({ [spankKey("container-image")]: "/img/a", [spankKey("container-writable")]: "0" });
    expect(env(["--container-remap-root", "--no-container-remap-root"])[spankKey("container-remap-root")]).toBe("0");
  });

  it("bad values fail at submit; unsupported ones say so", () => {
    expect(error(["--container-mounts=/a:b"])).toBe('--container-mounts: invalid mount "/a:b": the destination must start with "/" or "."');
    expect(error(["--container-mounts=/a:/b:bogus"])).toBe('--container-mounts: invalid mount "/a:/b:bogus": unknown flag "bogus"');
    expect(error(["--container-env=1BAD"])).toBe('--container-env: invalid variable name "1BAD"');
    expect(error(["--container-save=/x.sqsh"])).toBe("--container-save is not supported by Spur");
  });
});

describe("the request on the node", () => {
  it("none without an image or bundle; both is an error", () => {
    expect(requestFromEnv({ PATH: "/bin" })).toEqual({ ok: true, value: undefined });
    expect(requestFromEnv({ [spankKey("container-image")]: "/i", SLURM_CONTAINER: "/b" }).ok).toBe(false);
  });

  it("reads every setting back", () => {
    const r = requestFromEnv({
      [spankKey("container-image")]: "/img", [spankKey("container-mounts")]: "/d:/data:ro", [spankKey("container-env")]: "PATH,LANG",
      [spankKey("container-remap-root")]: "1", [spankKey("container-writable")]: "0", [spankKey("container-mount-home")]: "1",
    });
    expect(r).toEqual({ ok: true, value: {
      image: "/img", bundle: "", mounts: [{ source: "/d", destination: "/data", flags: ["ro"] }], keepEnv: ["PATH", "LANG"], workdir: "",
      remapRoot: true, writable: false, mountHome: true,
    } });
  });

  it("pyxis mount syntax", () => {
    expect(parseMounts("/a,/b:/c,/d:/e:ro+nosuid")).toEqual({ ok: true, value: [
      { source: "/a", destination: "/a", flags: [] }, { source: "/b", destination: "/c", flags: [] }, { source: "/d", destination: "/e", flags: ["ro", "nosuid"] },
    ] });
    expect(parseMounts("/a:/b:ro:x").ok).toBe(false);
  });

  it("image forms: a path starts with / or ./, anything else names a registry image", () => {
    expect(["/sq/a.sqsh", "./x", "../y"].map(imageForm)).toEqual(["path", "path", "path"]);
    expect(["ubuntu", "nvcr.io#nvidia/pytorch:24.01", "docker://alpine"].map(imageForm)).toEqual(["registry", "registry", "registry"]);
  });
});

describe("runtime and cgroup helpers", () => {
  it("ContainerRuntime= names a runtime that must exist", () => {
    expect(findRuntime("/nonexistent/runc")).toEqual({ ok: false, error: { code: "NoRuntime", message: "ContainerRuntime=/nonexistent/runc (spur.conf) is not installed on this node" } });
    expect(findRuntime("no-such-runtime-xyz").ok).toBe(false);
  });

  it("finds our own cgroup in every hierarchy from /proc/self/cgroup and mountinfo", () => {
    const cgroup = "6:freezer:/\n4:memory:/api/abc\n9:name=systemd:/\n0::/x\n";
    const mountinfo = [
      "30 25 0:26 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory",
      "31 25 0:27 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer",
      "32 25 0:28 / /sys/fs/cgroup/systemd rw - cgroup cgroup rw,xattr,name=systemd",
      "33 25 0:29 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw",
      "40 25 0:30 / /proc rw - proc proc rw",
    ].join("\n");
    expect(ownHierarchies(cgroup, mountinfo)).toEqual([
      { mountPoint: "/sys/fs/cgroup/memory", own: "/api/abc" }, { mountPoint: "/sys/fs/cgroup/freezer", own: "/" },
      { mountPoint: "/sys/fs/cgroup/systemd", own: "/" }, { mountPoint: "/sys/fs/cgroup/unified", own: "/x" },
    ]);
  });
});
