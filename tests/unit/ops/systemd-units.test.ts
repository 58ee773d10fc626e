/**
 * @module tests/unit/ops/systemd-units
 * The unit files `spur systemd-units` writes: what each daemon runs, how it restarts, and
 * that spurd is stopped alone (KillMode=process) so job steps outlive an agent restart.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemdUnits, systemdUnitsMain } from "../../../src/ops/systemd-units.ts";

const hasCmd = (cmd: string): boolean => Bun.spawnSync(["sh", "-c", `command -v ${cmd}`]).exitCode === 0;

/** key → values of a unit file's [Service] section. */
function section(text: string, name: string): Map<string, string[]> {
  const body = text.split(/^\[/m).find((s) => s.startsWith(`${name}]`)) ?? "";
  const out = new Map<string, string[]>();
  for (const line of body.split("\n").slice(1)) {
    const m = /^(\w+)=(.*)$/.exec(line);
    if (m !== null) out.set(m[1] ?? "", [...(out.get(m[1] ?? "") ?? []), m[2] ?? ""]);
  }
  return out;
}

describe("systemd units", () => {
  const units = new Map(systemdUnits().map((u) => [u.name, u.text]));

  it("has one unit per daemon, each running its role with the site config", () => {
    expect([...units.keys()]).toEqual(["spurctld.service", "spurd.service", "spurrestd.service"]);
    for (const [name, text] of units) {
      const svc = section(text, "Service");
      const role = name.replace(".service", "");
      expect(svc.get("ExecStart")).toEqual([`/usr/local/bin/${role} --conf /etc/spur/spur.conf`]);
      expect(svc.get("Restart")).toEqual(["on-failure"]);
      expect(svc.get("LimitNOFILE")?.length).toBe(1);
      expect(section(text, "Install").get("WantedBy")).toEqual(["multi-user.target"]);
      expect(section(text, "Unit").get("After")?.[0]).toContain("network-online.target");
    }
  });

  it("stops only the agent process, so job steps survive an agent restart", () => {
    const spurd = section(units.get("spurd.service") ?? "", "Service");
    expect(spurd.get("KillMode")).toEqual(["process"]);
    expect(spurd.get("Delegate")).toEqual(["yes"]);
    expect(section(units.get("spurctld.service") ?? "", "Service").get("KillMode")).toBeUndefined();
  });

  it("follows --bin-dir and --conf", () => {
    const [ctld] = systemdUnits({ binDir: "/opt/spur/bin", confPath: "/srv/spur.conf" });
    expect(ctld?.text).toContain("ExecStart=/opt/spur/bin/spurctld --conf /srv/spur.conf\n");
    expect(ctld?.text).toContain("ConditionPathExists=/srv/spur.conf\n");
  });

  it("writes them into a directory, idempotently, and never over a changed file without --force", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-units-"));
    expect(systemdUnitsMain({ dir }).stdout).toContain(`wrote ${dir}/spurd.service`);
    expect(systemdUnitsMain({ dir }).stdout).toContain(`unchanged ${dir}/spurd.service`);
    writeFileSync(join(dir, "spurd.service"), "# local edit\n");
    expect(systemdUnitsMain({ dir })).toMatchObject({ exitCode: 1, stderr: expect.stringContaining("--force") });
    expect(systemdUnitsMain({ dir, force: true }).exitCode).toBe(0);
    expect(readFileSync(join(dir, "spurd.service"), "utf8")).toBe(units.get("spurd.service"));
    expect(systemdUnitsMain({}).stdout).toContain("### spurrestd.service\n");
  });

  it.skipIf(!hasCmd("systemd-analyze"))("passes systemd-analyze verify (ExecStart pointed at a real file)", () => {
    const dir = mkdtempSync(join(tmpdir(), "spur-units-verify-"));
    for (const u of systemdUnits({ binDir: "/bin", confPath: "/etc/hostname" })) {
      const path = join(dir, u.name);
      writeFileSync(path, u.text.replace(/^ExecStart=\/bin\/\S+/m, "ExecStart=/bin/true"));
      const r = Bun.spawnSync(["systemd-analyze", "verify", "--man=no", path]);
      const complaints = r.stderr.toString().split("\n").filter((l) => l.includes(u.name));
      expect([u.name, complaints]).toEqual([u.name, []]);
    }
  });
});
