import { describe, expect, it } from "vitest";
import {
  CDI_VERSION_LATEST, buildCdiSpec, cdiDeviceNames, cdiSpecFileName, minimumCdiVersion, parseCdiKind, renderCdiJson, validateCdiSpec,
  type CdiSpec,
} from "../../../src/devices/cdi.ts";
import { renderCdiYaml } from "../../../src/roles/devices-cli.ts";
import { discoverDevices } from "../../../src/devices/discover.ts";
import { emptyInventory, type DeviceInventory } from "../../../src/devices/inventory.ts";
import { H100_MIG, MI300X, fixtureRoot, nvidiaTexts } from "./fixtures.ts";

function inventory(layout: string, nvidia: boolean): DeviceInventory {
  const inv = discoverDevices(fixtureRoot(layout), nvidia ? nvidiaTexts(layout) : undefined);
  if (!inv.ok) throw new Error(inv.error.message);
  return inv.value;
}

function spec(layout: string, vendor: "amd" | "nvidia"): CdiSpec {
  const s = buildCdiSpec(inventory(layout, vendor === "nvidia"), vendor);
  if (!s.ok) throw new Error(s.error.message);
  return s.value;
}

const paths = (s: CdiSpec, name: string) => s.devices.find((d) => d.name === name)?.containerEdits.deviceNodes?.map((n) => n.path);

describe("buildCdiSpec", () => {
  it("amd.com/gpu: card + render node per GPU by index and UUID, /dev/kfd for any, all", () => {
    const s = spec(MI300X, "amd");
    expect(s.kind).toBe("amd.com/gpu");
    expect(s.cdiVersion).toBe("0.5.0"); // device names starting with a digit need 0.5.0
    expect(s.devices.map((d) => d.name)).toHaveLength(17);
    expect(s.devices[0]).toEqual({
      name: "0",
      containerEdits: { deviceNodes: [
        { path: "/dev/dri/card1", type: "c", major: 226, minor: 1, permissions: "rw" },
        { path: "/dev/dri/renderD128", type: "c", major: 226, minor: 128, permissions: "rw" },
      ] },
    });
    expect(paths(s, "GPU-51e365f4c7610e51")).toEqual(["/dev/dri/card1", "/dev/dri/renderD128"]);
    expect(paths(s, "all")).toHaveLength(16);
    expect(s.containerEdits).toEqual({ deviceNodes: [{ path: "/dev/kfd", type: "c", major: 235, minor: 0, permissions: "rw" }] });
    expect(validateCdiSpec(s)).toEqual([]);
  });

  it("nvidia.com/gpu: /dev/nvidiaN per GPU, MIG instances as g:m and MIG UUID, control and UVM nodes shared", () => {
    const s = spec(H100_MIG, "nvidia");
    expect(s.kind).toBe("nvidia.com/gpu");
    expect(paths(s, "7")).toEqual(["/dev/nvidia7"]);
    expect(paths(s, "0:1")).toEqual(["/dev/nvidia0", "/dev/nvidia-caps/nvidia-cap30", "/dev/nvidia-caps/nvidia-cap31"]);
    const migUuid = s.devices.find((d) => d.name.startsWith("MIG-"))!;
    expect(migUuid.containerEdits).toEqual(s.devices.find((d) => d.name === "0:0")!.containerEdits);
    expect(s.devices.map((d) => d.name).filter((n) => n.startsWith("GPU-"))).toHaveLength(8);
    expect(s.containerEdits?.deviceNodes?.map((n) => n.path)).toEqual(["/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools"]);
    expect(paths(s, "all")).toHaveLength(8 + 6);
    expect(validateCdiSpec(s)).toEqual([]);
  });

  it("refuses a vendor without GPUs", () => {
    expect(buildCdiSpec(inventory(MI300X, false), "nvidia")).toEqual({ ok: false, error: { code: "NoGpus", message: "no nvidia GPUs to describe" } });
    expect(buildCdiSpec(emptyInventory(), "amd").ok).toBe(false);
  });
});

describe("rendering", () => {
  it("JSON round-trips", () => {
    const s = spec(MI300X, "amd");
    const text = renderCdiJson(s);
    expect(text.endsWith("}\n")).toBe(true);
    expect(JSON.parse(text)).toEqual(s);
  });

  it("YAML reads back (Bun's YAML parser) to the same spec", () => {
    for (const s of [spec(MI300X, "amd"), spec(H100_MIG, "nvidia")]) {
      const text = renderCdiYaml(s);
      expect(Bun.YAML.parse(text)).toEqual(s);
    }
    expect(renderCdiYaml(spec(MI300X, "amd")).split("\n").slice(0, 9)).toEqual([
      "cdiVersion: 0.5.0", "kind: amd.com/gpu", "devices:", '  - name: "0"', "    containerEdits:", "      deviceNodes:",
      "        - path: /dev/dri/card1", "          type: c", "          major: 226",
    ]);
  });

  it("the YAML reads back as the spec, whatever its strings look like", () => {
    const built = buildCdiSpec(inventory(MI300X, false), "amd");
    if (!built.ok) throw new Error(built.error.message);
    const spec: CdiSpec = built.value;
    const tricky = { ...spec, devices: spec.devices.map((d, i: number) => ({ ...d, annotations: { v: ["0", "true", "no", "~", "a: b", "#c", "-x", "", " pad", "0:1", "line\nbreak", "é"][i % 12] ?? "" } })) };
    const text = renderCdiYaml(tricky as CdiSpec);
    expect(text.endsWith("\n")).toBe(true);
    expect(Bun.YAML.parse(text)).toEqual(JSON.parse(JSON.stringify(tricky)));
  });
});

describe("validateCdiSpec", () => {
  const good = { cdiVersion: "0.6.0", kind: "vendor.com/device", devices: [{ name: "dev1", containerEdits: { env: ["A=1"] } }] };

  it("accepts a minimal spec and lists every problem of a bad one", () => {
    expect(validateCdiSpec(good)).toEqual([]);
    expect(validateCdiSpec(null)).toEqual(["spec: not an object"]);
    expect(validateCdiSpec({ kind: "foo", devices: [], extra: 1 })).toEqual([
      'spec: unknown field "extra"',
      "cdiVersion: required",
      'kind: invalid kind "foo", want vendor.com/class',
      "devices: at least one device is required",
    ]);
  });

  it("checks kinds and device names by the spec's character rules", () => {
    expect(parseCdiKind("foo.bar.baz/foo-bar123.B_az")).toEqual(["foo.bar.baz", "foo-bar123.B_az"]);
    for (const bad of ["foo", "vendor.com/foo/", "vendor.com/foo/bar", "/x", "1vendor.com/x", "vendor.com/-x"]) expect(parseCdiKind(bad), bad).toBeUndefined();
    const named = (name: string) => validateCdiSpec({ ...good, devices: [{ name, containerEdits: {} }] });
    for (const ok of ["0", "gpu0", "0:1", "GPU-51e365f4c7610e51", "a.b_c-d"]) expect(named(ok), ok).toEqual([]);
    for (const bad of ["", "-a", "a-", "a b", "a/b", "a=b"]) expect(named(bad).length, bad).toBe(1);
  });

  it("checks edits: device nodes, mounts, hooks, env", () => {
    const edits = {
      env: ["NOEQUALS"],
      deviceNodes: [{ path: "" }, { path: "/dev/x", type: "z", permissions: "rx", major: 1.5 }],
      mounts: [{ hostPath: "/a" }],
      hooks: [{ hookName: "sometime", path: "rel" }],
      bogus: true,
    };
    expect(validateCdiSpec({ ...good, containerEdits: edits })).toEqual([
      'containerEdits: unknown field "bogus"',
      'containerEdits.env: invalid environment variable "NOEQUALS"',
      "containerEdits.deviceNodes[0]: path is required",
      'containerEdits.deviceNodes[1]: invalid type "z"',
      'containerEdits.deviceNodes[1]: invalid permissions "rx"',
      "containerEdits.deviceNodes[1]: major must be an integer",
      "containerEdits.mounts[0]: containerPath is required",
      'containerEdits.hooks[0]: invalid hookName "sometime"',
      "containerEdits.hooks[0]: path must be absolute",
    ]);
    expect(validateCdiSpec({ ...good, devices: [{ name: "a" }, { name: "a", containerEdits: {} }] })).toEqual([
      "devices[0]: containerEdits is required",
      'devices[1]: duplicate device name "a"',
    ]);
  });

  it("enforces versions: known ones only, and at least what the features need", () => {
    expect(validateCdiSpec({ ...good, cdiVersion: "9.9.9" })).toEqual(['cdiVersion: invalid version "9.9.9"']);
    expect(validateCdiSpec({ ...good, cdiVersion: "0.4.0", devices: [{ name: "0", containerEdits: {} }] })).toEqual(["cdiVersion: the spec version must be at least v0.5.0"]);
    expect(minimumCdiVersion(good)).toBe("0.3.0");
    expect(minimumCdiVersion({ ...good, containerEdits: { mounts: [{ hostPath: "/a", containerPath: "/b", type: "bind" }] } })).toBe("0.4.0");
    expect(minimumCdiVersion({ ...good, kind: "vendor.com/dev.ice" })).toBe("0.6.0");
    expect(minimumCdiVersion({ ...good, annotations: { a: "b" } })).toBe("0.6.0");
    expect(minimumCdiVersion({ ...good, containerEdits: { additionalGids: [5] } })).toBe("0.7.0");
    expect(validateCdiSpec({ ...good, cdiVersion: CDI_VERSION_LATEST })).toEqual([]);
  });
});

describe("job-side names", () => {
  it("qualifies indices and MIG names with the vendor kind", () => {
    expect(cdiDeviceNames("amd", [0, 1])).toEqual(["amd.com/gpu=0", "amd.com/gpu=1"]);
    expect(cdiDeviceNames("nvidia", ["0:1", 3])).toEqual(["nvidia.com/gpu=0:1", "nvidia.com/gpu=3"]);
    expect(cdiDeviceNames("amd", [])).toEqual([]);
    expect(cdiSpecFileName("amd", "yaml")).toBe("spur-amd.com-gpu.yaml");
  });
});
