import { describe, expect, it } from "vitest";
import { drmForPci, normalizePciBusId, parseDevNumbers, parseDrmEntries, parseDrmEntry, parseUevent } from "../../../src/devices/parse-drm.ts";
import { migCapMinor, parseMigMinors, parseProcDevices } from "../../../src/devices/parse-proc.ts";
import { readSysfs } from "../../../src/devices/read-sysfs.ts";
import { H100_MIG, MI300X, fixtureRoot, fixtureText } from "./fixtures.ts";

describe("DRM sysfs", () => {
  it("parses uevent, dev numbers and PCI addresses", () => {
    const ue = parseUevent(fixtureText(MI300X, "sys/class/drm/card1/device/uevent"));
    expect(ue.get("PCI_SLOT_NAME")).toBe("0000:0c:00.0");
    expect(ue.get("DRIVER")).toBe("amdgpu");
    expect(parseDevNumbers("226:128\n")).toEqual([226, 128]);
    expect(parseDevNumbers("junk")).toBeUndefined();
    expect(normalizePciBusId("00000000:18:00.0")).toBe("0000:18:00.0");
    expect(normalizePciBusId("0000:DB:00.0")).toBe("0000:db:00.0");
    expect(normalizePciBusId("3b:00.0")).toBe("0000:3b:00.0");
  });

  it("lists cards and render nodes from a tree with a BMC VGA card0", () => {
    const entries = parseDrmEntries(readSysfs(fixtureRoot(MI300X)).drm);
    expect(entries.filter((e) => e.kind === "card")).toHaveLength(9);
    expect(entries.filter((e) => e.kind === "render")).toHaveLength(8);
    const vga = entries.find((e) => e.name === "card0")!;
    expect(vga).toMatchObject({ driver: "ast", vendorId: 0x1a03, pciSlot: "0000:02:00.0" });
    const card = drmForPci(entries, "card", "0000:df:00.0")!;
    expect(card).toMatchObject({ name: "card8", major: 226, minor: 8, numaNode: 1, vendorId: 0x1002, deviceId: 0x74a1, computePartition: "SPX", memoryPartition: "NPS1" });
    expect(drmForPci(entries, "render", "0000:df:00.0")?.number).toBe(135);
  });

  it("ignores connector and version entries", () => {
    expect(parseDrmEntry({ name: "card0-DP-1" })).toBeUndefined();
    expect(parseDrmEntry({ name: "version" })).toBeUndefined();
    expect(parseDrmEntry({ name: "renderD130" })).toMatchObject({ kind: "render", number: 130, major: -1, numaNode: -1, pciSlot: "" });
  });
});

describe("/proc files", () => {
  it("reads char majors only from the character section", () => {
    const majors = parseProcDevices(fixtureText(H100_MIG, "proc/devices"));
    expect(majors.get("nvidia-uvm")).toBe(508);
    expect(majors.get("nvidia-caps")).toBe(234);
    expect(majors.get("sd")).toBeUndefined();
    expect(parseProcDevices(fixtureText(MI300X, "proc/devices")).get("kfd")).toBe(235);
  });

  it("reads MIG capability minors", () => {
    const caps = parseMigMinors(fixtureText(H100_MIG, "proc/driver/nvidia-caps/mig-minors"));
    expect(caps).toHaveLength(6);
    expect(migCapMinor(caps, 0, 2, -1)).toBe(21);
    expect(migCapMinor(caps, 0, 2, 0)).toBe(22);
    expect(migCapMinor(caps, 1, 2, 0)).toBeUndefined();
  });
});
