/**
 * The cgroup v2 device filter: the assembled program's shape, and (root, with
 * a cgroup2 mount) the real thing: a process in a cgroup with the filter
 * attached cannot open a denied device (EPERM) but opens others.
 */
import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { attachDeviceFilter, deviceFilterProgram } from "../../../src/agent/cgroup/device-bpf.ts";
import { parseMountinfo } from "../../../src/agent/cgroup/layout.ts";

describe("deviceFilterProgram", () => {
  it("is 4 loads, 5 instructions per denied device, then allow", () => {
    expect(deviceFilterProgram([]).length).toBe((4 + 2) * 8);
    const p = deviceFilterProgram([{ kind: "c", major: 242, minor: 1 }, { kind: "b", major: 8, minor: 0 }]);
    expect(p.length).toBe((4 + 5 * 2 + 2) * 8);
    const view = new DataView(p.buffer);
    expect(p[32]).toBe(0x55); // jne r2 (type), char = 2
    expect(view.getInt32(36, true)).toBe(2);
    expect(view.getInt32(44, true)).toBe(242);
    expect(p[p.length - 16]).toBe(0xb7); // r0 = 1 (allow), then exit
    expect(p[p.length - 8]).toBe(0x95);
    expect(view.getInt32(p.length - 12, true)).toBe(1);
  });
});

const v2 = parseMountinfo(existsSync("/proc/self/mountinfo") ? readFileSync("/proc/self/mountinfo", "utf8") : "").find((m) => m.fsType === "cgroup2");
const canTry = process.getuid?.() === 0 && v2 !== undefined;

describe("attachDeviceFilter on this kernel", () => {
  it.skipIf(!canTry)("refuses the denied device to processes in the cgroup", async () => {
    const dir = join(v2?.mountPoint ?? "", `spur_bpftest_${process.pid}`);
    const devs = mkdtempSync(join(tmpdir(), "bpfdev-"));
    spawnSync("mknod", [join(devs, "a"), "c", "242", "0"]);
    spawnSync("mknod", [join(devs, "b"), "c", "242", "1"]);
    mkdirSync(dir);
    try {
      expect(await attachDeviceFilter(dir, [{ kind: "c", major: 242, minor: 1 }])).toBe("");
      const r = spawnSync("sh", ["-c", `echo $$ > ${dir}/cgroup.procs; head -c1 ${devs}/a; head -c1 ${devs}/b`], { encoding: "utf8" });
      expect(r.stderr).toContain(`${devs}/a' for reading: No such device or address`);
      expect(r.stderr).toContain(`${devs}/b' for reading: Operation not permitted`);
    } finally {
      rmdirSync(dir);
    }
  });
});
